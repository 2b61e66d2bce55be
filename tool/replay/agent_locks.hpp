// Internal to tool/replay: one mutex per agent, held for a whole replay window so that no other
// thread's dispatch on that agent runs between a snapshot and the last pass (its writes would be
// reverted by the next restore).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace gorocprof::replay::detail {

class AgentLocks {
public:
    // The mutex of an agent. Lock-free lookup in a fixed table; agents beyond its size share one
    // overflow mutex (correct, only less parallel).
    std::mutex& of(uint64_t agent_handle);

    // Windows open on any agent. A dispatch that sees the replay domain disabled still serialises
    // when this is non-zero, because a window opened while the domain was enabled may still be open.
    std::atomic<uint64_t> open_windows{0};

private:
    static constexpr size_t kSlots = 64;
    enum : uint8_t { kEmpty = 0, kClaiming = 1, kReady = 2 };
    struct Slot {
        std::atomic<uint8_t> state{kEmpty};
        uint64_t agent = 0;  // written before state becomes kReady, immutable after
        std::mutex mu;
    };
    Slot slots_[kSlots];
    std::mutex overflow_;
};

}  // namespace gorocprof::replay::detail
