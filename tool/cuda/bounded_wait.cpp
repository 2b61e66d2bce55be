#include "bounded_wait.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

namespace gorocprof::cuda {

int64_t replay_bound_ns(int64_t configured_ns, int64_t kernel_ns) {
    if (configured_ns > 0) return configured_ns;
    if (kernel_ns < 0) return kUntimedBoundNs;
    // A kernel above ~92 s would overflow the product: its bound is the product's ceiling.
    const int64_t scaled = kernel_ns > INT64_MAX / kBoundFactor ? INT64_MAX : kernel_ns * kBoundFactor;
    return std::max(kMinBoundNs, scaled);
}

PortStatus wait_bounded(CUevent ev, int64_t bound_ns, bool* timed_out) {
    using clock = std::chrono::steady_clock;
    *timed_out = false;
    const clock::time_point start = clock::now();
    const clock::time_point deadline = start + std::chrono::nanoseconds(bound_ns);
    // Most passes are kernels of microseconds: the first 100 us are polled (yielding the core between queries)
    // so that they cost no sleep's latency; a longer kernel is then waited for in sleeps.
    const clock::time_point polled = start + std::chrono::microseconds(100);
    std::chrono::microseconds nap(20);
    for (;;) {
        // Not through cu() first: "not ready" is the answer to keep waiting, not a failure.
        const CUresult r = cuEventQuery(ev);
        if (r == CUDA_SUCCESS) return PortStatus::success();
        if (r != CUDA_ERROR_NOT_READY) return cu(r, "cuEventQuery");
        const clock::time_point now = clock::now();
        if (now >= deadline) {
            *timed_out = true;
            return PortStatus::success();
        }
        if (now < polled) {
            std::this_thread::yield();
            continue;
        }
        std::this_thread::sleep_for(std::min<clock::duration>(nap, deadline - now));
        nap = std::min(nap * 2, std::chrono::microseconds(1000));
    }
}

std::string describe_bound(int64_t ns) {
    char b[48];
    if (ns >= 1000000000) std::snprintf(b, sizeof b, "%g s", static_cast<double>(ns) / 1e9);
    else std::snprintf(b, sizeof b, "%g ms", static_cast<double>(ns) / 1e6);
    return b;
}

}  // namespace gorocprof::cuda
