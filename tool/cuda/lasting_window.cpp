#include "lasting_window.hpp"

#include <string>
#include <utility>

namespace gorocprof::cuda {

bool may_last(const JoinFacts& f) {
    if (!(f.windows && f.counters && f.steady && f.app_launch && !f.unwatched)) return false;
    if (f.passes == 0 || f.passes > f.capacity) return false;
    return !f.replayed || (f.replayed_may && f.timed && !f.scan);
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
}

void LastingWindow::add_hole() {
    passes_.emplace_back();
    first_ = passes_.size();
}

void LastingWindow::end_dispatch(const core::DispatchFacts& facts, const replay::Outcome& outcome) {
    Slot& s = slots_.emplace_back();
    s.facts = facts;
    s.outcome = outcome;
    s.first = first_;
    s.count = passes_.size() - first_;
    first_ = passes_.size();
}

PortStatus LastingWindow::close(RangeCounters& rc, const Writer& write) {
    if (!open_) return PortStatus::success();
    open_ = false;
    groups_.clear();
    for (const PendingPass& p : passes_) groups_.push_back(p.group);
    PortStatus st;
    samples_.clear();
    if (!abandoned_) st = rc.collect_ranges(groups_, &samples_, &durations_);
    const bool whole = st.ok && !abandoned_ && !spoiled_ && samples_.size() == passes_.size();
    if (st.ok && spoiled_)
        st = PortStatus::failure("cuLaunchKernel", "a relaunch failed inside a window of " +
                                                       std::to_string(slots_.size()) +
                                                       " dispatches: those dispatches' counters are empty");
    else if (st.ok && !whole && !abandoned_)
        st = PortStatus::failure("cuptiRangeProfilerDecodeData",
                                 "a window of " + std::to_string(slots_.size()) + " dispatches (" +
                                     std::to_string(passes_.size()) + " ranges) decoded " +
                                     std::to_string(samples_.size()) +
                                     " ranges: a kernel that is no dispatch's ran inside it; those dispatches' "
                                     "counters are empty");
    for (size_t i = 0; i < passes_.size(); ++i) {
        PendingPass& p = passes_[i];
        if (whole) {
            p.rec.counters = std::move(samples_[i]);
            // The range's own GPU time: the pass's events also bracket CUPTI's work around the range.
            const double ns = i < durations_.size() ? durations_[i] : -1;
            if (ns >= 0) p.rec.end_ns = p.rec.start_ns + static_cast<int64_t>(ns + 0.5);
        } else if (p.group) {
            empty_samples(*p.group, &p.rec.counters);
        }
    }
    spoiled_ = abandoned_ = false;
    for (const Slot& s : slots_) write(s.facts, passes_, s.first, s.count, s.outcome);
    passes_.clear();
    slots_.clear();
    first_ = 0;
    return st;
}

}  // namespace gorocprof::cuda
