#include "lasting_window.hpp"

#include <string>
#include <utility>

namespace gorocprof::cuda {

bool may_last(const JoinFacts& f) {
    return f.windows && f.counters && f.steady && !f.replayed && f.app_launch && !f.unwatched;
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
    PortStatus st = rc.collect_ranges(groups_, &samples_);
    const bool whole = st.ok && samples_.size() == passes_.size();
    if (st.ok && !whole)
        st = PortStatus::failure("cuptiRangeProfilerDecodeData",
                                 "a window of " + std::to_string(slots_.size()) + " dispatches (" +
                                     std::to_string(passes_.size()) + " ranges) decoded " +
                                     std::to_string(samples_.size()) +
                                     " ranges: a kernel that is no dispatch's ran inside it; those dispatches' "
                                     "counters are empty");
    for (size_t i = 0; i < passes_.size(); ++i) {
        PendingPass& p = passes_[i];
        if (whole) p.rec.counters = std::move(samples_[i]);
        else if (p.group) empty_samples(*p.group, &p.rec.counters);
    }
    for (const Slot& s : slots_) write(s.facts, passes_, s.first, s.count, s.outcome);
    passes_.clear();
    slots_.clear();
    first_ = 0;
    return st;
}

}  // namespace gorocprof::cuda
