// sim-nondet: a deliberately non-deterministic app. How many kernels it launches, and which, depends
// on the process id and the clock, so two runs (e.g. two application-replay passes) dispatch
// different sequences; the front end must notice the divergence. Its own results are still checked.
#include "common.hpp"

#include <unistd.h>

#include <ctime>

using namespace examples;

namespace {

// A second kernel with another name, so the sequence differs in names as well as in length.
void twice_kernel(const simKernelCtx* ctx, const void* a) {
    const auto* args = static_cast<const IncrementArgs*>(a);
    for (uint32_t t = 0; t < ctx->blockDim.x; ++t) {
        uint64_t i = global_id(ctx, t);
        if (i < args->n) args->data[i] += 2;
    }
    simWorkValu(ctx, 2);
}

}  // namespace

int main() {
    g_app = "sim-nondet";
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (static_cast<uint64_t>(getpid()) * 2654435761u) ^ static_cast<uint64_t>(ts.tv_nsec);
    simKernel_t inc = register_increment();
    simKernel_t twice = register_kernel("_Z5twicePjj", twice_kernel, 12, 4);
    const uint32_t n = 64;
    uint32_t* data = nullptr;
    SIM_CHECK(simMalloc(reinterpret_cast<void**>(&data), n * sizeof(uint32_t)));
    SIM_CHECK(simMemset(data, 0, n * sizeof(uint32_t)));
    const int launches = 3 + static_cast<int>(seed % 5);
    uint32_t expected = 0;
    for (int i = 0; i < launches; ++i) {
        IncrementArgs args{data, n};
        const bool use_twice = (seed >> (i + 3)) & 1;
        SIM_CHECK(simLaunchKernel(use_twice ? twice : inc, dim(1), dim(64), 0, nullptr, &args, sizeof args));
        expected += use_twice ? 2 : 1;
    }
    SIM_CHECK(simDeviceSynchronize());
    if (!check_all(data, n, expected, "data")) return 1;
    std::printf("sim-nondet: %d launches (seed %llu); results checked\n", launches, static_cast<unsigned long long>(seed));
    return 0;
}
