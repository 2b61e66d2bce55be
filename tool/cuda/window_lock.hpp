// Other threads' memory calls during a replay window. A replayed dispatch holds its device's window
// lock from its ENTER to its last pass (dispatch_path.hpp); another host thread's copy, memset, free or
// unmap takes the same lock from its call's ENTER to its EXIT, so it lands before the snapshot or after the
// last pass, never between two passes (where a restore would revert it, or write memory it freed). An
// asynchronous call waits too: its work is queued only once the window is closed.
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

namespace gorocprof::cuda {

enum class MemoryCall { None, Sync, Async };

// What `cbid` is: a synchronous or asynchronous memory call that waits for the window, or none.
MemoryCall memory_call(CUpti_CallbackId cbid);
// Every memory call memory_call() names, for subscribing their callbacks.
extern const CUpti_CallbackId kMemoryCallIds[];
extern const size_t kMemoryCallIdCount;

// One lock per device: the replay window.
class DeviceWindows {
public:
    // Once, when the agents are known. Before it no call waits (no dispatch can be open yet).
    void reset(int devices);
    // Waits until no window of `ordinal` is open, then holds it; a lock that owns nothing for a device
    // out of range.
    std::unique_lock<std::mutex> hold(int ordinal);
    int devices() const { return n_.load(std::memory_order_acquire); }

private:
    std::unique_ptr<std::mutex[]> mu_;
    std::atomic<int> n_{0};
};

// One thread's memory call: the window of its device held from the outermost call's ENTER to its EXIT
// (a call the driver makes inside another one is already covered).
class MemoryCallHold {
public:
    void enter(DeviceWindows& windows, int ordinal) {
        if (depth_++ == 0) lock_ = windows.hold(ordinal);
    }
    void exit() {
        if (depth_ > 0 && --depth_ == 0 && lock_.owns_lock()) lock_.unlock();
    }
    bool holding() const { return lock_.owns_lock(); }

private:
    int depth_ = 0;
    std::unique_lock<std::mutex> lock_;
};

}  // namespace gorocprof::cuda
