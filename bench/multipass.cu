// The shape of issue 30's workload: two kernels over buffers of 4 MB (1M floats) each, 200 iterations, so 400
// dispatches, each reading and writing both buffers in place (a replay that does not restore memory shows
// in the result). Profiled with several counter groups whose union needs two hardware passes
// (scripts/gpu-bench.sh, workload multipass).
#include "../tool/cuda/tests/check.cuh"

#include <cstdio>
#include <vector>

__global__ void mix_into_y(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Rounded steps (no fused multiply-add), so that the host's check computes the same values.
    if (i < n) y[i] = __fadd_rn(__fadd_rn(__fmul_rn(0.5f, y[i]), __fmul_rn(0.25f, x[i])), 1.0f);
}

__global__ void mix_into_x(float* x, const float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = __fadd_rn(__fmul_rn(0.5f, x[i]), __fmul_rn(0.125f, y[i]));
}

int main() {
    const int n = 1 << 20, iters = 200;
    std::vector<float> x(n), y(n), wx(n), wy(n);
    for (int i = 0; i < n; ++i) x[i] = wx[i] = float(i % 31), y[i] = wy[i] = float(i % 17);
    for (int k = 0; k < iters; ++k)
        for (int i = 0; i < n; ++i) {
            wy[i] = 0.5f * wy[i] + 0.25f * wx[i] + 1.0f;
            wx[i] = 0.5f * wx[i] + 0.125f * wy[i];
        }
    float *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    for (int k = 0; k < iters; ++k) {
        mix_into_y<<<(n + 255) / 256, 256>>>(dx, dy, n);
        CHECK_LAUNCH();
        mix_into_x<<<(n + 255) / 256, 256>>>(dx, dy, n);
        CHECK_LAUNCH();
    }
    CHECK(cudaMemcpy(x.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += (x[i] != wx[i] || y[i] != wy[i]);
    std::printf("%s multipass: %d of %d elements wrong\n", wrong ? "FAIL" : "PASS", wrong, n);
    return wrong ? 1 : 0;
}
