#include "sim_port.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace gorocprof::sim {
namespace {

using replay::PortStatus;

// One execution's PassRecord, reused by every pass on this thread: nothing is allocated per pass
// once the vectors have grown to the plan's counters and instances.
thread_local core::PassRecord t_record;
thread_local std::vector<core::CounterSample> t_spare;

}  // namespace

PortStatus SimPort::submit(const replay::Dispatch&, uint64_t pass) {
    simExecResult result;
    PortStatus st = execute(&result);
    if (!st.ok) return st;
    record_execution(launch_, result, pass);
    return PortStatus::success();
}

void SimPort::report(const std::string& message) { core::Core::instance().fatal(message); }

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
