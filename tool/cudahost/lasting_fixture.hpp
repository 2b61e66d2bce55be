// What the lasting windows' host tests share (lasting_host_test.cpp, union_runs_host_test.cpp): the kernel ids
// of the fake CUPTI's ranges, which kernel a pass's values are, a written dispatch's passes, one context's
// RangeCounters planned over named groups.
#pragma once

#include "../testkit/check.hpp"

#include "counter_plans.hpp"
#include "fake_cupti.hpp"
#include "lasting_window.hpp"
#include "range_counters.hpp"

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lasting_fixture {

using gorocprof::core::CounterSample;
using gorocprof::core::DispatchFacts;
using gorocprof::core::PassRecord;
using gorocprof::core::PlanCounter;
using gorocprof::core::PlanPass;
using gorocprof::cuda::Group;
using gorocprof::cuda::JoinFacts;
using gorocprof::cuda::LastingWindow;
using gorocprof::cuda::PendingPass;
using gorocprof::cuda::RangeCounters;
using gorocprof::replay::Outcome;
using gorocprof::replay::PortStatus;

using counter_plans::plan;
using counter_plans::value;

// The tool's own kernels and one of the application's that is no dispatch (their ranges read values no
// dispatch's kernel has).
constexpr size_t kFlushKernel = 900001, kReachScan = 900002, kTimingRun = 900003, kForeign = 900004;
constexpr size_t kNever = static_cast<size_t>(-1);

// The kernel of dispatch d's pass p.
inline size_t kernel_id(size_t d, size_t p) { return d * 10 + p + 1; }

// Which kernel a pass's samples are the values of: -1 when every value is empty, -2 when they are no kernel's.
inline long kernel_of(const Group& group, const std::vector<CounterSample>& got, size_t id) {
    if (got.size() != group.size()) return -2;
    bool empty = true, right = true;
    for (size_t i = 0; i < got.size(); ++i) {
        if (got[i].values.size() != 1) return -2;
        if (!std::isnan(got[i].values[0])) empty = false;
        if (got[i].values[0] != value(group[i].name, id)) right = false;
    }
    return empty ? -1 : right ? static_cast<long>(id) : -2;
}

// A dispatch's passes [at, at + n) as written: per pass the kernel its values are (kernel_of; the pass's kernel id
// travels in its start time, this test's own convention). With `timed`, a pass that read its range must last that
// range's duration metric (the fake's value for its kernel); `wrong_durations` counts those that do not.
inline std::vector<long> written_kernels(std::vector<PendingPass>& ps, size_t at, size_t n, bool timed, size_t* wrong_durations) {
    std::vector<long> kernels;
    for (size_t i = at; i < at + n; ++i) {
        const size_t id = static_cast<size_t>(ps[i].rec.start_ns);
        const long k = kernel_of(*ps[i].group, ps[i].rec.counters, id);
        kernels.push_back(k);
        const int64_t want = timed && k >= 0 ? static_cast<int64_t>(value(RangeCounters::kDurationMetric, id)) : 0;
        if (ps[i].rec.end_ns - ps[i].rec.start_ns != want) ++*wrong_durations;
    }
    return kernels;
}


// One context's RangeCounters planned over `groups`, the fake CUPTI's values and metric costs set. Every replay
// pass runs its kernel, as with GOROCPROF_CUDA_UNION_RUNS=0, unless a case turns union runs on.
struct Setup {
    std::vector<PlanPass> passes;
    RangeCounters rc{reinterpret_cast<CUcontext>(0x10), "GH100"};
    Setup(const std::vector<std::vector<std::string>>& groups, size_t kernels_per_pass, std::map<std::string, int> cost = {})
        : passes(plan(groups)) {
        fakecupti::state().value = value;
        fakecupti::state().cost = std::move(cost);
        rc.set_kernels_per_pass(kernels_per_pass);
        rc.allow_union_runs(false);
        rc.plan_passes(passes);
    }
};


}  // namespace lasting_fixture
