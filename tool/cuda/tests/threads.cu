// One host thread launching an in-place kernel 1000 times while three others copy into, set, read back
// and free their own buffers 1000 times each (synchronous copies, asynchronous copies from pinned memory,
// memsets, frees and new allocations). Every read-back is checked against what the thread wrote, the
// launcher's buffer against the host's own computation; the printed digest of all of it is the same with
// and without replay. Under GOROCPROF_CUDA_RESTORE=all every snapshot copies the copiers' buffers too, so
// a copy that landed between two passes of a replayed dispatch would be reverted and read back wrong.
#include "check.cuh"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

__global__ void step(unsigned* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (a[i] * 3u + 7u) % 1000003u;
}

namespace {

constexpr int kN = 1 << 16;
constexpr int kIters = 1000;
constexpr int kCopiers = 3;

uint64_t fnv(uint64_t h, const unsigned* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

unsigned pattern(int copier, int iter, int i) { return unsigned(copier * 2654435761u + iter * 40503u + i * 97u); }

std::atomic<int> failures{0};

void launcher(uint64_t* digest) {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, kN * sizeof(unsigned)));
    std::vector<unsigned> want(kN), got(kN);
    for (int i = 0; i < kN; ++i) want[i] = unsigned(i);
    CHECK(cudaMemcpy(d, want.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
    for (int k = 0; k < kIters; ++k) {
        step<<<(kN + 255) / 256, 256, 0, s>>>(d, kN);
        CHECK_LAUNCH();
        for (int i = 0; i < kN; ++i) want[i] = (want[i] * 3u + 7u) % 1000003u;
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(got.data(), d, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i)
        if (got[i] != want[i]) {
            std::fprintf(stderr, "FAIL threads: launcher element %d is %u, expected %u\n", i, got[i], want[i]);
            ++failures;
            break;
        }
    *digest = fnv(14695981039346656037ull, got.data(), kN);
    CHECK(cudaFree(d));
    CHECK(cudaStreamDestroy(s));
}

void copier(int c, uint64_t* digest) {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, kN * sizeof(unsigned)));
    std::vector<unsigned> host(kN), back(kN);
    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, kN * sizeof(unsigned)));
    uint64_t h = 14695981039346656037ull;
    for (int k = 0; k < kIters; ++k) {
        if (k % 3 == 2) {
            const unsigned char v = static_cast<unsigned char>(k * 7 + c);
            CHECK(cudaMemset(d, v, kN * sizeof(unsigned)));
            const unsigned word = v * 0x01010101u;
            for (int i = 0; i < kN; ++i) host[i] = word;
        } else {
            for (int i = 0; i < kN; ++i) host[i] = pattern(c, k, i);
            if (k % 3 == 0) {
                CHECK(cudaMemcpy(d, host.data(), kN * sizeof(unsigned), cudaMemcpyHostToDevice));
            } else {
                for (int i = 0; i < kN; ++i) pinned[i] = host[i];
                CHECK(cudaMemcpyAsync(d, pinned, kN * sizeof(unsigned), cudaMemcpyHostToDevice, s));
                CHECK(cudaStreamSynchronize(s));
            }
        }
        CHECK(cudaMemcpy(back.data(), d, kN * sizeof(unsigned), cudaMemcpyDeviceToHost));
        for (int i = 0; i < kN; ++i)
            if (back[i] != host[i]) {
                std::fprintf(stderr, "FAIL threads: copier %d iteration %d element %d is %u, expected %u\n", c, k, i,
                             back[i], host[i]);
                ++failures;
                break;
            }
        h = fnv(h, back.data(), kN);
        if (k % 50 == 49) {  // a free and a new allocation while the launcher's dispatches are replayed
            CHECK(cudaFree(d));
            CHECK(cudaMalloc(&d, kN * sizeof(unsigned)));
        }
    }
    *digest = h;
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaStreamDestroy(s));
}

}  // namespace

int main() {
    CHECK(cudaFree(nullptr));  // the context exists before the threads start
    uint64_t digests[1 + kCopiers] = {};
    std::vector<std::thread> threads;
    threads.emplace_back(launcher, &digests[0]);
    for (int c = 0; c < kCopiers; ++c) threads.emplace_back(copier, c, &digests[1 + c]);
    for (std::thread& t : threads) t.join();
    uint64_t all = 14695981039346656037ull;
    for (uint64_t d : digests) {
        all ^= d;
        all *= 1099511628211ull;
    }
    if (failures.load() != 0) {
        std::fprintf(stderr, "FAIL threads: %d wrong results\n", failures.load());
        return 1;
    }
    std::printf("PASS threads (1 launcher x %d launches, %d copiers x %d iterations) digest %016llx\n", kIters,
                kCopiers, kIters, static_cast<unsigned long long>(all));
    return 0;
}
