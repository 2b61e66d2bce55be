#include "sim_port.hpp"

#include <cmath>
#include <cstring>
#include <limits>
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

// One execution's PassRecord, reused by every pass on this thread: nothing is allocated per pass
// once the vectors have grown to the plan's counters and instances.
thread_local core::PassRecord t_record;
thread_local std::vector<core::CounterSample> t_spare;

}  // namespace

std::string last_error() { return simGetLastErrorMessage(); }

PortStatus SimPort::drain(const replay::Dispatch&) {
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

PortStatus SimPort::snapshot(const replay::Dispatch&, replay::Snapshot** out) {
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

PortStatus SimPort::restore(const replay::Dispatch&, replay::Snapshot& snap) {
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

void SimPort::release(replay::Snapshot* snap) {
    auto* s = static_cast<SimSnapshot*>(snap);
    if (s != nullptr && s->backup != nullptr) simToolBackupFree(s->backup);
    delete s;
}

PortStatus SimPort::submit(const replay::Dispatch&, uint64_t pass) {
    // A single run skips drain(): the launch must still start after the work queued before it.
    if (!drained_) {
        if (simToolDrain(agent_) != simSuccess) return PortStatus::failure("simToolDrain", last_error());
        drained_ = true;
    }
    simExecResult result;
    if (simToolExecute(launch_, &result) != simSuccess) return PortStatus::failure("simToolExecute", last_error());
    record_execution(launch_, result, pass);
    return PortStatus::success();
}

void SimPort::complete(const replay::Dispatch&) {
    if (held_) {
        simToolReleaseAgent(agent_);
        held_ = false;
    }
    if (simToolComplete(launch_) != simSuccess)
        core::Core::instance().fatal("launch " + std::to_string(launch_->launch_id) + ": " + last_error());
}

void record_execution(const simLaunch* launch, const simExecResult& result, uint64_t pass) {
    core::Core& core = core::Core::instance();
    core::PassRecord& rec = t_record;
    rec.pass = pass;
    rec.passes = pass == core::kNotReplayed ? 1 : core.passes_for_agent(launch->agent).size();
    rec.start_ns = result.start_ns;
    rec.end_ns = result.end_ns;
    const std::vector<core::PlanCounter>* counters = core.counters_for_current_pass(launch->agent);
    size_t n = counters != nullptr ? counters->size() : 0;
    // Passes of one plan collect different numbers of counters: samples not needed now wait in the
    // spare list with their capacity instead of being freed and allocated again.
    std::vector<core::CounterSample>& spare = t_spare;
    while (rec.counters.size() > n) {
        spare.push_back(std::move(rec.counters.back()));
        rec.counters.pop_back();
    }
    while (rec.counters.size() < n) {
        if (spare.empty()) {
            rec.counters.emplace_back();
        } else {
            rec.counters.push_back(std::move(spare.back()));
            spare.pop_back();
        }
    }
    for (size_t i = 0; i < n; ++i) {
        const core::PlanCounter& c = (*counters)[i];
        core::CounterSample& sample = rec.counters[i];
        sample.counter = &c;
        if (sample.values.capacity() < 64) sample.values.reserve(64);
        sample.values.resize(sample.values.capacity());
        size_t got = 0;
        simError_t e = simToolSampleCounter(launch, &result, c.name.c_str(), c.block.c_str(), c.event,
                                            sample.values.data(), sample.values.size(), &got);
        if (e == simErrorInvalidValue && got > sample.values.size()) {
            sample.values.resize(got);
            e = simToolSampleCounter(launch, &result, c.name.c_str(), c.block.c_str(), c.event, sample.values.data(),
                                     sample.values.size(), &got);
        }
        if (e != simSuccess) {
            // Not delivered: one null per hardware instance (one when even that is unknown).
            size_t instances = 0;
            if (simToolCounterInstances(launch->agent, c.block.c_str(), &instances) != simSuccess || instances == 0)
                instances = 1;
            got = instances;
            sample.values.assign(instances, std::numeric_limits<double>::quiet_NaN());
        }
        sample.values.resize(got);
    }
    core.record_pass(rec);
}

}  // namespace gorocprof::sim
