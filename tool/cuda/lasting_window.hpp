// A counter window that outlasts its dispatches (README.md, "Windows across dispatches"): one Range
// Profiler Start/Stop holds the passes of many consecutive dispatches (one auto range each, after the cache
// flush's range when the context flushes), and their records are written when the window is decoded. A
// replayed dispatch joins only when no kernel of the tool but its flushes and relaunches would run inside
// it: its durations come from the configuration (RangeCounters::timed, no timing run) and its snapshot
// runs no reach scan (snapshot_scans). It closes at its capacity, before any dispatch that does not join
// it, before any other work of the application on the device or any point where the application can
// observe device results (launches.cpp names them), when its context ends and at exit. A crash loses the
// open window's records.
#pragma once

#include "allocations.hpp"
#include "core.hpp"
#include "range_counters.hpp"
#include "replay_service.hpp"

#include <cstddef>
#include <functional>
#include <vector>

namespace gorocprof::cuda {

// A pass whose counters are decoded after its window's last pass.
struct PendingPass {
    core::PassRecord rec;
    const Group* group = nullptr;  // what the pass reports (null: no counters)
    // The window's range the pass reads (its own, or its dispatch's first pass's under union runs).
    size_t range = 0;
};

// What decides whether a dispatch may join (or open) a lasting window.
struct JoinFacts {
    bool windows = false;    // windows on (GOROCPROF_CUDA_WINDOW), a capacity above 0, none decoded wrong
    bool counters = false;   // counters usable in the process, and the context has a Range Profiler
    bool steady = false;     // every pass of every dispatch measures one configuration (RangeCounters::steady)
    bool replayed = false;   // the dispatch will be replayed (snapshot, restores, relaunches)
    bool app_launch = false; // the application's own launch (not a graph node the tool runs)
    bool unwatched = false;  // runs once with no counters and is not waited for
    size_t passes = 1;       // the dispatch's ranges in the window: its passes, or 1 under union runs
    size_t capacity = 0;     // the passes a window holds (GOROCPROF_CUDA_WINDOW_DISPATCHES)
    // The hardware passes of the configuration every pass measures (RangeCounters::steady_passes: 0 when
    // passes measure different ones; above 1 only under union runs).
    size_t hw_passes = 1;
    // Union runs (RangeCounters::union_runs): the dispatch's passes read its launch's one range.
    bool shared = false;
    // The launch can be run again when the window closes (its arguments copied: save_launch).
    bool savable = false;
    // Replayed dispatches only:
    bool replayed_may = false;  // GOROCPROF_CUDA_LASTING_REPLAYED (on by default)
    bool timed = false;         // every range gives its kernel's duration (RangeCounters::timed): no timing run
    bool scan = false;          // its snapshot would run the reach scan (snapshot_scans)
};
// True when the dispatch's only kernels inside the window are its own launch and relaunches (and their cache
// flushes): never the tool's reach scan or timing run. A window of a configuration of several hardware
// passes runs its launches again once per further hardware pass when it closes, from a snapshot of the
// context's memory taken when it opened: it holds only union-runs dispatches whose launches were copied and
// whose context's allocations are copied whole (no reach scan).
bool may_last(const JoinFacts& f);

// Below these a replayed dispatch's snapshot inside a window across dispatches copies every tracked
// allocation of its context instead of scanning for what the launch can reach: the copies (the snapshot and
// a restore per further pass, each a copy-engine call of microseconds per MiB) then cost less than the
// window the scan kernel would close (a Start and a decode, milliseconds; docs/perf.md, attempt 16).
constexpr size_t kCopyAllBytes = size_t(64) << 20;
constexpr size_t kCopyAllAllocations = 16;
// Whether a snapshot of `allocs` (the context's tracked allocations) runs the reach scan: not when it copies
// all of them anyway (`copy_all`: GOROCPROF_CUDA_RESTORE=all, managed memory, arguments the tool cannot
// read, a scan that failed before), when there is nothing to scan, or, for a dispatch that joins a window
// across dispatches (`lasting`), when they are within kCopyAllBytes and kCopyAllAllocations.
bool snapshot_scans(const std::vector<Allocation>& allocs, bool copy_all, bool lasting);

class LastingWindow {
public:
    // Writes one dispatch: its facts, its passes [first, first + count) of `passes`, its outcome.
    using Writer = std::function<void(const core::DispatchFacts& facts, std::vector<PendingPass>& passes, size_t first,
                                      size_t count, const replay::Outcome& outcome)>;

    // Passes a window holds at most (0: no lasting windows).
    void set_capacity(size_t passes) { capacity_ = passes; }
    size_t capacity() const { return capacity_; }
    bool open() const { return open_; }
    // Passes a new window is armed for: its capacity and one spare, so that a kernel that is no pass's shows
    // as a range too many instead of shifting every later pass's values.
    size_t ranges() const { return capacity_ + 1; }
    // Whether a dispatch of `passes` ranges still fits the open window.
    bool room(size_t passes) const { return ranges_ + passes <= capacity_; }
    // Ranges the window's dispatches ran so far (one per pass, one per dispatch under union runs).
    size_t ranges_used() const { return ranges_; }
    size_t dispatches() const { return slots_.size(); }
    // The window was armed (RangeCounters::arm with ranges()).
    void opened() { open_ = true; }
    // The pass of the dispatch in flight, in launch order: its own range.
    void add_pass(core::PassRecord&& rec, const Group* group);
    // A further pass of the dispatch in flight under union runs: it ran nothing and reads the range of the
    // dispatch's first pass (add_pass before it).
    void add_shared_pass(core::PassRecord&& rec, const Group* group);
    // The window's configuration has several hardware passes: close() runs its launches again (`Rerun`), so a
    // range no launch owns (add_hole) cannot be run again and spoils the window.
    void set_reruns(bool on) { reruns_ = on; }
    bool reruns() const { return reruns_; }
    // A pass's share of ranges that no pass owns (its launch ran but its wait failed; or, as the window's
    // last, the flush queued for a launch that then failed): decoded, not written.
    void add_hole();
    // The dispatch in flight is done: its passes are written with these facts when the window is decoded.
    void end_dispatch(const core::DispatchFacts& facts, const replay::Outcome& outcome);
    // A relaunch of the tool failed inside the window, after its flush may have been queued: ranges and passes
    // may no longer line up, so close() decodes nothing into the passes (they are written empty) and fails.
    void spoil() { spoiled_ = true; }
    // A run the timeout guard gave up on is still queued inside the window: stopping the profiler would wait
    // for it, so close() leaves RangeCounters alone (the caller discards the counters once the run completes)
    // and writes the passes with empty counters.
    void abandon() { abandoned_ = true; }
    // Decodes the window (each pass reads its own range, as its own group, and lasts its range's
    // kDurationMetric when the configuration is timed), writes every ended dispatch in order and forgets
    // them. A window that decoded another number of ranges than it ran passes, or was spoiled, writes them
    // with empty counters and returns the failure (the caller turns windows off). No-op when not open.
    // `rerun(session)`, for a window of several hardware passes (set_reruns): memory back to the window's
    // start, then every launch of the window again, in order, each after its cache flush (session 1, 2, ...);
    // run by RangeCounters::finish_sessions before the decode, not for a spoiled or abandoned window.
    using Rerun = std::function<PortStatus(size_t session)>;
    PortStatus close(RangeCounters& rc, const Writer& write, const Rerun& rerun = nullptr);

private:
    struct Slot {
        core::DispatchFacts facts;
        replay::Outcome outcome;
        size_t first = 0, count = 0;
    };
    bool open_ = false;
    bool spoiled_ = false, abandoned_ = false, reruns_ = false;
    size_t capacity_ = 0;
    size_t ranges_ = 0;  // ranges the window's passes ran
    size_t first_ = 0;  // the first pass of the dispatch in flight
    std::vector<PendingPass> passes_;
    std::vector<Slot> slots_;
    std::vector<const Group*> groups_;
    std::vector<std::vector<core::CounterSample>> samples_;
    std::vector<double> durations_;
};

}  // namespace gorocprof::cuda
