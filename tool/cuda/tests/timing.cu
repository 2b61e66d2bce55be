// Kernels long enough for their duration to be checked (scripts/gpu-test.sh, section timing): an in-place
// integer recurrence of 2000 steps per element over 1M elements, at two lengths, five launches each. The
// recurrence runs on the host too (for every 4096th element), so a pass applied twice shows.
#include "check.cuh"
#include <vector>

__global__ void churn(unsigned* a, int n, int steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = a[i];
    for (int s = 0; s < steps; ++s) v = v * 1664525u + 1013904223u;
    a[i] = v;
}

int main() {
    const int n = 1 << 20, launches = 5, stride = 4096;
    const int lengths[] = {2000, 8000};
    std::vector<unsigned> h(n), got, want;
    for (int i = 0; i < n; ++i) h[i] = unsigned(i) * 2654435761u;
    for (int i = 0; i < n; i += stride) want.push_back(h[i]);
    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    for (int steps : lengths)
        for (int k = 0; k < launches; ++k) {
            churn<<<(n + 255) / 256, 256>>>(d, n, steps);
            CHECK_LAUNCH();
            for (unsigned& v : want)
                for (int s = 0; s < steps; ++s) v = v * 1664525u + 1013904223u;
        }
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    for (int i = 0; i < n; i += stride) got.push_back(h[i]);
    return verdict("timing", got.data(), want.data(), got.size());
}
