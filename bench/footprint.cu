// Workload (3) of the bench: a large footprint of which kernels touch little. Allocates FOOTPRINT_GIB
// (default 16) in 1 GiB buffers, fills them, then runs LAUNCHES (default 20) in-place kernels over the
// first 1 GiB only, and checks the result. Replay cost that follows the footprint instead of the
// bytes written shows up as the difference between FOOTPRINT_GIB=16 and FOOTPRINT_GIB=1.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            std::fprintf(stderr, "footprint: %s: %s\n", #call, cudaGetErrorString(e_));           \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

__global__ void bump(unsigned* a, size_t n, unsigned k) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = a[i] * 3u + k;
}

int main() {
    const int gib = std::getenv("FOOTPRINT_GIB") ? std::atoi(std::getenv("FOOTPRINT_GIB")) : 16;
    const int launches = std::getenv("LAUNCHES") ? std::atoi(std::getenv("LAUNCHES")) : 20;
    const size_t per = size_t(1) << 30, n = per / sizeof(unsigned);
    std::vector<unsigned*> bufs(gib);
    for (int i = 0; i < gib; ++i) {
        CK(cudaMalloc(&bufs[i], per));
        CK(cudaMemset(bufs[i], i + 1, per));
    }
    for (int k = 0; k < launches; ++k) {
        bump<<<1056, 512>>>(bufs[0], n, unsigned(k));
        CK(cudaGetLastError());
    }
    CK(cudaDeviceSynchronize());
    // Every element started as 0x01010101 and went through the same launches: check a sample.
    unsigned want = 0x01010101u;
    for (int k = 0; k < launches; ++k) want = want * 3u + unsigned(k);
    std::vector<unsigned> got(1 << 20);
    CK(cudaMemcpy(got.data(), bufs[0], got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < got.size(); ++i)
        if (got[i] != want) {
            std::fprintf(stderr, "footprint: element %zu is %u, want %u\n", i, got[i], want);
            return 1;
        }
    std::printf("footprint: PASS (%d GiB allocated, %d launches over 1 GiB)\n", gib, launches);
    for (unsigned* b : bufs) CK(cudaFree(b));
    return 0;
}
