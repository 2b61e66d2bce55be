// A kernel bumps a __device__ counter once per block. The host reads the counter only at the end,
// so the tool must find the variable without the host ever asking for its address first.
#include "check.cuh"

__device__ unsigned long long g_counter;
__device__ int g_last[4];

__global__ void bump(int tag) {
    if (threadIdx.x == 0) atomicAdd(&g_counter, 1ULL);
    if (blockIdx.x == 0 && threadIdx.x < 4) g_last[threadIdx.x] += tag;
}

int main() {
    const int launches = 20, blocks = 64;
    for (int k = 0; k < launches; ++k) {
        bump<<<blocks, 128>>>(k + 1);
        CHECK_LAUNCH();
    }
    unsigned long long got = 0;
    int last[4];
    CHECK(cudaMemcpyFromSymbol(&got, g_counter, sizeof got));
    CHECK(cudaMemcpyFromSymbol(last, g_last, sizeof last));
    unsigned long long want = (unsigned long long)launches * blocks;
    int want_last = launches * (launches + 1) / 2;
    int wl[4] = {want_last, want_last, want_last, want_last};
    if (got != want) {
        std::fprintf(stderr, "FAIL device_counter: counter is %llu, expected %llu\n", got, want);
        return 1;
    }
    return verdict("device_counter", last, wl, 4);
}
