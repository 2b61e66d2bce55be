// The CUDA device port. One logical dispatch is one intercepted launch API call; its first pass is
// the application's own launch (issued by the driver between the API's ENTER and EXIT callbacks),
// every further pass is our relaunch with the same arguments. See README.md, "Replay design".
#pragma once

#include "allocations.hpp"
#include "backup_plan.hpp"
#include "cache_flush.hpp"
#include "check.hpp"
#include "core.hpp"
#include "graph_walk.hpp"
#include "lasting_window.hpp"
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

struct ContextState;

// A context's snapshot: the ranges it copied and where the copies are. One per context, reused by every
// dispatch (the context's backup holds one snapshot at a time).
class CudaSnapshot final : public replay::Snapshot {
public:
    ContextState* cs = nullptr;
    bool on_device = true;
    std::vector<SavedRange> saved;
    // False for the snapshot of a union-runs dispatch that runs nothing again itself (Launch::no_copies): it
    // copies nothing and holds no backup.
    bool copies = true;
};

enum class LaunchApi { Kernel, KernelEx, Cooperative };

// A launch copied so that it can run again after its API call returned (the further hardware passes of a
// window across dispatches, README.md "One run per hardware pass"): its arguments' bytes, laid out by the
// kernel's parameter slots, and for cuLaunchKernelEx its configuration and attributes.
struct SavedLaunch {
    LaunchApi api = LaunchApi::Kernel;
    CUfunction f = nullptr;
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
    std::vector<uint8_t> args;
    std::vector<size_t> offsets;  // of each argument in args
    CUlaunchConfig config{};
    std::vector<CUlaunchAttribute> attrs;
};

// Per CUDA context: a private stream for copies, timing events, the backup buffers kept between
// dispatches, and the Range Profiler of the context.
struct ContextState {
    CUcontext ctx = nullptr;
    int ordinal = 0;
    uint64_t agent_id = 0;
    CUstream copy_stream = nullptr;
    CUevent ev_start = nullptr;
    CUevent ev_end = nullptr;
    // The timeout guard (README.md, "Timeout guard"): a run that did not complete within its bound stays
    // queued; ev_unfinished is recorded after it, and until it completes nothing of this context is waited
    // for (its dispatches run once, unwatched). `unfinished` names the kernel; empty when none is pending.
    CUevent ev_unfinished = nullptr;
    std::string unfinished;
    // Recorded after each communication kernel's launch (comm_pending until it is seen complete): in a process
    // driving several devices, no dispatch of this context is waited for while one is in flight.
    CUevent ev_comm = nullptr;
    bool comm_pending = false;
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
    // The window that holds dispatches which are not replayed, across dispatches (lasting_window.hpp). Touched
    // only by a thread that holds the device's window lock.
    LastingWindow lasting;
    // A lasting window of several hardware passes: its launches in order (entries past lasting_runs_used are
    // kept for their capacity), and the tracked allocations its snapshot (`snapshot`, held until it closes)
    // copied, which a dispatch must find unchanged to join it.
    std::vector<SavedLaunch> lasting_runs;
    size_t lasting_runs_used = 0;
    std::vector<Allocation> lasting_allocs;
    bool lasting_snapshot = false;
    std::vector<void*> rerun_params;  // the argument pointers of the launch being run again
    // Union runs outside a lasting window: the union's values of the dispatch in flight, for all its passes.
    std::vector<core::CounterSample> shared_samples;
};

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
    const char* kernel_name = "";  // mangled, for the timeout guard's message
    const CUlaunchConfig* config = nullptr;
    ContextState* cs = nullptr;
    int agent_index = 0;

    // Why this dispatch runs once and is never waited for (a communication kernel, or a context with an
    // unfinished run): no drain, snapshot, counters or wait. Empty for every other dispatch.
    std::string unwatched;
    bool communication = false;  // unwatched because it is a communication kernel
    // The timeout guard gave up on this dispatch's run: its counters are abandoned, not collected.
    bool timed_out = false;

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
    // --graph-profiling graph: the graph launch this dispatch is (null for a kernel launch). Every pass runs all
    // of its steps (relaunch), its counters are its graph_kernels kernels combined, and its snapshot starts
    // from every kernel's arguments and what the memsets and copies write (README.md, "Graphs as one workload").
    const std::vector<GraphStep>* graph = nullptr;
    size_t graph_kernels = 0;
    std::vector<KernelReach> graph_reach;
    std::vector<CUdeviceptr> graph_writes;
    // The dispatch's passes are ranges of its context's lasting window: their records are written when that
    // window is decoded (CudaPort::end_lasting instead of the core's dispatch frame now).
    bool lasting = false;
    // Decided at ENTER (may_join_lasting): the dispatch joins the lasting window (a replayed one then has no
    // timing run and no reach scan).
    bool lasting_planned = false;
    // may_join_lasting listed the context's tracked allocations for a replayed dispatch (into cs->allocs,
    // with whether the process has managed memory): take_snapshot uses that list.
    bool allocs_listed = false;
    bool managed = false;
    // Union runs (RangeCounters::union_runs): the dispatch runs its kernel once per hardware pass of the
    // union (`hw_passes`), its first pass's run in the first; every further replay pass runs nothing and reads
    // its own group from those runs (ContextState::shared_samples or its lasting window's range;
    // `shared_start_ns`/`shared_end_ns`: the first pass's times). `no_copies` is the snapshot handed to the service when the dispatch needs none
    // (one hardware pass, or a window across dispatches that holds the snapshot).
    bool shared = false;
    size_t hw_passes = 0;
    CudaSnapshot no_copies;
    int64_t shared_start_ns = 0, shared_end_ns = 0;
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

    // A context whose unfinished run (timeout guard) has completed since: its counters are discarded and it
    // is watched again. False while the run is still in flight.
    bool recovered(ContextState& cs);

    // Shows a counter problem once (by call and reason); a permission error turns counters off for
    // the rest of the process and is fatal for its results.
    void report_counter_problem(const PortStatus& st);
    void report_note(const std::string& note);
    // A warning, once, when the context's counter availability could not be kept between processes.
    void report_availability_problem(RangeCounters& counters);
    bool counters_usable() const { return !counters_off_; }
    // GOROCPROF_CACHE_CONTROL, read once at start-up.
    void set_cache_control(CacheControl c) { cache_control_ = c; }
    CacheControl cache_control() const { return cache_control_; }

    // Decodes the context's lasting window, if one is open, and writes its dispatches' records. The caller
    // holds the device's window lock. A window that decoded wrong turns windows off.
    void close_lasting(ContextState& cs);
    // Whether a dispatch may join its context's lasting window (lasting_window.hpp, may_last), kept in
    // l.lasting_planned: `watched` when it is not run once unwatched, `replayed` when its passes are replayed.
    // One that may not closes the open window at its ENTER, before its own work reaches the device.
    bool may_join_lasting(Launch& l, bool watched, bool replayed);
    // The application's launch failed (nothing ran): the counters armed for it are stopped, or its window
    // keeps the range of the flush queued before it.
    void launch_failed(Launch& l);
    // After the service ran a dispatch of a lasting window: its records wait for the window's decode.
    void end_lasting(Launch& l, const core::DispatchFacts& facts, const replay::Outcome& outcome);

    // At ENTER of a union-runs dispatch of several hardware passes that joins a lasting window (after the
    // drain): when it does not fit the open one, closes it and saves the context's memory for the next one
    // (its further hardware passes run from there). False when that failed: the dispatch takes its own
    // snapshot instead, outside any lasting window.
    bool prepare_lasting(Launch& l);
    // Union runs: whether this launch's dispatch runs its kernel once per hardware pass of the union (sets
    // l.shared and l.hw_passes). Kernel launches and graph kernel nodes, not whole-graph dispatches.
    void plan_shared(Launch& l);

    // Records the pass's start event on `stream`; a failure is told once.
    void record_start(ContextState& cs, CUstream stream);

private:
    PortStatus relaunch(const Launch& l);
    // relaunch for a pass that counters measure: a graph dispatch's run inside its user range when it has one
    // (GOROCPROF_CUDA_GRAPH_RANGE=user).
    PortStatus relaunch_measured(const Launch& l);
    // Waits for the pass (or timing run) that ends with cs.ev_end within the timeout guard's bound. On a
    // timeout: the run is left queued, the context marked unfinished, the window's passes recorded with empty
    // counters, and a failure naming the kernel and the bound returned.
    PortStatus wait_for_run(Launch& l, uint64_t pass, bool timing);
    // The timing run timed out: its restore is queued behind it, the dispatch runs once, unwatched.
    void abandon_timing_run(Launch& l, const PortStatus& why);
    // Queues the snapshot's copies back on `stream` (restore() waits for them on the copy stream).
    PortStatus queue_restore(CudaSnapshot& snap, CUstream stream);
    // The single run of an unwatched dispatch: the application's launch (or the graph node's one launch),
    // recorded without waiting for it.
    PortStatus submit_unwatched(Launch& l, const Group* group, core::PassRecord&& rec);
    // Empties the L2 on the launch's stream when the context flushes (after the pass's counters are armed,
    // before its start event): the next kernel is the pass's.
    void flush_caches(const Launch& l);
    // Runs the kernel again (restoring first) while CUPTI says the configuration has hardware passes
    // left, once per hardware pass, or per pass of `window` (its passes' groups) that the hardware pass
    // needs (RangeCounters::session_runs); then the counters can be decoded.
    void finish_hardware_passes(const replay::Dispatch& d, Launch& l, const std::vector<const Group*>* window = nullptr);
    // What a pass that ran leaves (cuda_port_counters.cpp): its record pending in its window (lasting or the
    // dispatch's; a union-sessions window's further hardware passes run after its last pass), or its counters
    // collected and the record written.
    replay::PortStatus finish_pass(const replay::Dispatch& d, Launch& l, uint64_t pass, const Group* group,
                                   core::PassRecord&& rec);
    // The counters of the pass that just ran; empty when `expected` differs from what was armed.
    void collect_counters(ContextState& cs, const Group* expected, std::vector<core::CounterSample>* out);
    // Arms `group` for `pass` (with a window when may_window and the passes after it share its
    // configuration) and reports what the arm says. True when it queued the pass's cache flush itself,
    // before the Start (RangeCounters::flush_may_lead); else the caller flushes after it.
    bool arm_counters(Launch& l, const Group* group, uint64_t pass, bool may_window);
    // Arms pass 0 of a dispatch that is not replayed in the context's lasting window (opening one when none
    // is open or it is full): false when the dispatch does not join one (it then arms its own range).
    bool join_lasting(Launch& l, const Group* group);
    // Whether the launch's pass(es) fit the context's open lasting window (room, the same kind of window, and
    // for one of several hardware passes the memory its snapshot copied).
    bool joins_open_lasting(Launch& l);
    // The window snapshot's backup is free again, the saved launches forgotten.
    void release_lasting_snapshot(ContextState& cs);
    // Whether a snapshot of this launch copies every tracked allocation whatever its size (no reach scan).
    bool copies_all(const Launch& l) const;
    // Opens a window at `pass` when it and the passes after it can share one (GOROCPROF_CUDA_WINDOW=0
    // turns windows off); returns the ranges to arm for: the window's passes and a spare, or 1.
    size_t open_window(Launch& l, uint64_t pass);
    // The allocations a snapshot of this launch copies: the reachable ones, or all when that cannot
    // be worked out (or when the process has managed memory: l.managed), or all of a small footprint when
    // the launch joins a window across dispatches (snapshot_scans).
    void snapshot_set(Launch& l, std::vector<Allocation>* allocs);
    // Ends the launch's window: decodes it and writes its passes' records, in pass order.
    void flush_window(Launch& l);
    // Union runs: arms the dispatch's one range of the union (its first pass), the flush before the Start where
    // it may lead; true when it queued the flush itself.
    bool arm_shared(Launch& l);
    // Union runs: a replay pass after the first, which runs nothing: its record, with the first pass's times
    // and its own group's counters from the dispatch's runs (or its window's range, decoded later).
    replay::PortStatus submit_shared(Launch& l, const Group* group, core::PassRecord&& rec);
    // Union runs, outside a window across dispatches: after the first pass's run, the further hardware passes
    // (restored, run again) and the union's values kept for every pass.
    void finish_shared(const replay::Dispatch& d, Launch& l, core::PassRecord* rec);
    // Copies the launch into the context's lasting window's launches; false when it cannot be run again
    // after its call returned (arguments whose layout is unknown, or passed through `extra`).
    bool save_launch(const Launch& l);
    // Whether save_launch would succeed.
    static bool savable(const Launch& l);
    // Runs a saved launch on the context's copy stream.
    PortStatus rerun_saved(ContextState& cs, SavedLaunch& s);
    // A lasting window's further hardware pass: memory back to the window's snapshot, every launch again.
    PortStatus rerun_window(ContextState& cs);
    // Tells the user once that each dispatch runs its kernel once per hardware pass of the union.
    void report_union_runs(size_t hw_passes);
    // Puts the snapshot's memory back and waits (restore() without the union-runs dispatch's no-op).
    PortStatus restore_snapshot(CudaSnapshot& snap);

    AllocationTracker& tracker_;
    std::atomic<bool> counters_off_{false};
    CacheControl cache_control_ = CacheControl::All;
    std::atomic<bool> windows_off_{false};  // a window decoded other than expected: one range per pass from then on
    std::atomic<bool> reach_off_{false};    // a reach scan failed: snapshots copy every tracked allocation
    std::mutex notes_mu_;
    std::set<std::string> notes_;
};

}  // namespace gorocprof::cuda
