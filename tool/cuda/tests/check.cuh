// Shared by the CUDA test apps: every runtime/driver call is checked, and an app that finds a wrong
// result prints it and exits 1 (2 for a CUDA error).
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            std::exit(2);                                                                               \
        }                                                                                               \
    } while (0)

#define CHECK_CU(call)                                                                   \
    do {                                                                                 \
        CUresult r_ = (call);                                                            \
        if (r_ != CUDA_SUCCESS) {                                                        \
            const char* s_ = nullptr;                                                    \
            cuGetErrorString(r_, &s_);                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
            std::exit(2);                                                                \
        }                                                                                \
    } while (0)

#define CHECK_LAUNCH() CHECK(cudaGetLastError())

// Reports the first mismatch; returns the exit status.
template <typename T>
int verdict(const char* app, const T* got, const T* want, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (!(got[i] == want[i])) {
            std::fprintf(stderr, "FAIL %s: element %zu is %.17g, expected %.17g\n", app, i, (double)got[i],
                         (double)want[i]);
            return 1;
        }
    }
    std::printf("PASS %s (%zu elements)\n", app, n);
    return 0;
}
