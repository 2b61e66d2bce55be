// The device port: the only thing the vendor-neutral replay service needs from a GPU backend.
// A backend (sim, cuda, later rocm) implements it once per agent; the service drives it.
#pragma once

#include <gorocprof/kernel_replay.h>

#include <cstdint>
#include <string>

namespace gorocprof::replay {

// Result of a port call. `ok == false` carries the name of the failing call and the reason,
// e.g. {"cuMemcpyDtoD", "CUDA_ERROR_OUT_OF_MEMORY: out of memory"}.
struct PortStatus {
    bool ok = true;
    std::string call;
    std::string reason;

    static PortStatus success() { return {}; }
    static PortStatus failure(std::string call, std::string reason) {
        return PortStatus{false, std::move(call), std::move(reason)};
    }
    std::string message() const { return ok ? std::string("success") : call + ": " + reason; }
};

// One logical dispatch as the backend intercepted it. `backend_dispatch` points at the backend's own
// description (launch parameters, stream, completion signal); the service never looks inside.
struct Dispatch {
    gorocprof_kernel_dispatch_info_t info{};  // dispatch_id is filled by the service before CONFIG
    gorocprof_correlation_id_t correlation{};
    void* backend_dispatch = nullptr;
};

// Backend-owned snapshot of everything a pass may change (device allocations, module-scope variables).
class Snapshot {
public:
    virtual ~Snapshot() = default;
};

class DevicePort {
public:
    virtual ~DevicePort() = default;

    // Waits until the agent has finished all work submitted before this dispatch, so that the snapshot
    // sees the memory the dispatch would see.
    virtual PortStatus drain(const Dispatch& d) = 0;

    // Captures what pass 0 may change. May decline by returning failure (no room, copy failure): the
    // service then runs the dispatch once and reports the decline. On success *out is owned by the
    // service until release().
    virtual PortStatus snapshot(const Dispatch& d, Snapshot** out) = 0;

    // Puts memory back as it was at snapshot time. Skips memory freed since, and never writes an
    // address whose allocation was freed and reused. Failure is fatal for the process's results.
    virtual PortStatus restore(const Dispatch& d, Snapshot& s) = 0;

    virtual void release(Snapshot* s) = 0;

    // Executes the dispatch once, synchronously: when it returns, the pass's kernel has finished and
    // its counters (if any were armed by a service) are read. `pass` is the 0-based pass index, or
    // UINT64_MAX for the single run of a dispatch that is not replayed. Must not signal the app's
    // completion.
    virtual PortStatus submit(const Dispatch& d, uint64_t pass) = 0;

    // Delivers the application's completion for the dispatch, exactly once, after the loop.
    virtual void complete(const Dispatch& d) = 0;
};

}  // namespace gorocprof::replay
