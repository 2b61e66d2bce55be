// What a traced call costs the application's thread (scripts/gpu-bench.sh, BENCH_WORKLOADS=calls): the calls a
// launch-bound PyTorch step makes most, each timed over many repetitions on the host. Prints one line per
// call kind, `CALL-NS kind ns`, the best of five rounds' mean host time per call, so the same binary run
// unprofiled, under gorocprof and under nsys gives each tracer's per-call cost. The kernel's result is checked:
// the counts it adds up must equal the launches made.
#include "check.cuh"

#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

__global__ void bump(unsigned long long* count) {
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(count, 1ULL);
}

namespace {

constexpr int kRounds = 5;

using Clock = std::chrono::steady_clock;
double ns_since(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

// The best round's mean ns per call of `body`, which makes `n` calls and returns the host ns they took.
double per_call(int n, const std::function<double(int)>& body) {
    double best = 1e300;
    for (int r = 0; r < kRounds; ++r) best = std::min(best, body(n) / n);
    return best;
}

// `n` calls of `call`, timed whole.
double timed(int n, const std::function<void()>& call) {
    auto t0 = Clock::now();
    for (int i = 0; i < n; ++i) call();
    return ns_since(t0);
}

// `n` calls of `call` on stream `s` in batches the GPU drains between (untimed), so the launch queue never
// fills and the time is the host's alone.
double batched(int n, cudaStream_t s, const std::function<void(int)>& call) {
    constexpr int kBatch = 256;
    double ns = 0;
    for (int done = 0; done < n;) {
        const int m = std::min(kBatch, n - done);
        auto t0 = Clock::now();
        for (int i = 0; i < m; ++i) call(done + i);
        ns += ns_since(t0);
        CHECK(cudaStreamSynchronize(s));
        done += m;
    }
    return ns;
}

void report(const char* kind, double ns) { std::printf("CALL-NS %s %.1f\n", kind, ns); }

}  // namespace

int main(int argc, char** argv) {
    const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(nullptr));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    unsigned long long* count = nullptr;
    CHECK(cudaMalloc(&count, sizeof *count));
    CHECK(cudaMemset(count, 0, sizeof *count));
    int* small = nullptr;
    CHECK(cudaMalloc(&small, 64));
    unsigned long long launches = 0;

    int dev = -1;
    CUcontext current = nullptr;
    report("cudaGetDevice", per_call(20000 * scale, [&](int n) { return timed(n, [&] { CHECK(cudaGetDevice(&dev)); }); }));
    report("cudaGetLastError", per_call(20000 * scale, [&](int n) { return timed(n, [] { CHECK(cudaGetLastError()); }); }));
    report("cuCtxGetCurrent", per_call(20000 * scale, [&](int n) { return timed(n, [&] { CHECK_CU(cuCtxGetCurrent(&current)); }); }));
    report("cudaLaunchKernel", per_call(2000 * scale, [&](int n) {
               launches += n;
               return batched(n, s, [&](int) { bump<<<1, 32, 0, s>>>(count); });
           }));
    report("cudaMemsetAsync", per_call(2000 * scale, [&](int n) {
               return batched(n, s, [&](int i) { CHECK(cudaMemsetAsync(small, i & 0xff, 64, s)); });
           }));
    cudaEvent_t e;
    CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    report("cudaEventRecord", per_call(10000 * scale, [&](int n) { return batched(n, s, [&](int) { CHECK(cudaEventRecord(e, s)); }); }));
    CHECK(cudaEventDestroy(e));
    report("nvtxRangePushPop", per_call(20000 * scale, [&](int n) {
               return timed(n, [] {
                   nvtxRangePushA("call");
                   nvtxRangePop();
               });
           }));
    CHECK(cudaStreamSynchronize(s));
    unsigned long long got = 0;
    CHECK(cudaMemcpy(&got, count, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(small));
    CHECK(cudaFree(count));
    CHECK(cudaStreamDestroy(s));
    if (got != launches) {
        std::fprintf(stderr, "FAIL api_calls: the kernel counted %llu launches, expected %llu\n", got, launches);
        return 1;
    }
    std::printf("api_calls: %llu launches counted\n", launches);
    return 0;
}
