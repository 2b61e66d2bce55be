// The tracing proof's application (scripts/gpu-test.sh, section trace): runtime calls, driver calls,
// copies of every direction (host to device, device to host, device to device, a peer copy on one device,
// host to host), memsets through the runtime and the driver, kernels launched through both, NVTX pushes,
// pops, marks and a start/end range that ends on another thread, on two threads. Every call the app makes
// is counted here, and the counts are printed last as one line, `TRACE-EXPECT {json}`, for
// tests/check_trace.py to compare with the records: under kernel replay each must appear exactly once.
// The results are checked too: replay must leave memory as one run would.
#include "check.cuh"

#include <nvtx3/nvToolsExt.h>

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

__global__ void add_one(int* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += 1;
}

namespace {

constexpr int kN = 1 << 16;
constexpr size_t kBytes = kN * sizeof(int);
constexpr int kRounds = 3;

std::mutex mu;
std::map<std::string, int> runtime_calls, driver_calls, copies, markers;
int launches = 0;

void count(std::map<std::string, int>& m, const char* name, int n = 1) {
    std::lock_guard<std::mutex> lock(mu);
    m[name] += n;
}

// A runtime call, counted under its name.
#define RT(fn, ...)                          \
    do {                                     \
        count(runtime_calls, #fn);           \
        CHECK(fn(__VA_ARGS__));              \
    } while (0)
// A driver call, counted under the symbol CUPTI names (the _v2 of the header's macro included).
#define DRV(sym, fn, ...)                    \
    do {                                     \
        count(driver_calls, sym);            \
        CHECK_CU(fn(__VA_ARGS__));           \
    } while (0)

void launch(int* d, cudaStream_t s) {
    add_one<<<(kN + 255) / 256, 256, 0, s>>>(d, kN);
    count(runtime_calls, "cudaLaunchKernel");
    RT(cudaGetLastError);
    std::lock_guard<std::mutex> lock(mu);
    ++launches;
}

void fail(const char* what, int got, int want) {
    std::fprintf(stderr, "FAIL trace: %s is %d, expected %d\n", what, got, want);
    std::exit(1);
}

// The worker: its own stream and buffers, copies both ways, a memset, launches, nested NVTX ranges, and
// the end of the range the main thread started.
void worker(nvtxRangeId_t handed) {
    nvtxRangePushA("worker");
    count(markers, "nvtxRangePushA");
    cudaStream_t s;
    RT(cudaStreamCreateWithFlags, &s, cudaStreamNonBlocking);
    int* d = nullptr;
    int* h = nullptr;
    RT(cudaMalloc, &d, kBytes);
    RT(cudaMallocHost, reinterpret_cast<void**>(&h), kBytes);  // the C call (the template calls cudaHostAlloc)
    for (int i = 0; i < kN; ++i) h[i] = i;
    for (int r = 0; r < kRounds; ++r) {
        nvtxRangePushA("worker round");
        count(markers, "nvtxRangePushA");
        RT(cudaMemcpyAsync, d, h, kBytes, cudaMemcpyHostToDevice, s);
        count(copies, "MEMORY_COPY_HOST_TO_DEVICE");
        launch(d, s);
        RT(cudaMemcpyAsync, h, d, kBytes, cudaMemcpyDeviceToHost, s);
        count(copies, "MEMORY_COPY_DEVICE_TO_HOST");
        RT(cudaStreamSynchronize, s);
        nvtxRangePop();
        for (int i = 0; i < kN; ++i)
            if (h[i] != i + r + 1) fail("a worker element", h[i], i + r + 1);
    }
    RT(cudaMemsetAsync, d, 0, kBytes, s);
    count(copies, "MEMORY_SET");
    RT(cudaMemcpyAsync, h, d, kBytes, cudaMemcpyDeviceToHost, s);
    count(copies, "MEMORY_COPY_DEVICE_TO_HOST");
    RT(cudaStreamSynchronize, s);
    for (int i = 0; i < kN; ++i)
        if (h[i] != 0) fail("a worker element after its memset", h[i], 0);
    nvtxMarkA("worker done");
    count(markers, "nvtxMarkA");
    nvtxRangeEnd(handed);
    RT(cudaFreeHost, h);
    RT(cudaFree, d);
    RT(cudaStreamDestroy, s);
    nvtxRangePop();
}

}  // namespace

int main() {
    nvtxMarkA("start");
    count(markers, "nvtxMarkA");
    RT(cudaSetDevice, 0);
    RT(cudaFree, nullptr);  // the primary context, made current on this thread
    nvtxRangeId_t across = nvtxRangeStartA("across threads");
    count(markers, "nvtxRangeStartA");
    nvtxRangePushA("main");
    count(markers, "nvtxRangePushA");

    std::vector<int> host(kN), back(kN);
    for (int i = 0; i < kN; ++i) host[i] = 3 * i;
    int *a = nullptr, *b = nullptr;
    RT(cudaMalloc, &a, kBytes);
    RT(cudaMalloc, &b, kBytes);
    RT(cudaMemcpy, a, host.data(), kBytes, cudaMemcpyHostToDevice);
    count(copies, "MEMORY_COPY_HOST_TO_DEVICE");
    launch(a, nullptr);
    RT(cudaMemcpy, b, a, kBytes, cudaMemcpyDeviceToDevice);
    count(copies, "MEMORY_COPY_DEVICE_TO_DEVICE");
    // A peer copy between the one device and itself (a second device, where there is one, would be a
    // real peer; the trace names both agents either way).
    RT(cudaMemcpyPeer, a, 0, b, 0, kBytes);
    count(copies, "MEMORY_COPY_DEVICE_TO_DEVICE");
    RT(cudaMemcpy, back.data(), a, kBytes, cudaMemcpyDeviceToHost);
    count(copies, "MEMORY_COPY_DEVICE_TO_HOST");
    for (int i = 0; i < kN; ++i)
        if (back[i] != 3 * i + 1) fail("a main element", back[i], 3 * i + 1);

    // Host to host through the runtime, between pinned buffers.
    int *p = nullptr, *q = nullptr;
    RT(cudaMallocHost, reinterpret_cast<void**>(&p), kBytes);
    RT(cudaMallocHost, reinterpret_cast<void**>(&q), kBytes);
    for (int i = 0; i < kN; ++i) p[i] = 7 * i;
    RT(cudaMemcpy, q, p, kBytes, cudaMemcpyHostToHost);
    count(copies, "MEMORY_COPY_HOST_TO_HOST");
    for (int i = 0; i < kN; ++i)
        if (q[i] != 7 * i) fail("a host-to-host element", q[i], 7 * i);
    RT(cudaMemset, b, 0, kBytes);
    count(copies, "MEMORY_SET");

    std::thread t(worker, across);

    // The driver API: a memset, copies and a kernel launched through cuLaunchKernel.
    nvtxRangePushA("driver calls");
    count(markers, "nvtxRangePushA");
    CUdeviceptr c = 0;
    DRV("cuMemAlloc_v2", cuMemAlloc, &c, kBytes);
    DRV("cuMemsetD32_v2", cuMemsetD32, c, 5, kN);
    count(copies, "MEMORY_SET");
    cudaFunction_t f = nullptr;
    RT(cudaGetFuncBySymbol, &f, reinterpret_cast<const void*>(add_one));
    int n = kN;
    void* args[] = {&c, &n};
    DRV("cuLaunchKernel", cuLaunchKernel, reinterpret_cast<CUfunction>(f), (kN + 255) / 256, 1, 1, 256, 1, 1, 0,
        nullptr, args, nullptr);
    {
        std::lock_guard<std::mutex> lock(mu);
        ++launches;
    }
    DRV("cuMemcpyDtoH_v2", cuMemcpyDtoH, back.data(), c, kBytes);
    count(copies, "MEMORY_COPY_DEVICE_TO_HOST");
    for (int i = 0; i < kN; ++i)
        if (back[i] != 6) fail("a driver element", back[i], 6);
    DRV("cuMemcpyHtoD_v2", cuMemcpyHtoD, c, host.data(), kBytes);
    count(copies, "MEMORY_COPY_HOST_TO_DEVICE");
    DRV("cuCtxSynchronize", cuCtxSynchronize);
    DRV("cuMemFree_v2", cuMemFree, c);
    nvtxRangePop();

    t.join();
    RT(cudaFreeHost, p);
    RT(cudaFreeHost, q);
    RT(cudaFree, a);
    RT(cudaFree, b);
    RT(cudaDeviceSynchronize);
    nvtxRangePop();

    auto json = [](const std::map<std::string, int>& m) {
        std::string s = "{";
        for (const auto& [k, v] : m) s += (s.size() > 1 ? "," : "") + std::string("\"") + k + "\":" + std::to_string(v);
        return s + "}";
    };
    std::printf("TRACE-EXPECT {\"runtime\":%s,\"driver\":%s,\"copies\":%s,\"markers\":%s,\"launches\":%d,\"threads\":2}\n",
                json(runtime_calls).c_str(), json(driver_calls).c_str(), json(copies).c_str(), json(markers).c_str(),
                launches);
    std::printf("PASS trace\n");
    return 0;
}
