// saxpy in place on y, five times: y ends as five applications, never more.
#include "check.cuh"
#include <vector>

__global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int n = 1 << 20, iters = 5;
    const float a = 0.5f;
    std::vector<float> x(n), y(n), want(n);
    for (int i = 0; i < n; ++i) {
        x[i] = float(i % 13);
        y[i] = want[i] = float(i % 7);
    }
    for (int k = 0; k < iters; ++k)
        for (int i = 0; i < n; ++i) want[i] = a * x[i] + want[i];
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < iters; ++k) {
        saxpy<<<(n + 255) / 256, 256>>>(a, dx, dy, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    return verdict("saxpy", y.data(), want.data(), n);
}
