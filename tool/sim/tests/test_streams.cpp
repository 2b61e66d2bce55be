// Streams without a tool: launches return before their kernel runs, each stream runs its items in
// submission order, synchronisation waits, and every launch is seen completed exactly once.
#include "sim_check.hpp"

#include <gorocprof/sim.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_release{false};
std::atomic<bool> g_gate_timed_out{false};

// Waits (bounded) for the host to release it: only an asynchronous launch lets the host get there.
void gate_kernel(const simKernelCtx*, const void*) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!g_release.load()) {
        if (std::chrono::steady_clock::now() > until) {
            g_gate_timed_out = true;
            return;
        }
        std::this_thread::yield();
    }
}

struct AppendArgs {
    int* log;
    int* count;
    int value;
};

// Appends its value to a log in device memory: the log's order is the execution order.
void append_kernel(const simKernelCtx* ctx, const void* a) {
    const auto* args = static_cast<const AppendArgs*>(a);
    args->log[(*args->count)++] = args->value;
    simWorkSalu(ctx, 3);
}

}  // namespace

int main() {
    simKernel_t gate = nullptr, append = nullptr;
    simKernelAttrs attrs{};
    CHECK_OK(simRegisterKernel("_Z4gatev", gate_kernel, &attrs, &gate));
    CHECK_OK(simRegisterKernel("_Z6appendPiS_i", append_kernel, &attrs, &append));
    simKernel_t again = nullptr;
    CHECK_OK(simRegisterKernel("_Z6appendPiS_i", append_kernel, &attrs, &again));
    CHECK(again == append);
    CHECK(simRegisterKernel("_Z6appendPiS_i", gate_kernel, &attrs, &again) == simErrorInvalidValue);

    const simDim3 one{1, 1, 1};

    // Asynchrony: the gate kernel can only finish because the launch returned first.
    simStream_t s1 = nullptr, s2 = nullptr;
    CHECK_OK(simStreamCreate(&s1));
    CHECK_OK(simStreamCreate(&s2));
    CHECK_OK(simLaunchKernel(gate, one, one, 0, s1, nullptr, 0));
    uint64_t done = 99;
    CHECK_OK(simStreamCompletedLaunches(s1, &done));
    CHECK(done == 0);
    g_release = true;
    CHECK_OK(simStreamSynchronize(s1));
    CHECK(!g_gate_timed_out.load());
    CHECK_OK(simStreamCompletedLaunches(s1, &done));
    CHECK(done == 1);

    // Order: interleave launches and async copies on two streams.
    const int n = 200;
    int *log1 = nullptr, *log2 = nullptr, *counts = nullptr;
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&log1), n * sizeof(int)));
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&log2), n * sizeof(int)));
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&counts), 2 * sizeof(int)));
    CHECK_OK(simMemset(counts, 0, 2 * sizeof(int)));
    for (int i = 0; i < n; ++i) {
        AppendArgs a1{log1, &counts[0], i}, a2{log2, &counts[1], n - i};
        CHECK_OK(simLaunchKernel(append, one, one, 0, s1, &a1, sizeof a1));
        CHECK_OK(simLaunchKernel(append, one, one, 0, s2, &a2, sizeof a2));
    }
    // An async copy after the launches sees all of them.
    std::vector<int> host(n, -1);
    CHECK_OK(simMemcpyAsync(host.data(), log1, n * sizeof(int), s1));
    CHECK_OK(simStreamSynchronize(s1));
    for (int i = 0; i < n; ++i) CHECK(host[i] == i);
    CHECK_OK(simDeviceSynchronize());
    int c[2] = {0, 0};
    CHECK_OK(simMemcpy(c, counts, sizeof c));
    CHECK(c[0] == n && c[1] == n);
    CHECK_OK(simMemcpy(host.data(), log2, n * sizeof(int)));
    for (int i = 0; i < n; ++i) CHECK(host[i] == n - i);
    CHECK_OK(simStreamCompletedLaunches(s1, &done));
    CHECK(done == 1 + n);
    CHECK_OK(simStreamCompletedLaunches(s2, &done));
    CHECK(done == static_cast<uint64_t>(n));

    // The default stream, and launches from several threads at once.
    CHECK_OK(simMemset(counts, 0, 2 * sizeof(int)));
    std::vector<std::thread> threads;
    std::atomic<int> launch_errors{0};
    static int per_thread_count[4];
    static int per_thread_log[4][50];
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            simStream_t s = nullptr;
            if (simStreamCreate(&s) != simSuccess) ++launch_errors;
            for (int i = 0; i < 50; ++i) {
                AppendArgs a{per_thread_log[t], &per_thread_count[t], i};
                if (simLaunchKernel(append, one, one, 0, s, &a, sizeof a) != simSuccess) ++launch_errors;
            }
            if (simStreamSynchronize(s) != simSuccess || simStreamDestroy(s) != simSuccess) ++launch_errors;
        });
    for (auto& t : threads) t.join();
    CHECK(launch_errors == 0);
    for (int t = 0; t < 4; ++t) {
        CHECK(per_thread_count[t] == 50);
        for (int i = 0; i < 50; ++i) CHECK(per_thread_log[t][i] == i);
    }
    AppendArgs d{log1, &counts[0], 7};
    CHECK_OK(simLaunchKernel(append, one, one, 0, nullptr, &d, sizeof d));
    CHECK_OK(simDeviceSynchronize());
    CHECK_OK(simStreamCompletedLaunches(nullptr, &done));
    CHECK(done == 1);

    // Bad launches are refused with a reason.
    CHECK(simLaunchKernel(append, one, simDim3{2048, 1, 1}, 0, s1, &d, sizeof d) == simErrorInvalidConfiguration);
    CHECK(simLaunchKernel(append, one, one, 1 << 20, s1, &d, sizeof d) == simErrorInvalidConfiguration);
    CHECK(simLaunchKernel(append, simDim3{0, 1, 1}, one, 0, s1, &d, sizeof d) == simErrorInvalidValue);
    CHECK(simLaunchKernel(reinterpret_cast<simKernel_t>(&d), one, one, 0, s1, &d, sizeof d) == simErrorInvalidHandle);

    CHECK_OK(simStreamDestroy(s1));
    CHECK_OK(simStreamDestroy(s2));
    CHECK(simStreamSynchronize(s1) == simErrorInvalidHandle);
    CHECK_OK(simFree(log1));
    CHECK_OK(simFree(log2));
    CHECK_OK(simFree(counts));
    return test_result("test_streams");
}
