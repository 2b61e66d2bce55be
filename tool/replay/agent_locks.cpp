#include "agent_locks.hpp"

#include <thread>

namespace gorocprof::replay::detail {

std::mutex& AgentLocks::of(uint64_t agent_handle) {
    // Open addressing from a hashed start; a slot, once claimed, belongs to its agent for the life of
    // the process, so a reader that finds it ready needs no further synchronisation.
    size_t start = static_cast<size_t>((agent_handle * 0x9E3779B97F4A7C15ull) >> 58) % kSlots;
    for (size_t i = 0; i < kSlots; ++i) {
        Slot& s = slots_[(start + i) % kSlots];
        uint8_t st = s.state.load(std::memory_order_acquire);
        if (st == kEmpty) {
            uint8_t expected = kEmpty;
            if (s.state.compare_exchange_strong(expected, kClaiming, std::memory_order_acq_rel)) {
                s.agent = agent_handle;
                s.state.store(kReady, std::memory_order_release);
                return s.mu;
            }
            st = expected;
        }
        while (st == kClaiming) {
            std::this_thread::yield();
            st = s.state.load(std::memory_order_acquire);
        }
        if (s.agent == agent_handle) return s.mu;
    }
    return overflow_;
}

}  // namespace gorocprof::replay::detail
