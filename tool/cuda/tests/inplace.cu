// In-place update: x = 2x + 1, ten times. Replay without restore would apply it more often.
#include "check.cuh"
#include <vector>

__global__ void twice_plus_one(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 2.0f * x[i] + 1.0f;
}

int main() {
    const int n = 1 << 20, iters = 10;
    std::vector<float> h(n), want(n);
    for (int i = 0; i < n; ++i) h[i] = want[i] = float(i % 97) * 0.25f;
    for (int k = 0; k < iters; ++k)
        for (int i = 0; i < n; ++i) want[i] = 2.0f * want[i] + 1.0f;
    float* d;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < iters; ++k) {
        twice_plus_one<<<(n + 255) / 256, 256>>>(d, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return verdict("inplace", h.data(), want.data(), n);
}
