// The two guards of replay on one GPU (scripts/gpu-test.sh, section guards).
// 1. A kernel named like NCCL's (ncclDevKernel_*) is never replayed: it runs once per launch. Each run adds 1
//    to a counter in mapped host memory, which no snapshot restores, so every run of it on the GPU shows.
//    This proves recognition by name and the single unwatched run; it is no collective and not NCCL's library.
// 2. A kernel that spins for 300 ms under GOROCPROF_CUDA_REPLAY_TIMEOUT=0.05: the timing run before pass 0 times
//    out, the tool queues its restore behind it and lets the application's launch run; the next launch finds
//    the run unfinished and runs once. After a synchronize the device is watched again: `bump` is replayed.
//    Memory must be what one run per launch leaves.
#include "check.cuh"
#include <vector>

extern "C" __global__ void ncclDevKernel_FakeAllReduce(unsigned* runs, float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(runs, 1u);
    if (i < n) x[i] += 1.0f;
}

__device__ unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(float* y, int n, unsigned long long ns) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long start = globaltimer();
    while (globaltimer() - start < ns) {
    }
    if (i < n) y[i] += 1.0f;
}

__global__ void bump(float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += 2.0f;
}

int main() {
    const int n = 1 << 16, comm_launches = 3, spins = 2;
    unsigned* runs = nullptr;
    CHECK(cudaHostAlloc(&runs, sizeof(unsigned), cudaHostAllocMapped));
    *runs = 0;
    unsigned* runs_dev = nullptr;
    CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&runs_dev), runs, 0));
    float *x = nullptr, *y = nullptr;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemset(x, 0, n * sizeof(float)));
    CHECK(cudaMemset(y, 0, n * sizeof(float)));
    for (int k = 0; k < comm_launches; ++k) {
        ncclDevKernel_FakeAllReduce<<<(n + 255) / 256, 256>>>(runs_dev, x, n);
        CHECK_LAUNCH();
    }
    for (int k = 0; k < spins; ++k) {
        spin<<<(n + 255) / 256, 256>>>(y, n, 300ull * 1000 * 1000);
        CHECK_LAUNCH();
    }
    CHECK(cudaDeviceSynchronize());
    bump<<<(n + 255) / 256, 256>>>(y, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    if (*runs != unsigned(comm_launches)) {
        std::fprintf(stderr, "FAIL guards: the NCCL-named kernel ran %u times on the GPU for %d launches\n", *runs,
                     comm_launches);
        return 1;
    }
    std::vector<float> hx(n), hy(n), wx(n, float(comm_launches)), wy(n, float(spins) + 2.0f);
    CHECK(cudaMemcpy(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFreeHost(runs));
    const int rx = verdict("guards (nccl-named x)", hx.data(), wx.data(), hx.size());
    return rx ? rx : verdict("guards", hy.data(), wy.data(), hy.size());
}
