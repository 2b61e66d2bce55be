// Host-side tests of the replay window's hold on other threads' memory calls (window_lock.*): which calls
// wait, that a call of another thread waits for an open window of its device and only of its device, and
// that a call the driver makes inside another one does not wait for itself.
#include "../testkit/check.hpp"

#include "window_lock.hpp"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

using gorocprof::cuda::DeviceWindows;
using gorocprof::cuda::memory_call;
using gorocprof::cuda::MemoryCall;
using gorocprof::cuda::MemoryCallHold;

namespace {

// True once `flag` is set, waiting at most `ms`.
bool becomes_true(const std::atomic<bool>& flag, int ms) {
    for (int i = 0; i < ms && !flag.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return flag.load();
}

}  // namespace

TEST_CASE(memory_calls_of_other_threads_are_named_sync_or_async) {
    struct Row {
        CUpti_CallbackId id;
        const char* name;
        MemoryCall want;
    } rows[] = {
        {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", MemoryCall::Sync},
        {CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, "cuMemcpyDtoH_v2_ptds", MemoryCall::Sync},
        {CUPTI_DRIVER_TRACE_CBID_cuMemcpy, "cuMemcpy", MemoryCall::Sync},
        {CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, "cuMemsetD32_v2", MemoryCall::Sync},
        {CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", MemoryCall::Sync},
        {CUPTI_DRIVER_TRACE_CBID_cuMemUnmap, "cuMemUnmap", MemoryCall::Sync},
        {CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2", MemoryCall::Async},
        {CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, "cuMemcpyAsync_ptsz", MemoryCall::Async},
        {CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, "cuMemsetD8Async", MemoryCall::Async},
        {CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, "cuMemFreeAsync", MemoryCall::Async},
        {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", MemoryCall::None},
    };
    for (const Row& r : rows)
        if (memory_call(r.id) != r.want) check::fail(__FILE__, __LINE__, std::string(r.name) + ": wrong kind");
    size_t listed = 0;
    for (size_t i = 0; i < gorocprof::cuda::kMemoryCallIdCount; ++i)
        if (memory_call(gorocprof::cuda::kMemoryCallIds[i]) != MemoryCall::None) ++listed;
    CHECK_EQ(listed, gorocprof::cuda::kMemoryCallIdCount);  // every subscribed id is one that waits
}

TEST_CASE(memory_call_of_another_thread_waits_for_the_window_of_its_device) {
    DeviceWindows windows;
    windows.reset(2);
    auto window = windows.hold(0);  // a dispatch of device 0 between its ENTER and its last pass
    CHECK(window.owns_lock());

    std::atomic<bool> copied{false};
    std::thread copier([&] {
        MemoryCallHold call;
        call.enter(windows, 0);
        copied = true;
        call.exit();
    });
    CHECK(!becomes_true(copied, 50));  // held back while the window is open

    std::atomic<bool> other_device{false};
    std::thread elsewhere([&] {
        MemoryCallHold call;
        call.enter(windows, 1);
        other_device = true;
        call.exit();
    });
    CHECK(becomes_true(other_device, 2000));  // another device's window is not this one
    elsewhere.join();

    window.unlock();  // the window closes: the copy goes ahead
    CHECK(becomes_true(copied, 2000));
    copier.join();
}

TEST_CASE(window_waits_for_a_memory_call_in_flight) {
    DeviceWindows windows;
    windows.reset(1);
    MemoryCallHold call;
    call.enter(windows, 0);  // another thread's cuMemcpy between its ENTER and EXIT
    call.enter(windows, 0);  // a call the driver makes inside it: no second wait on the same lock
    CHECK(call.holding());
    std::atomic<bool> opened{false};
    std::thread launcher([&] {
        auto window = windows.hold(0);
        opened = true;
    });
    CHECK(!becomes_true(opened, 50));
    call.exit();
    CHECK(call.holding());  // the outer call is still in flight
    CHECK(!becomes_true(opened, 20));
    call.exit();
    CHECK(!call.holding());
    CHECK(becomes_true(opened, 2000));
    launcher.join();
}

TEST_CASE(memory_calls_before_the_agents_are_known_do_not_wait) {
    DeviceWindows windows;  // no reset yet: no dispatch can be open
    MemoryCallHold call;
    call.enter(windows, 0);
    CHECK(!call.holding());
    call.exit();
    windows.reset(1);
    call.enter(windows, 3);  // a device the tool does not know
    CHECK(!call.holding());
    call.exit();
}

int main(int argc, char** argv) { return check::run(argc, argv, check::Options{}); }
