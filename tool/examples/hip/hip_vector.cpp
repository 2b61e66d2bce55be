// hip-vector: a HIP application for profiling on ROCm (vector add, then an in-place update of the sum),
// checking its own results against a host computation. It is built only where CMake finds a HIP
// compiler (CMake's HIP language over ROCm's clang, or hipcc: tool/examples/CMakeLists.txt); no
// machine of this project's CI has ROCm, so it is compiled and run only on a ROCm machine.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define HIP_CHECK(call)                                                                          \
    do {                                                                                         \
        hipError_t err_ = (call);                                                                \
        if (err_ != hipSuccess) {                                                                \
            std::fprintf(stderr, "hip-vector: %s failed: %s\n", #call, hipGetErrorString(err_)); \
            std::exit(2);                                                                        \
        }                                                                                        \
    } while (0)

__global__ void vector_add(const float* a, const float* b, float* c, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// In place: a kernel whose replay would double-apply the update unless memory is restored between passes.
__global__ void scale_in_place(float* c, unsigned n, float factor) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = c[i] * factor + 1.0f;
}

int main(int argc, char** argv) {
    const unsigned n = 1u << 20;
    const int iterations = argc > 1 ? std::atoi(argv[1]) : 3;
    std::vector<float> a(n), b(n), c(n), want(n);
    for (unsigned i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 1000);
        b[i] = static_cast<float>((i * 7) % 13);
    }
    float *da = nullptr, *db = nullptr, *dc = nullptr;
    HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
    HIP_CHECK(hipMalloc(&dc, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));

    const unsigned block = 256, grid = (n + block - 1) / block;
    for (unsigned i = 0; i < n; ++i) want[i] = a[i] + b[i];
    hipLaunchKernelGGL(vector_add, dim3(grid), dim3(block), 0, 0, da, db, dc, n);
    HIP_CHECK(hipGetLastError());
    for (int it = 0; it < iterations; ++it) {
        hipLaunchKernelGGL(scale_in_place, dim3(grid), dim3(block), 0, 0, dc, n, 0.5f);
        HIP_CHECK(hipGetLastError());
        for (unsigned i = 0; i < n; ++i) want[i] = want[i] * 0.5f + 1.0f;
    }
    HIP_CHECK(hipMemcpy(c.data(), dc, n * sizeof(float), hipMemcpyDeviceToHost));
    HIP_CHECK(hipFree(da));
    HIP_CHECK(hipFree(db));
    HIP_CHECK(hipFree(dc));

    unsigned bad = 0;
    for (unsigned i = 0; i < n; ++i) bad += c[i] != want[i];
    if (bad != 0) {
        std::fprintf(stderr, "hip-vector: FAIL: %u of %u values differ from the host's\n", bad, n);
        return 1;
    }
    std::printf("hip-vector: PASS: %d kernel launches; every value matches the host's\n", 1 + iterations);
    return 0;
}
