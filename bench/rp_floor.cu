// The Range Profiler's own cost per pass, the floor the bench holds gorocprof's per-pass overhead
// against: the two kernels of bin/cuda-many_launches, each launched once per pass with its counters
// armed through the tool's own RangeCounters (auto range, user replay, one configuration for the
// union of the groups when it fits one hardware pass, as the tool does), and nothing else: no replay
// service, no snapshot or restore, no records, no interception.
//
// Usage: rp-floor DISPATCHES GROUP [GROUP...]   (GROUP: metric names separated by commas)
// Prints "rp-floor: D dispatches x P passes in T ms: X ms per pass" and exits 0, or names the failing
// call on stderr and exits 1. Built by scripts/gpu-bench.sh with nvcc from the tool's sources.
#include "device_info.hpp"
#include "many_kernels.cuh"
#include "range_counters.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace gc = gorocprof::cuda;
namespace core = gorocprof::core;

namespace {

int fail(const gc::PortStatus& st) {
    std::fprintf(stderr, "rp-floor: %s\n", st.message().c_str());
    return 1;
}

gc::PortStatus runtime(cudaError_t e, const char* call) {
    return e == cudaSuccess ? gc::PortStatus::success() : gc::PortStatus::failure(call, cudaGetErrorString(e));
}

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

    gc::PortStatus run(long dispatches) {
        gc::PortStatus st;
        for (long k = 0; k < dispatches; ++k)
            for (const core::PlanPass& pass : plan) {
                std::string note;
                if (!(st = counters.arm(&pass.counters, &note)).ok) return st;
                if (!note.empty()) std::fprintf(stderr, "rp-floor: %s\n", note.c_str());
                if (k % 2 == 0) add_one<<<(n + 255) / 256, 256>>>(data, n);
                else add_index<<<(n + 255) / 256, 256>>>(data, n);
                if (!(st = runtime(cudaGetLastError(), "kernel launch")).ok) return st;
                if (!(st = runtime(cudaDeviceSynchronize(), "cudaDeviceSynchronize")).ok) return st;
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

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: rp-floor DISPATCHES GROUP [GROUP...]\n");
        return 2;
    }
    char* end = nullptr;
    long dispatches = std::strtol(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || dispatches < 1) {
        std::fprintf(stderr, "rp-floor: DISPATCHES must be a positive number, got '%s'\n", argv[1]);
        return 2;
    }
    std::vector<core::PlanPass> plan;
    for (int i = 2; i < argc; ++i) {
        core::PlanPass p;
        p.group = i - 2;
        p.counters = parse_group(argv[i]);
        if (p.counters.empty()) {
            std::fprintf(stderr, "rp-floor: group %d names no metric\n", i - 1);
            return 2;
        }
        plan.push_back(p);
    }

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
    counters.plan_union(plan);
    Loop loop{counters, plan, data, n, {}, 0};
    // One dispatch untimed: configuration images, the first kernel's cost, lazy module loading.
    if (!(st = loop.run(1)).ok) return fail(st);
    auto t0 = std::chrono::steady_clock::now();
    if (!(st = loop.run(dispatches)).ok) return fail(st);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    counters.disable();
    cudaFree(data);

    const double passes = double(dispatches) * double(plan.size());
    std::printf("rp-floor: %ld dispatches x %zu passes in %.1f ms: %.3f ms per pass (%zu empty values)\n", dispatches,
                plan.size(), ms, ms / passes, loop.empty);
    return loop.empty == 0 ? 0 : 1;
}
