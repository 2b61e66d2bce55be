// The Range Profiler's own cost per pass, the floor the bench holds gorocprof's per-pass overhead
// against: the two kernels of bin/cuda-many_launches, each launched once per pass with its counters
// armed through the tool's own RangeCounters (auto range, user replay, one configuration for the
// union of the groups when it fits one hardware pass, as the tool does), and nothing else: no replay
// service, no snapshot or restore, no records, no interception.
//
// Usage: rp-floor DISPATCHES GROUP [GROUP...]   (GROUP: metric names separated by commas)
// Prints "rp-floor: D dispatches x P passes in T ms: X ms per pass" and exits 0, or names the failing
// call on stderr and exits 1. Built with the tool's own sources as the CMake target rp-floor
// (scripts/rp-floor-build.sh, used by scripts/gpu-bench.sh and scripts/rp-start-cost.sh).
//
// RP_FLOOR_WINDOW=1 measures the alternative the tool could adopt: one Start/Stop window per dispatch
// holding its P passes as P auto ranges (maxRangesPerPass = P, the union of the groups configured once),
// decoded together after the last pass. It prints the same line with "window" and how many ranges came
// back with every value, and how many differ from the dispatch's first range (the same kernel on the
// same data each time, so a working window gives P equal ranges). It also prints the mean time of arming a
// window (cuptiRangeProfilerStart and its set-up) and of collecting it (Stop, decode, evaluate): giving the
// same group P times measures what one Start of that configuration costs for P ranges
// (scripts/rp-start-cost.sh). RP_FLOOR_SPARE=K arms K ranges more than the window launches kernels (as the
// tool's spare range does), to tell a cost per armed range from one per recorded range; RP_FLOOR_RECREATE=1
// re-creates the profiler object before every window (as the tool does at a change of configuration), timed
// apart. The pass mode prints the mean arm time per pass too: with groups that do not fit one hardware pass
// together, that is the cost of alternating configurations (each change re-creates the object).
// RP_FLOOR_MULTIPASS=R0,R1: the union of the groups as one configuration even when it needs several hardware
// passes, one session per hardware pass on one profiler object (see run_multipass), values of every range
// printed: how CUPTI merges the sessions' ranges, and what each session's Start costs.
#include "bench_status.cuh"
#include "device_info.hpp"
#include "many_kernels.cuh"
#include "range_counters.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gc = gorocprof::cuda;
namespace core = gorocprof::core;

using gorocprof::cuda::bench::ms_since;
using gorocprof::cuda::bench::runtime;

namespace {

int fail(const gc::PortStatus& st) { return gorocprof::cuda::bench::fail("rp-floor", st); }

std::vector<core::PlanCounter> parse_group(const std::string& s) {
    std::vector<core::PlanCounter> out;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        if (comma > start) {
            core::PlanCounter c;
            c.name = s.substr(start, comma - start);
            out.push_back(c);
        }
        start = comma + 1;
    }
    return out;
}

struct Loop {
    gc::RangeCounters& counters;
    const std::vector<core::PlanPass>& plan;
    int* data;
    int n;
    std::vector<core::CounterSample> samples;
    size_t empty = 0;  // values the hardware did not deliver
    // Window mode: the union of the groups, and what the windows delivered.
    std::vector<core::PlanCounter> all;
    std::vector<std::vector<core::CounterSample>> ranges;
    size_t full_ranges = 0, differing_ranges = 0, windows = 0;
    double arm_ms = 0, collect_ms = 0;  // window mode: summed over the windows
    size_t spare = 0;                   // window mode: ranges armed beyond the launches (RP_FLOOR_SPARE)
    bool recreate = false;              // window mode: a new profiler object before every window (RP_FLOOR_RECREATE)
    double recreate_ms = 0;
    size_t arms = 0;                    // pass mode: arm calls timed into arm_ms
    bool trace = false;                 // pass mode: every arm's time on stderr (RP_FLOOR_TRACE=1)

    // Zeroes what the timed loop sums, after the untimed dispatch (not `empty`: a value missing there fails
    // the run too).
    void reset_totals() {
        full_ranges = differing_ranges = windows = arms = 0;
        arm_ms = collect_ms = recreate_ms = 0;
        session_start_ms.assign(session_start_ms.size(), 0.0);
    }

    // Launches the dispatch's kernel once (each pass runs the same kernel on the same data; no restore
    // here, the kernels are only timed and measured).
    gc::PortStatus launch(long k) { return launch_over(k % 2 != 0, n); }

    // One of the two kernels over the first `elements` ints, waited for.
    gc::PortStatus launch_over(bool index, int elements) {
        if (index) add_index<<<(elements + 255) / 256, 256>>>(data, elements);
        else add_one<<<(elements + 255) / 256, 256>>>(data, elements);
        gc::PortStatus st = runtime(cudaGetLastError(), "kernel launch");
        if (st.ok) st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        return st;
    }

    // Multi-pass mode: the union of the groups as one configuration on one profiler object, one Start/Stop
    // session per hardware pass until CUPTI reports every pass submitted; session s launches
    // per_session[s] kernels (the last entry repeats) over n >> s elements, so each metric's value tells
    // which session measured it. Then one decode of the whole window.
    std::vector<size_t> per_session;
    std::vector<double> session_start_ms;  // summed over dispatches, per session index
    size_t max_sessions = 0;
    gc::PortStatus run_multipass(long dispatches) {
        gc::PortStatus st;
        size_t most = 0;
        for (size_t r : per_session) most = std::max(most, r);
        for (long k = 0; k < dispatches; ++k) {
            std::string note;
            size_t sessions = 0;
            for (bool submitted = false; !submitted; ++sessions) {
                if (sessions == 8)
                    return gc::PortStatus::failure("cuptiRangeProfilerStop", "not all passes submitted after 8 sessions");
                const auto t0 = std::chrono::steady_clock::now();
                if (!(st = sessions == 0 ? counters.arm(&all, &note, most) : counters.restart()).ok) return st;
                if (session_start_ms.size() <= sessions) session_start_ms.resize(sessions + 1, 0.0);
                session_start_ms[sessions] += ms_since(t0);
                const size_t r = per_session[std::min(sessions, per_session.size() - 1)];
                for (size_t i = 0; i < r; ++i)
                    if (!(st = launch_over(false, n >> sessions)).ok) return st;
                if (!(st = counters.stop(&submitted)).ok) return st;
            }
            max_sessions = std::max(max_sessions, sessions);
            if (k == 0 && !note.empty()) std::fprintf(stderr, "rp-floor: %s\n", note.c_str());
            const std::vector<const gc::Group*> groups(most, &all);
            const auto t0 = std::chrono::steady_clock::now();
            if (!(st = counters.collect_ranges(groups, &ranges)).ok) return st;
            collect_ms += ms_since(t0);
            ++windows;
        }
        return st;
    }

    gc::PortStatus run_windows(long dispatches) {
        gc::PortStatus st;
        for (long k = 0; k < dispatches; ++k) {
            std::string note;
            if (recreate) {
                const auto t = std::chrono::steady_clock::now();
                counters.disable();
                if (!(st = counters.enable_now()).ok) return st;
                recreate_ms += ms_since(t);
            }
            auto t0 = std::chrono::steady_clock::now();
            if (!(st = counters.arm(&all, &note, plan.size() + spare)).ok) return st;
            arm_ms += ms_since(t0);
            if (counters.armed_passes() > 1)
                return gc::PortStatus::failure("rp-floor window mode",
                                               "the groups need several hardware passes together (one window runs only "
                                               "the first): use RP_FLOOR_MULTIPASS");
            for (size_t p = 0; p < plan.size(); ++p)
                if (!(st = launch(k)).ok) return st;
            const std::vector<const gc::Group*> groups(plan.size(), &all);
            t0 = std::chrono::steady_clock::now();
            if (!(st = counters.collect_ranges(groups, &ranges)).ok) return st;
            collect_ms += ms_since(t0);
            ++windows;
            for (const auto& r : ranges) {
                bool full = true, same = true;
                for (size_t i = 0; i < r.size(); ++i) {
                    full = full && !std::isnan(r[i].values[0]);
                    same = same && r[i].values[0] == ranges[0][i].values[0];
                }
                full_ranges += full ? 1 : 0;
                differing_ranges += same ? 0 : 1;
            }
        }
        return gc::PortStatus::success();
    }

    gc::PortStatus run(long dispatches) {
        gc::PortStatus st;
        for (long k = 0; k < dispatches; ++k)
            for (const core::PlanPass& pass : plan) {
                std::string note;
                const auto t0 = std::chrono::steady_clock::now();
                if (!(st = counters.arm(&pass.counters, &note)).ok) return st;
                const double arm = ms_since(t0);
                arm_ms += arm;
                ++arms;
                if (trace) std::fprintf(stderr, "rp-floor: dispatch %ld pass %d: arm %.3f ms\n", k, pass.group, arm);
                if (!note.empty()) std::fprintf(stderr, "rp-floor: %s\n", note.c_str());
                if (!(st = launch(k)).ok) return st;
                bool all_submitted = true;
                if (!(st = counters.stop(&all_submitted)).ok) return st;
                if (!all_submitted)
                    return gc::PortStatus::failure("cuptiRangeProfilerStop", "the group needs more than one hardware pass");
                if (!(st = counters.collect(&samples)).ok) return st;
                for (const core::CounterSample& s : samples)
                    for (double v : s.values) empty += std::isnan(v) ? 1 : 0;
            }
        return gc::PortStatus::success();
    }
};

// DISPATCHES and the groups; false (after saying why) when they are not usable.
bool parse_args(int argc, char** argv, long* dispatches, std::vector<core::PlanPass>* plan) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: rp-floor DISPATCHES GROUP [GROUP...]\n");
        return false;
    }
    char* end = nullptr;
    *dispatches = std::strtol(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || *dispatches < 1) {
        std::fprintf(stderr, "rp-floor: DISPATCHES must be a positive number, got '%s'\n", argv[1]);
        return false;
    }
    for (int i = 2; i < argc; ++i) {
        core::PlanPass p;
        p.group = i - 2;
        p.counters = parse_group(argv[i]);
        if (p.counters.empty()) {
            std::fprintf(stderr, "rp-floor: group %d names no metric\n", i - 1);
            return false;
        }
        plan->push_back(p);
    }
    return true;
}

// RP_FLOOR_MULTIPASS: one dispatch untimed, then the timed ones, and the last window's ranges.
int multipass(Loop& loop, long dispatches) {
    gc::PortStatus st;
    if (!(st = loop.run_multipass(1)).ok) return fail(st);
    loop.reset_totals();
    auto t0 = std::chrono::steady_clock::now();
    if (!(st = loop.run_multipass(dispatches)).ok) return fail(st);
    const double ms = ms_since(t0);
    std::printf("rp-floor multipass: %ld dispatches, %zu sessions each, in %.1f ms: %.3f ms per dispatch; "
                "Start per session:",
                dispatches, loop.max_sessions, ms, ms / double(dispatches));
    for (double t : loop.session_start_ms) std::printf(" %.3f ms", t / double(dispatches));
    std::printf("; collect %.3f ms\n", loop.collect_ms / double(dispatches));
    for (size_t r = 0; r < loop.ranges.size(); ++r) {
        std::printf("rp-floor multipass: last window, range %zu:", r);
        for (const core::CounterSample& cs : loop.ranges[r])
            std::printf(" %s=%.0f", cs.counter ? cs.counter->name.c_str() : "?", cs.values.empty() ? -1.0 : cs.values[0]);
        std::printf("\n");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    long dispatches = 0;
    std::vector<core::PlanPass> plan;
    if (!parse_args(argc, argv, &dispatches, &plan)) return 2;

    gc::PortStatus st;
    if (!(st = runtime(cudaFree(nullptr), "cudaFree(0)")).ok) return fail(st);  // creates the primary context
    CUcontext ctx = nullptr;
    if (!(st = gc::cu(cuCtxGetCurrent(&ctx), "cuCtxGetCurrent")).ok) return fail(st);
    if (!(st = gc::ensure_profiler_initialized()).ok) return fail(st);
    std::string chip;
    if (!(st = gc::chip_name(0, &chip)).ok) return fail(st);

    const int n = 1 << 16;
    int* data = nullptr;
    if (!(st = runtime(cudaMalloc(&data, n * sizeof(int)), "cudaMalloc")).ok) return fail(st);
    if (!(st = runtime(cudaMemset(data, 0, n * sizeof(int)), "cudaMemset")).ok) return fail(st);

    gc::RangeCounters counters(ctx, chip);
    if (!(st = counters.enable_now()).ok) return fail(st);
    counters.plan_passes(plan);
    Loop loop{counters, plan, data, n};
    if (const char* spare = std::getenv("RP_FLOOR_SPARE")) loop.spare = std::strtoul(spare, nullptr, 10);
    if (const char* re = std::getenv("RP_FLOOR_RECREATE")) loop.recreate = *re == '1';
    if (const char* tr = std::getenv("RP_FLOOR_TRACE")) loop.trace = *tr == '1';
    for (const core::PlanPass& pass : plan)
        for (const core::PlanCounter& c : pass.counters) {
            bool seen = false;
            for (const core::PlanCounter& u : loop.all) seen = seen || u.name == c.name;
            if (!seen) loop.all.push_back(c);
        }
    const char* window_env = std::getenv("RP_FLOOR_WINDOW");
    const bool window = window_env && *window_env == '1';
    if (const char* mp = std::getenv("RP_FLOOR_MULTIPASS")) {
        for (const core::PlanCounter& c : parse_group(mp))
            loop.per_session.push_back(std::strtoul(c.name.c_str(), nullptr, 10));
        if (loop.per_session.empty() || loop.per_session.front() == 0) {
            std::fprintf(stderr, "rp-floor: RP_FLOOR_MULTIPASS wants kernels per session, e.g. 4,6\n");
            return 2;
        }
        const int rc = multipass(loop, dispatches);
        counters.disable();
        cudaFree(data);
        return rc;
    }
    // One dispatch untimed: configuration images, the first kernel's cost, lazy module loading.
    if (!(st = window ? loop.run_windows(1) : loop.run(1)).ok) return fail(st);
    loop.reset_totals();
    auto t0 = std::chrono::steady_clock::now();
    if (!(st = window ? loop.run_windows(dispatches) : loop.run(dispatches)).ok) return fail(st);
    const double ms = ms_since(t0);
    counters.disable();
    cudaFree(data);
    if (window) {
        const double passes = double(dispatches) * double(plan.size());
        std::printf("rp-floor window: %ld dispatches x %zu passes in %.1f ms: %.3f ms per pass (%zu of %zu ranges with "
                    "every value, %zu differ from their window's first; per window: arm %.3f ms, collect %.3f ms, "
                    "re-create %.3f ms)\n",
                    dispatches, plan.size(), ms, ms / passes, loop.full_ranges, loop.windows * plan.size(),
                    loop.differing_ranges, loop.arm_ms / double(loop.windows), loop.collect_ms / double(loop.windows),
                    loop.recreate_ms / double(loop.windows));
        return loop.full_ranges == loop.windows * plan.size() ? 0 : 1;
    }

    const double passes = double(dispatches) * double(plan.size());
    std::printf("rp-floor: %ld dispatches x %zu passes in %.1f ms: %.3f ms per pass (%zu empty values; arm %.3f ms per pass)\n",
                dispatches, plan.size(), ms, ms / passes, loop.empty, loop.arm_ms / double(loop.arms ? loop.arms : 1));
    return loop.empty == 0 ? 0 : 1;
}
