// What every example app shares: a checked call that names the failing runtime call, and a loop
// over the work-items of one work-group (kernels here are written per work-item, like HIP code).
#pragma once

#include <gorocprof/sim.h>

#include <cstdio>
#include <cstdlib>

namespace examples {

inline const char* g_app = "example";

// Every runtime call in the examples goes through this: a failure ends the app with its reason.
#define SIM_CHECK(call)                                                                              \
    do {                                                                                             \
        simError_t sim_check_e = (call);                                                             \
        if (sim_check_e != simSuccess) {                                                             \
            std::fprintf(stderr, "%s: %s failed: %s (%s)\n", ::examples::g_app, #call,                \
                         simGetErrorString(sim_check_e), simGetLastErrorMessage());                  \
            std::exit(2);                                                                            \
        }                                                                                            \
    } while (0)

// The global index of work-item t of the calling work-group (1-D launches).
inline uint64_t global_id(const simKernelCtx* ctx, uint32_t t) {
    return uint64_t{ctx->blockIdx.x} * ctx->blockDim.x + t;
}

inline simKernel_t register_kernel(const char* mangled, simKernelFn fn, uint32_t sgpr, uint32_t vgpr,
                                   uint32_t lds_bytes = 0) {
    simKernelAttrs attrs{};
    attrs.sgpr = sgpr;
    attrs.vgpr = vgpr;
    attrs.lds_bytes = lds_bytes;
    simKernel_t k = nullptr;
    SIM_CHECK(simRegisterKernel(mangled, fn, &attrs, &k));
    return k;
}

inline simDim3 dim(uint32_t x) { return simDim3{x, 1, 1}; }

}  // namespace examples

namespace examples {

// increment(unsigned int* data, unsigned int n): data[i] += 1 for every i < n. The small kernel the
// test apps launch many times; each checks data afterwards.
struct IncrementArgs {
    uint32_t* data;
    uint32_t n;
};

inline void increment_kernel(const simKernelCtx* ctx, const void* a) {
    const auto* args = static_cast<const IncrementArgs*>(a);
    uint64_t active = 0;
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t) {
        uint64_t i = global_id(ctx, t);
        if (i < args->n) {
            args->data[i] += 1;
            ++active;
        }
    }
    simWorkGlobalLoad(ctx, 1, active * 4);
    simWorkValu(ctx, 2);
    simWorkSalu(ctx, 3);
    simWorkGlobalStore(ctx, 1, active * 4);
}

inline simKernel_t register_increment() { return register_kernel("_Z9incrementPjj", increment_kernel, 16, 4); }

// Launches increment over data[0..n) with 64-wide work-groups.
inline void launch_increment(simKernel_t k, uint32_t* data, uint32_t n, simStream_t stream) {
    IncrementArgs args{data, n};
    SIM_CHECK(simLaunchKernel(k, dim((n + 63) / 64), dim(64), 0, stream, &args, sizeof args));
}

// Copies data back and checks every element equals `expected`; prints the first mismatch.
inline bool check_all(const uint32_t* data, uint32_t n, uint32_t expected, const char* what) {
    uint32_t* host = static_cast<uint32_t*>(std::malloc(n * sizeof(uint32_t)));
    SIM_CHECK(simMemcpy(host, data, n * sizeof(uint32_t)));
    bool ok = true;
    for (uint32_t i = 0; i < n && ok; ++i)
        if (host[i] != expected) {
            std::fprintf(stderr, "%s: %s[%u] = %u, expected %u\n", g_app, what, i, host[i], expected);
            ok = false;
        }
    std::free(host);
    return ok;
}

// The work sim-crash, sim-exit and sim-signal do before they end abnormally: `times` launches of
// increment over a fresh zeroed buffer of n elements on the default stream, then the check. The buffer
// stays allocated, as an app that dies holding memory would leave it.
inline bool increment_and_check(uint32_t n, uint32_t times) {
    simKernel_t inc = register_increment();
    uint32_t* data = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), n * sizeof(uint32_t)));
    SIM_CHECK(simMemset(data, 0, n * sizeof(uint32_t)));
    for (uint32_t i = 0; i < times; ++i) launch_increment(inc, data, n, nullptr);
    SIM_CHECK(simDeviceSynchronize());
    return check_all(data, n, times, "data");
}

}  // namespace examples
