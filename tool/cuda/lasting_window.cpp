#include "lasting_window.hpp"

#include <string>
#include <utility>

namespace gorocprof::cuda {

bool may_last(const JoinFacts& f) {
    if (!(f.windows && f.counters && f.steady && f.app_launch && !f.unwatched)) return false;
    if (f.passes == 0 || f.passes > f.capacity || f.hw_passes == 0) return false;
    // Its launch's further hardware passes run when the window closes, from the window's snapshot.
    if (f.hw_passes > 1) return f.shared && f.replayed_may && f.savable && !f.scan;
    // Under union runs with one hardware pass the dispatch's one run is all it runs: no snapshot at all.
    if (!f.replayed || f.shared) return true;
    return f.replayed_may && f.timed && !f.scan;
}

bool snapshot_scans(const std::vector<Allocation>& allocs, bool copy_all, bool lasting) {
    if (copy_all || allocs.empty()) return false;
    if (!lasting || allocs.size() > kCopyAllAllocations) return true;
    size_t bytes = 0;
    for (const Allocation& a : allocs) {
        bytes += a.size;
        if (bytes > kCopyAllBytes) return true;
    }
    return false;
}

void LastingWindow::add_pass(core::PassRecord&& rec, const Group* group) {
    PendingPass& p = passes_.emplace_back();
    p.rec = std::move(rec);
    p.group = group;
    p.range = ranges_++;
}

void LastingWindow::add_shared_pass(core::PassRecord&& rec, const Group* group) {
    PendingPass& p = passes_.emplace_back();
    p.rec = std::move(rec);
    p.group = group;
    p.range = ranges_ ? ranges_ - 1 : 0;
}

void LastingWindow::add_hole() {
    PendingPass& p = passes_.emplace_back();
    p.range = ranges_++;
    first_ = passes_.size();
    if (reruns_) spoiled_ = true;  // a range close() could not run again in the further hardware passes
}

void LastingWindow::end_dispatch(const core::DispatchFacts& facts, const replay::Outcome& outcome) {
    Slot& s = slots_.emplace_back();
    s.facts = facts;
    s.outcome = outcome;
    s.first = first_;
    s.count = passes_.size() - first_;
    first_ = passes_.size();
}

PortStatus LastingWindow::close(RangeCounters& rc, const Writer& write, const Rerun& rerun) {
    if (!open_) return PortStatus::success();
    open_ = false;
    // Each range is read as the whole configuration (every pass of every dispatch measures it: steady), and
    // each pass picks its own group's counters from its range.
    groups_.assign(ranges_, rc.steady_config());
    PortStatus st;
    samples_.clear();
    if (!abandoned_ && !spoiled_ && reruns_ && rerun && rc.armed_passes() > 1) {
        size_t sessions = 0;
        st = rc.finish_sessions(rerun, &sessions);
    }
    if (!abandoned_) {
        // A failed rerun leaves the sessions incomplete: collect_ranges then discards the window.
        const PortStatus collected = rc.collect_ranges(groups_, &samples_, &durations_);
        if (st.ok) st = collected;
    }
    const bool whole = st.ok && !abandoned_ && !spoiled_ && samples_.size() == ranges_;
    if (st.ok && spoiled_)
        st = PortStatus::failure("cuLaunchKernel", "a relaunch failed inside a window of " +
                                                       std::to_string(slots_.size()) +
                                                       " dispatches: those dispatches' counters are empty");
    else if (st.ok && !whole && !abandoned_)
        st = PortStatus::failure("cuptiRangeProfilerDecodeData",
                                 "a window of " + std::to_string(slots_.size()) + " dispatches (" +
                                     std::to_string(ranges_) + " ranges) decoded " +
                                     std::to_string(samples_.size()) +
                                     " ranges: a kernel that is no dispatch's ran inside it; those dispatches' "
                                     "counters are empty");
    for (size_t i = 0; i < passes_.size(); ++i) {
        PendingPass& p = passes_[i];
        if (whole && p.group) {
            pick_samples(*p.group, samples_[p.range], &p.rec.counters);
            // The range's own GPU time: the pass's events also bracket CUPTI's work around the range.
            const double ns = p.range < durations_.size() ? durations_[p.range] : -1;
            if (ns >= 0) p.rec.end_ns = p.rec.start_ns + static_cast<int64_t>(ns + 0.5);
        } else if (p.group) {
            empty_samples(*p.group, &p.rec.counters);
        }
    }
    spoiled_ = abandoned_ = reruns_ = false;
    for (const Slot& s : slots_) write(s.facts, passes_, s.first, s.count, s.outcome);
    passes_.clear();
    slots_.clear();
    first_ = 0;
    ranges_ = 0;
    return st;
}

}  // namespace gorocprof::cuda
