// What the Range Profiler bench programs (rp_floor.cu, rp_ranges.cu) share: a failed call reported
// under the program's name, a CUDA runtime result as a status naming its call, and elapsed wall time.
#pragma once

#include "check.hpp"

#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

namespace gorocprof::cuda::bench {

inline int fail(const char* program, const PortStatus& st) {
    std::fprintf(stderr, "%s: %s\n", program, st.message().c_str());
    return 1;
}

inline PortStatus runtime(cudaError_t e, const char* call) {
    return e == cudaSuccess ? PortStatus::success() : PortStatus::failure(call, cudaGetErrorString(e));
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace gorocprof::cuda::bench
