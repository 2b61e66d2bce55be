// Launch interception: a hook that runs a launch twice and completes it once leaves the application
// seeing one completion per launch; enqueue hands a launch back; launching from a hook works; a held
// launch holds its stream (and only its stream) without blocking simToolDrain.
#include "sim_check.hpp"

#include <gorocprof/sim_tool.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace {

enum class Mode { Twice, Enqueue, Reentrant, Hold };
std::atomic<Mode> g_mode{Mode::Twice};
std::atomic<int> g_hook_calls{0};
std::atomic<int> g_callback_calls{0};
std::atomic<uint64_t> g_callback_waves{0};
std::atomic<const simLaunch*> g_held{nullptr};
simKernel_t g_inner = nullptr;
std::atomic<int> g_errors{0};

struct IncArgs {
    int* counter;
};

void inc_kernel(const simKernelCtx* ctx, const void* a) {
    ++*static_cast<const IncArgs*>(a)->counter;
    simWorkValu(ctx, 1);
}

void done_cb(const simLaunch*, const simExecResult* r, void*) {
    ++g_callback_calls;
    g_callback_waves += r->waves;
}

void must(simError_t e) {
    if (e != simSuccess) {
        std::fprintf(stderr, "hook: %s\n", simGetLastErrorMessage());
        ++g_errors;
    }
}

void hook(const simLaunch* l, void*) {
    ++g_hook_calls;
    Mode mode = g_mode.load();
    if (l->kernel == g_inner) mode = Mode::Twice;  // the nested launch of Reentrant
    switch (mode) {
    case Mode::Twice: {
        must(simToolDrain(l->agent));
        simExecResult r1, r2;
        must(simToolExecute(l, &r1));
        must(simToolExecute(l, &r2));
        if (r1.waves != r2.waves || r1.start_ns > r1.end_ns || r2.start_ns < r1.start_ns) ++g_errors;
        must(simToolComplete(l));
        if (simToolComplete(l) != simErrorAlreadyDone) ++g_errors;
        if (simToolEnqueue(l) != simErrorAlreadyDone) ++g_errors;
        break;
    }
    case Mode::Enqueue: must(simToolEnqueueWithCallback(l, done_cb, nullptr)); break;
    case Mode::Reentrant: {
        must(simToolDrain(l->agent));
        IncArgs inner = *static_cast<const IncArgs*>(l->args);
        must(simLaunchKernel(g_inner, simDim3{1, 1, 1}, simDim3{64, 1, 1}, 0, l->stream, &inner, sizeof inner));
        must(simToolDrain(l->agent));  // must not wait for this held launch
        must(simToolExecute(l, nullptr));
        must(simToolComplete(l));
        break;
    }
    case Mode::Hold: g_held = l; break;  // resolved later by the test, from another thread
    }
}

}  // namespace

int main() {
    simKernel_t inc = nullptr;
    simKernelAttrs attrs{};
    attrs.vgpr = 8;
    CHECK_OK(simRegisterKernel("_Z3incPi", inc_kernel, &attrs, &inc));
    CHECK_OK(simRegisterKernel("_Z5innerPi", inc_kernel, &attrs, &g_inner));
    CHECK_OK(simToolSetLaunchHook(hook, nullptr));

    int* counter = nullptr;
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&counter), sizeof(int)));
    CHECK_OK(simMemset(counter, 0, sizeof(int)));
    simStream_t s = nullptr;
    CHECK_OK(simStreamCreate(&s));
    IncArgs args{counter};
    const simDim3 one{1, 1, 1}, wave{64, 1, 1};

    // Executed twice, completed once.
    for (int i = 0; i < 10; ++i) CHECK_OK(simLaunchKernel(inc, one, wave, 0, s, &args, sizeof args));
    CHECK_OK(simStreamSynchronize(s));
    uint64_t done = 0;
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 10);
    int value = 0;
    CHECK_OK(simMemcpy(&value, counter, sizeof value));
    CHECK(value == 20);
    CHECK(g_hook_calls == 10);

    // Handed back to the asynchronous path, with the execution callback.
    g_mode = Mode::Enqueue;
    for (int i = 0; i < 5; ++i) CHECK_OK(simLaunchKernel(inc, simDim3{3, 1, 1}, wave, 0, s, &args, sizeof args));
    CHECK_OK(simStreamSynchronize(s));
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 15);
    CHECK(g_callback_calls == 5);
    CHECK(g_callback_waves == 15);
    CHECK_OK(simMemcpy(&value, counter, sizeof value));
    CHECK(value == 35);

    // A launch from inside the hook runs (nested hook call) without deadlock.
    g_mode = Mode::Reentrant;
    CHECK_OK(simLaunchKernel(inc, one, wave, 0, s, &args, sizeof args));
    CHECK_OK(simStreamSynchronize(s));
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 17);  // the outer and the nested launch
    CHECK_OK(simMemcpy(&value, counter, sizeof value));
    CHECK(value == 35 + 1 + 2);  // outer once, nested twice

    // A held launch holds its stream; other streams and drain go on.
    g_mode = Mode::Hold;
    CHECK_OK(simLaunchKernel(inc, one, wave, 0, s, &args, sizeof args));
    const simLaunch* held = g_held.load();
    CHECK(held != nullptr);
    g_mode = Mode::Enqueue;
    CHECK_OK(simLaunchKernel(inc, one, wave, 0, s, &args, sizeof args));  // queued behind the held one
    simStream_t other = nullptr;
    CHECK_OK(simStreamCreate(&other));
    CHECK_OK(simLaunchKernel(inc, one, wave, 0, other, &args, sizeof args));
    CHECK_OK(simStreamSynchronize(other));
    CHECK_OK(simToolDrain(0));
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 17);
    if (held) {
        std::thread resolver([held] { must(simToolExecute(held, nullptr)); must(simToolComplete(held)); });
        CHECK_OK(simStreamSynchronize(s));  // returns once the other thread completes the held launch
        resolver.join();
    }
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 19);

    // A held agent starts nothing: enqueued launches and async sets wait for the release.
    g_mode = Mode::Enqueue;
    CHECK_OK(simMemcpy(&value, counter, sizeof value));
    const int before = value;
    unsigned char* flag = nullptr;
    CHECK_OK(simMalloc(reinterpret_cast<void**>(&flag), 1));
    CHECK_OK(simMemset(flag, 5, 1));
    CHECK_OK(simToolHoldAgent(0));
    CHECK_OK(simLaunchKernel(inc, one, wave, 0, s, &args, sizeof args));
    CHECK_OK(simMemsetAsync(flag, 0, 1, other));
    CHECK_OK(simToolDrain(0));  // quiet although work is queued
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(*counter == before && *flag == 5);  // read directly: simMemcpy would wait for the held work
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 19);
    CHECK_OK(simToolHoldAgent(0));  // nests
    CHECK_OK(simToolReleaseAgent(0));
    CHECK(*counter == before && *flag == 5);
    CHECK_OK(simToolReleaseAgent(0));
    CHECK(simToolReleaseAgent(0) == simErrorInvalidValue);
    CHECK_OK(simStreamSynchronize(s));
    CHECK_OK(simStreamSynchronize(other));
    CHECK_OK(simStreamCompletedLaunches(s, &done));
    CHECK(done == 20);
    CHECK(*flag == 0);
    CHECK_OK(simMemcpy(&value, counter, sizeof value));
    CHECK(value == before + 1);

    // Synchronous sets and frees from another thread wait for a held agent's release, so that a
    // replay's snapshot and restores never overlap them (a restore would undo the set).
    CHECK_OK(simToolHoldAgent(0));
    std::atomic<bool> set_done{false}, freed{false};
    std::thread setter([&] { must(simMemset(flag, 9, 1)); set_done = true; });
    std::thread freer([&] { must(simFree(counter)); freed = true; });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK(!set_done && !freed && *flag == 0);
    simAllocationInfo still{};
    CHECK_OK(simToolFindAllocation(counter, &still));
    CHECK_OK(simToolReleaseAgent(0));
    setter.join();
    freer.join();
    CHECK(set_done && freed && *flag == 9);
    CHECK(simToolFindAllocation(counter, &still) == simErrorInvalidDevicePointer);
    counter = nullptr;
    CHECK_OK(simFree(flag));

    // Launches from four threads, each executed twice and completed once.
    g_mode = Mode::Twice;
    std::vector<std::thread> threads;
    std::vector<int*> counters(4, nullptr);
    for (int t = 0; t < 4; ++t) CHECK_OK(simMalloc(reinterpret_cast<void**>(&counters[t]), sizeof(int)));
    for (int t = 0; t < 4; ++t) CHECK_OK(simMemset(counters[t], 0, sizeof(int)));
    std::atomic<uint64_t> completions{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            simStream_t ts = nullptr;
            must(simStreamCreate(&ts));
            IncArgs a{counters[t]};
            for (int i = 0; i < 50; ++i) must(simLaunchKernel(inc, one, wave, 0, ts, &a, sizeof a));
            must(simStreamSynchronize(ts));
            uint64_t n = 0;
            must(simStreamCompletedLaunches(ts, &n));
            completions += n;
            must(simStreamDestroy(ts));
        });
    for (auto& t : threads) t.join();
    CHECK(completions == 200);
    for (int t = 0; t < 4; ++t) {
        CHECK_OK(simMemcpy(&value, counters[t], sizeof value));
        CHECK(value == 100);
        CHECK_OK(simFree(counters[t]));
    }

    CHECK(simToolComplete(nullptr) == simErrorInvalidHandle);
    CHECK_OK(simToolSetLaunchHook(nullptr, nullptr));
    CHECK(g_errors == 0);
    CHECK_OK(simStreamDestroy(s));
    CHECK_OK(simStreamDestroy(other));
    CHECK_OK(simFree(counter));
    return test_result("test_hook");
}
