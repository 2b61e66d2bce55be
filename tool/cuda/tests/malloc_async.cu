// Stream-ordered allocations: buffers from cudaMallocAsync updated in place, one freed and its
// memory handed out again by the pool while the others live on.
#include "check.cuh"
#include <vector>

__global__ void scale_add(float* a, int n, float s, float b) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = a[i] * s + b;
}

int main() {
    const int n = 1 << 18;
    cudaStream_t st;
    CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    std::vector<float> init(n);
    for (int i = 0; i < n; ++i) init[i] = float(i % 31);
    float *a, *b, *c;
    CHECK(cudaMallocAsync(&a, n * sizeof(float), st));
    CHECK(cudaMallocAsync(&b, n * sizeof(float), st));
    CHECK(cudaMemcpyAsync(a, init.data(), n * sizeof(float), cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(b, init.data(), n * sizeof(float), cudaMemcpyHostToDevice, st));
    for (int k = 0; k < 6; ++k) {
        scale_add<<<(n + 255) / 256, 256, 0, st>>>(a, n, 2.0f, 1.0f);
        scale_add<<<(n + 255) / 256, 256, 0, st>>>(b, n, 0.5f, 3.0f);
        CHECK_LAUNCH();
    }
    CHECK(cudaFreeAsync(b, st));
    CHECK(cudaMallocAsync(&c, n * sizeof(float), st));  // may reuse b's memory
    CHECK(cudaMemcpyAsync(c, init.data(), n * sizeof(float), cudaMemcpyHostToDevice, st));
    for (int k = 0; k < 4; ++k) {
        scale_add<<<(n + 255) / 256, 256, 0, st>>>(c, n, 1.5f, -2.0f);
        scale_add<<<(n + 255) / 256, 256, 0, st>>>(a, n, 1.0f, 1.0f);
        CHECK_LAUNCH();
    }
    std::vector<float> ha(n), hc(n), wa(n), wc(n);
    for (int i = 0; i < n; ++i) {
        float x = init[i];
        for (int k = 0; k < 6; ++k) x = x * 2.0f + 1.0f;
        for (int k = 0; k < 4; ++k) x = x * 1.0f + 1.0f;
        wa[i] = x;
        float z = init[i];
        for (int k = 0; k < 4; ++k) z = z * 1.5f - 2.0f;
        wc[i] = z;
    }
    CHECK(cudaMemcpyAsync(ha.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost, st));
    CHECK(cudaMemcpyAsync(hc.data(), c, n * sizeof(float), cudaMemcpyDeviceToHost, st));
    CHECK(cudaStreamSynchronize(st));
    CHECK(cudaFreeAsync(a, st));
    CHECK(cudaFreeAsync(c, st));
    CHECK(cudaStreamSynchronize(st));
    int rc = verdict("malloc_async(a)", ha.data(), wa.data(), n);
    return rc ? rc : verdict("malloc_async(c)", hc.data(), wc.data(), n);
}
