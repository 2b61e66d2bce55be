// The CUDA device port. One logical dispatch is one intercepted launch API call; its first pass is
// the application's own launch (issued by the driver between the API's ENTER and EXIT callbacks),
// every further pass is our relaunch with the same arguments. See README.md, "Replay design".
#pragma once

#include "allocations.hpp"
#include "backup_plan.hpp"
#include "cache_flush.hpp"
#include "check.hpp"
#include "core.hpp"
#include "range_counters.hpp"
#include "reach.hpp"
#include "replay_service.hpp"

#include <atomic>
#include <memory>
#include <set>
#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::cuda {

// Per CUDA context: a private stream for copies, timing events, the backup buffers kept between
// dispatches, and the Range Profiler of the context.
// A pass of a window whose counters are decoded after the window's last pass.
struct PendingPass {
    core::PassRecord rec;
    const std::vector<core::PlanCounter>* group = nullptr;  // what the pass reports (null: no counters)
};

struct ContextState;

// A context's snapshot: the ranges it copied and where the copies are. One per context, reused by every
// dispatch (the context's backup holds one snapshot at a time).
class CudaSnapshot final : public replay::Snapshot {
public:
    ContextState* cs = nullptr;
    bool on_device = true;
    std::vector<SavedRange> saved;
};

struct ContextState {
    CUcontext ctx = nullptr;
    int ordinal = 0;
    uint64_t agent_id = 0;
    CUstream copy_stream = nullptr;
    CUevent ev_start = nullptr;
    CUevent ev_end = nullptr;
    CUdeviceptr device_backup = 0;
    size_t device_backup_size = 0;
    void* host_backup = nullptr;
    size_t host_backup_size = 0;
    bool backup_in_use = false;
    std::unique_ptr<RangeCounters> counters;
    // --cache-control all: prepared when the plan has counters on the device (README.md, "Cache control").
    CacheFlush flush;
    // What a snapshot copies: the allocations the launch can reach (reach.hpp), kept for capacity.
    ReachScanner reach;
    std::vector<char> reached;
    std::vector<Allocation> allocs;  // the tracked allocations a snapshot starts from
    CudaSnapshot snapshot;
    // The open window's passes and the buffers its decode fills, kept for their capacity.
    std::vector<PendingPass> pending;
    std::vector<const std::vector<core::PlanCounter>*> window_groups;
    std::vector<std::vector<core::CounterSample>> window_samples;
};

enum class LaunchApi { Kernel, KernelEx, Cooperative };

// One intercepted launch: the arguments to relaunch it, and where its first pass stands.
struct Launch {
    LaunchApi api = LaunchApi::Kernel;
    CUfunction f = nullptr;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
    CUstream stream = nullptr;  // effective stream (per-thread default stream made explicit)
    void** params = nullptr;
    void** extra = nullptr;
    // The kernel's parameter layout; null when the driver did not give it (the snapshot then copies
    // every tracked allocation).
    const std::vector<ParamSlot>* param_slots = nullptr;
    CUmodule module = nullptr;  // the kernel's module, null when the driver did not say
    const CUlaunchConfig* config = nullptr;
    ContextState* cs = nullptr;
    int agent_index = 0;

    // The application's own launch runs as the first pass; false once submit() consumed it.
    bool app_launch_pending = true;
    int64_t app_issue_ns = 0;
    // Snapshot taken at ENTER, before the app's launch; handed to the service by snapshot().
    replay::Snapshot* early_snapshot = nullptr;
    PortStatus early_snapshot_status = PortStatus::success();
    bool snapshot_planned = false;
    // The kernel's own time (ns) from the run with no counters armed (time_unprofiled), reported for every
    // pass; -1 when there was none (each pass then reports its own event time).
    int64_t kernel_ns = -1;
    // The snapshot the service holds for this dispatch (set when snapshot() hands it over): extra
    // hardware passes of a counter configuration restore from it before running the kernel again.
    replay::Snapshot* active_snapshot = nullptr;
    // One Range Profiler window holds consecutive passes of the dispatch that measure the same
    // configuration, one range each (README.md, "Counter windows"): passes up to window_end (not
    // included); decoded before the next pass that needs its own arm, or by complete().
    bool window = false;
    size_t window_end = 0;
};

class CudaPort final : public replay::DevicePort {
public:
    explicit CudaPort(AllocationTracker& tracker) : tracker_(tracker) {}

    replay::PortStatus drain(const replay::Dispatch& d) override;
    replay::PortStatus snapshot(const replay::Dispatch& d, replay::Snapshot** out) override;
    replay::PortStatus restore(const replay::Dispatch& d, replay::Snapshot& s) override;
    void release(replay::Snapshot* s) override;
    replay::PortStatus submit(const replay::Dispatch& d, uint64_t pass) override;
    void complete(const replay::Dispatch& d) override;

    // At the launch's ENTER: copies what the launch may change (the service's snapshot, taken early
    // because the app's own launch is pass 0).
    PortStatus take_snapshot(Launch& l, replay::Snapshot** out);
    // Arms pass 0's counters and timing around the app's own launch.
    void arm_app_launch(Launch& l);
    // With the snapshot taken at ENTER: runs the kernel once with no counters armed (the cache flushed
    // first under --cache-control all), timed by events, and restores the snapshot, so that the passes
    // report the kernel's own time instead of one that includes the Range Profiler's work around a range.
    // GOROCPROF_CUDA_UNPROFILED_TIME=0 turns it off.
    void time_unprofiled(Launch& l);

    // Shows a counter problem once (by call and reason); a permission error turns counters off for
    // the rest of the process and is fatal for its results.
    void report_counter_problem(const PortStatus& st);
    void report_note(const std::string& note);
    bool counters_usable() const { return !counters_off_; }
    // GOROCPROF_CACHE_CONTROL, read once at start-up.
    void set_cache_control(CacheControl c) { cache_control_ = c; }
    CacheControl cache_control() const { return cache_control_; }

    // Records the pass's start event on `stream`; a failure is told once.
    void record_start(ContextState& cs, CUstream stream);

private:
    PortStatus relaunch(const Launch& l);
    // Empties the L2 on the launch's stream when the context flushes (after the pass's counters are armed,
    // before its start event): the next kernel is the pass's.
    void flush_caches(const Launch& l);
    // Runs the kernel again (restoring first) while CUPTI says the configuration has hardware passes
    // left, `runs` times per hardware pass (a window's passes); then the counters can be decoded.
    void finish_hardware_passes(const replay::Dispatch& d, Launch& l, size_t runs = 1);
    // The counters of the pass that just ran; empty when `expected` differs from what was armed.
    void collect_counters(ContextState& cs, const Group* expected, std::vector<core::CounterSample>* out);
    // Arms `group` for `pass` (with a window when may_window and the passes after it share its
    // configuration) and reports what the arm says.
    void arm_counters(Launch& l, const Group* group, uint64_t pass, bool may_window);
    // Opens a window at `pass` when it and the passes after it can share one (GOROCPROF_CUDA_WINDOW=0
    // turns windows off); returns the ranges to arm for: the window's passes and a spare, or 1.
    size_t open_window(Launch& l, uint64_t pass);
    // The allocations a snapshot of this launch copies: the reachable ones, or all when that cannot
    // be worked out (or when the process has managed memory: `managed`).
    void snapshot_set(Launch& l, std::vector<Allocation>* allocs, bool managed);
    // Ends the launch's window: decodes it and writes its passes' records, in pass order.
    void flush_window(Launch& l);

    AllocationTracker& tracker_;
    std::atomic<bool> counters_off_{false};
    CacheControl cache_control_ = CacheControl::All;
    std::atomic<bool> windows_off_{false};  // a window decoded other than expected: one range per pass from then on
    std::atomic<bool> reach_off_{false};    // a reach scan failed: snapshots copy every tracked allocation
    std::mutex notes_mu_;
    std::set<std::string> notes_;
};

}  // namespace gorocprof::cuda
