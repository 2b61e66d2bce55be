// Four streams, each updating its own buffer in place, launched interleaved without host syncs.
#include "check.cuh"
#include <vector>

__global__ void step(unsigned* a, int n, unsigned mul) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (a[i] * mul + 7u) % 1000003u;
}

int main() {
    const int n = 1 << 18, streams = 4, iters = 25;
    cudaStream_t s[streams];
    unsigned* d[streams];
    std::vector<std::vector<unsigned>> want(streams, std::vector<unsigned>(n));
    for (int j = 0; j < streams; ++j) {
        CHECK(cudaStreamCreateWithFlags(&s[j], cudaStreamNonBlocking));
        CHECK(cudaMalloc(&d[j], n * sizeof(unsigned)));
        for (int i = 0; i < n; ++i) want[j][i] = unsigned(i + j);
        CHECK(cudaMemcpy(d[j], want[j].data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    }
    for (int k = 0; k < iters; ++k)
        for (int j = 0; j < streams; ++j) {
            step<<<(n + 255) / 256, 256, 0, s[j]>>>(d[j], n, unsigned(3 + j));
            CHECK_LAUNCH();
            for (int i = 0; i < n; ++i) want[j][i] = (want[j][i] * unsigned(3 + j) + 7u) % 1000003u;
        }
    CHECK(cudaDeviceSynchronize());
    int rc = 0;
    for (int j = 0; j < streams && rc == 0; ++j) {
        std::vector<unsigned> h(n);
        CHECK(cudaMemcpy(h.data(), d[j], n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        rc = verdict("streams", h.data(), want[j].data(), n);
        CHECK(cudaFree(d[j]));
        CHECK(cudaStreamDestroy(s[j]));
    }
    return rc;
}
