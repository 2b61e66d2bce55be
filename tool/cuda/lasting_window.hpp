// A counter window that outlasts its dispatches (README.md, "Windows across dispatches"): one Range
// Profiler Start/Stop holds the passes of many consecutive dispatches that are not replayed (one auto range
// each, after the cache flush's range when the context flushes), and their records are written when the
// window is decoded. It closes at its capacity, before any dispatch that does not join it (a replayed one,
// whose reach scan, snapshot and timing run would launch the tool's kernels into it), before any other
// work of the application on the device or any point where the application can observe device results
// (launches.cpp names them), when its context ends and at exit. A crash loses the open window's records.
#pragma once

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
};

// What decides whether a dispatch may join (or open) a lasting window.
struct JoinFacts {
    bool windows = false;    // windows on (GOROCPROF_CUDA_WINDOW), a capacity above 0, none decoded wrong
    bool counters = false;   // counters usable in the process, and the context has a Range Profiler
    bool steady = false;     // every pass of every dispatch measures one configuration (RangeCounters::steady)
    bool replayed = false;   // the dispatch will be replayed (reach scan, snapshot, timing run, reruns)
    bool app_launch = false; // the application's own launch (not a graph node the tool runs)
    bool unwatched = false;  // runs once with no counters and is not waited for
};
// True when the dispatch's only kernels inside the window are its own launch (and its cache flush).
bool may_last(const JoinFacts& f);

class LastingWindow {
public:
    // Writes one dispatch: its facts, its passes [first, first + count) of `passes`, its outcome.
    using Writer = std::function<void(const core::DispatchFacts& facts, std::vector<PendingPass>& passes, size_t first,
                                      size_t count, const replay::Outcome& outcome)>;

    // Dispatches a window holds at most (0: no lasting windows).
    void set_capacity(size_t dispatches) { capacity_ = dispatches; }
    size_t capacity() const { return capacity_; }
    bool open() const { return open_; }
    // Passes a new window is armed for: its capacity and one spare, so that a kernel that is no pass's shows
    // as a range too many instead of shifting every later pass's values.
    size_t ranges() const { return capacity_ + 1; }
    bool full() const { return slots_.size() >= capacity_; }
    size_t dispatches() const { return slots_.size(); }
    // The window was armed (RangeCounters::arm with ranges()).
    void opened() { open_ = true; }
    // The pass of the dispatch in flight, in launch order.
    void add_pass(core::PassRecord&& rec, const Group* group);
    // A pass's share of ranges that no pass owns (its launch ran but its wait failed; or, as the window's
    // last, the flush queued for a launch that then failed): decoded, not written.
    void add_hole();
    // The dispatch in flight is done: its passes are written with these facts when the window is decoded.
    void end_dispatch(const core::DispatchFacts& facts, const replay::Outcome& outcome);
    // Decodes the window (each pass reads its own range, as its own group), writes every ended dispatch in
    // order and forgets them. A window that decoded another number of ranges than it ran passes writes them
    // with empty counters and returns the failure (the caller turns windows off). No-op when not open.
    PortStatus close(RangeCounters& rc, const Writer& write);

private:
    struct Slot {
        core::DispatchFacts facts;
        replay::Outcome outcome;
        size_t first = 0, count = 0;
    };
    bool open_ = false;
    size_t capacity_ = 0;
    size_t first_ = 0;  // the first pass of the dispatch in flight
    std::vector<PendingPass> passes_;
    std::vector<Slot> slots_;
    std::vector<const Group*> groups_;
    std::vector<std::vector<core::CounterSample>> samples_;
};

}  // namespace gorocprof::cuda
