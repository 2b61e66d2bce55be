#include "sim_window.hpp"

#include <cstring>
#include <vector>

namespace gorocprof::sim {
namespace {

using replay::PortStatus;

// What pass 0 may change: every live allocation and module variable of the agent, copied into one
// backup block (device memory when it fits, pinned host memory otherwise).
struct SimSnapshot : replay::Snapshot {
    struct Region {
        void* base;
        size_t size;
        uint64_t serial;
        size_t offset;  // in the backup block
    };
    std::vector<Region> regions;
    void* backup = nullptr;
    size_t bytes = 0;
};

void collect(const simAllocationInfo* a, void* user) {
    auto* s = static_cast<SimSnapshot*>(user);
    s->regions.push_back({a->base, a->size, a->serial, s->bytes});
    s->bytes += a->size;
}

}  // namespace

std::string last_error() { return simGetLastErrorMessage(); }

PortStatus SimWindowPort::drain(const replay::Dispatch&) {
    // First let the work queued before this launch finish (a hold would stop it where it is, and this
    // launch would then run before it). Then hold, so that no stream of the agent starts anything
    // between the snapshot and the last restore, and wait for what started in between. Released in
    // complete().
    if (simToolDrain(agent_) != simSuccess) return PortStatus::failure("simToolDrain", last_error());
    if (!held_) {
        if (simToolHoldAgent(agent_) != simSuccess) return PortStatus::failure("simToolHoldAgent", last_error());
        held_ = true;
    }
    if (simToolDrain(agent_) != simSuccess) return PortStatus::failure("simToolDrain", last_error());
    drained_ = true;
    return PortStatus::success();
}

PortStatus SimWindowPort::snapshot(const replay::Dispatch&, replay::Snapshot** out) {
    if (simToolFailPoint("snapshot")) return PortStatus::failure("snapshot", "simulated backup failure");
    auto* s = new SimSnapshot;
    if (simToolForEachAllocation(agent_, collect, s) != simSuccess) {
        delete s;
        return PortStatus::failure("simToolForEachAllocation", last_error());
    }
    if (s->bytes > 0) {
        if (simToolBackupAlloc(agent_, s->bytes, SIM_BACKUP_DEVICE, &s->backup) != simSuccess &&
            simToolBackupAlloc(agent_, s->bytes, SIM_BACKUP_HOST_PINNED, &s->backup) != simSuccess) {
            std::string pinned = last_error();
            size_t free_bytes = 0, total = 0, bytes = s->bytes;
            simToolMemInfo(agent_, &free_bytes, &total);
            delete s;
            return PortStatus::failure("snapshot", "needs " + std::to_string(bytes) + " bytes of backup; " +
                                                       std::to_string(free_bytes) +
                                                       " free on device, pinned host allocation failed (" + pinned +
                                                       ")");
        }
        for (const auto& r : s->regions) std::memcpy(static_cast<char*>(s->backup) + r.offset, r.base, r.size);
    }
    *out = s;
    return PortStatus::success();
}

PortStatus SimWindowPort::restore(const replay::Dispatch&, replay::Snapshot& snap) {
    if (simToolFailPoint("restore")) return PortStatus::failure("restore", "simulated restore failure");
    auto& s = static_cast<SimSnapshot&>(snap);
    for (const auto& r : s.regions) {
        // Only the allocation that was saved: freed memory is skipped, and an address handed out again
        // (a new serial) belongs to someone else now.
        uint64_t serial = 0;
        if (simToolAllocationSerial(r.base, &serial) != simSuccess || serial != r.serial) continue;
        std::memcpy(r.base, static_cast<const char*>(s.backup) + r.offset, r.size);
    }
    return PortStatus::success();
}

void SimWindowPort::release(replay::Snapshot* snap) {
    auto* s = static_cast<SimSnapshot*>(snap);
    if (s != nullptr && s->backup != nullptr) simToolBackupFree(s->backup);
    delete s;
}

PortStatus SimWindowPort::execute(simExecResult* result) {
    // A single run skips drain(): the launch must still start after the work queued before it.
    if (!drained_) {
        if (simToolDrain(agent_) != simSuccess) return PortStatus::failure("simToolDrain", last_error());
        drained_ = true;
    }
    if (simToolExecute(launch_, result) != simSuccess) return PortStatus::failure("simToolExecute", last_error());
    return PortStatus::success();
}

void SimWindowPort::complete(const replay::Dispatch&) {
    if (held_) {
        simToolReleaseAgent(agent_);
        held_ = false;
    }
    if (simToolComplete(launch_) != simSuccess)
        report("launch " + std::to_string(launch_->launch_id) + ": " + last_error());
}

}  // namespace gorocprof::sim
