// Memory a kernel reaches only through addresses stored in device memory: a struct in device memory
// points at a table of buffer pointers and a counter (two levels of indirection), and a second kernel
// takes a struct of pointers by value. Every update is in place and not idempotent, so a replay that
// saved only what the arguments name would leave these buffers changed by every extra pass.
#include "check.cuh"
#include <algorithm>
#include <vector>

constexpr int kBuffers = 4;

struct Holder {
    float** table;
    unsigned* counter;
};

struct Pair {
    float* a;
    float* b;
};

__global__ void bump_through(const Holder* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int k = 0; k < kBuffers; ++k) h->table[k][i] = 2.0f * h->table[k][i] + float(k);
    if (i == 0) atomicAdd(h->counter, 1u);
}

__global__ void swap_add(Pair p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = p.a[i];
        p.a[i] = p.b[i] + 1.0f;
        p.b[i] = a;
    }
}

int main() {
    const int n = 1 << 18, iters = 5;
    std::vector<float*> bufs(kBuffers);
    std::vector<std::vector<float>> want(kBuffers, std::vector<float>(n));
    for (int k = 0; k < kBuffers; ++k) {
        for (int i = 0; i < n; ++i) want[k][i] = float((i + k) % 31);
        CHECK(cudaMalloc(&bufs[k], n * sizeof(float)));
        CHECK(cudaMemcpy(bufs[k], want[k].data(), n * sizeof(float), cudaMemcpyHostToDevice));
    }
    float** table;
    unsigned* counter;
    Holder* holder;
    CHECK(cudaMalloc(&table, kBuffers * sizeof(float*)));
    CHECK(cudaMemcpy(table, bufs.data(), kBuffers * sizeof(float*), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&counter, sizeof(unsigned)));
    CHECK(cudaMemset(counter, 0, sizeof(unsigned)));
    Holder h{table, counter};
    CHECK(cudaMalloc(&holder, sizeof(Holder)));
    CHECK(cudaMemcpy(holder, &h, sizeof(Holder), cudaMemcpyHostToDevice));
    for (int it = 0; it < iters; ++it) {
        bump_through<<<(n + 255) / 256, 256>>>(holder, n);
        CHECK_LAUNCH();
        swap_add<<<(n + 255) / 256, 256>>>(Pair{bufs[0], bufs[1]}, n);
        CHECK_LAUNCH();
        for (int k = 0; k < kBuffers; ++k)
            for (int i = 0; i < n; ++i) want[k][i] = 2.0f * want[k][i] + float(k);
        for (int i = 0; i < n; ++i) {
            float a = want[0][i];
            want[0][i] = want[1][i] + 1.0f;
            want[1][i] = a;
        }
    }
    unsigned got_counter = 0;
    CHECK(cudaMemcpy(&got_counter, counter, sizeof got_counter, cudaMemcpyDeviceToHost));
    if (got_counter != unsigned(iters)) {
        std::fprintf(stderr, "indirect: counter is %u, want %d\n", got_counter, iters);
        return 1;
    }
    std::vector<float> got(n * kBuffers), all(n * kBuffers);
    for (int k = 0; k < kBuffers; ++k) {
        CHECK(cudaMemcpy(got.data() + size_t(k) * n, bufs[k], n * sizeof(float), cudaMemcpyDeviceToHost));
        std::copy(want[k].begin(), want[k].end(), all.begin() + size_t(k) * n);
        CHECK(cudaFree(bufs[k]));
    }
    CHECK(cudaFree(table));
    CHECK(cudaFree(counter));
    CHECK(cudaFree(holder));
    return verdict("indirect", got.data(), all.data(), n * kBuffers);
}
