// Hundreds of launches of two small kernels over one buffer.
#include "check.cuh"
#include "many_kernels.cuh"
#include <vector>

int main() {
    const int n = 1 << 16, launches = 300;
    int* d;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMemset(d, 0, n * sizeof(int)));
    for (int k = 0; k < launches; ++k) {
        if (k % 2 == 0) add_one<<<(n + 255) / 256, 256>>>(d, n);
        else add_index<<<(n + 255) / 256, 256>>>(d, n);
        CHECK_LAUNCH();
    }
    std::vector<int> h(n), want(n);
    for (int i = 0; i < n; ++i) want[i] = (launches / 2) * 1 + (launches / 2) * (i & 7);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    return verdict("many_launches", h.data(), want.data(), n);
}
