// Decoding and evaluating what a Range Profiler window recorded (RangeCounters' second half: range_counters.cpp
// arms and runs the windows, this file reads them back): a pass's values, a workload's rolled up over its ranges,
// a window's ranges in launch order, and what further union sessions rerun.
#include "range_counters.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace gorocprof::cuda {

PortStatus RangeCounters::decode(size_t* ranges) {
    *ranges = 0;
    PortStatus st;
    if (running_ && !(st = stop_profiler(nullptr)).ok) return st;
    CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = profiler_;
    st = cupti(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData");
    if (!st.ok) return st;

    CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counter_data_.data();
    info.counterDataImageSize = counter_data_.size();
    st = cupti(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    if (st.ok) *ranges = info.numTotalRanges;
    return st;
}

// One value per counter of the armed group for one decoded range (NaN where the hardware gave none).
PortStatus RangeCounters::evaluate(size_t range, const Group* group, std::vector<core::CounterSample>* out,
                                   double* duration) {
    GroupState* gs = armed_state_;
    out->clear();
    if (duration) *duration = std::numeric_limits<double>::quiet_NaN();
    if (!group) return PortStatus::success();
    std::vector<double> values(gs->names.size(), std::numeric_limits<double>::quiet_NaN());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = gs->host.get();
    eval.pCounterDataImage = counter_data_.data();
    eval.counterDataImageSize = counter_data_.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = gs->names.data();
    eval.numMetrics = gs->names.size();
    eval.pMetricValues = values.data();
    PortStatus st = cupti(cuptiProfilerHostEvaluateToGpuValues(&eval), "cuptiProfilerHostEvaluateToGpuValues");
    if (!st.ok) return st;
    if (duration)
        for (size_t j = 0; j < gs->names.size(); ++j)
            if (std::strcmp(gs->names[j], kDurationMetric) == 0) *duration = values[j];
    out->clear();
    out->reserve(group->size());
    for (size_t i = 0; i < group->size(); ++i) {
        // The configuration may hold more metrics than the group (the union): report the group's.
        double v = std::numeric_limits<double>::quiet_NaN();
        for (size_t j = 0; j < gs->names.size(); ++j)
            if ((*group)[i].name == gs->names[j]) v = values[j];
        core::CounterSample s;
        s.counter = &(*group)[i];
        s.values.push_back(v);
        out->push_back(std::move(s));
    }
    return PortStatus::success();
}

Rollup rollup_of(const std::string& metric) {
    auto ends = [&](const char* s) {
        const size_t n = std::strlen(s);
        return metric.size() >= n && metric.compare(metric.size() - n, n, s) == 0;
    };
    if (ends(".sum")) return Rollup::Sum;
    if (ends(".max")) return Rollup::Max;
    if (ends(".min")) return Rollup::Min;
    return Rollup::None;
}

PortStatus RangeCounters::evaluate_workload(size_t first, size_t end, const Group* group,
                                            std::vector<core::CounterSample>* out, std::string* lost) {
    out->clear();
    lost->clear();
    if (!group) return PortStatus::success();
    std::vector<core::CounterSample> one;
    for (size_t r = first; r < end; ++r) {
        PortStatus st = evaluate(r, group, &one);
        if (!st.ok) return st;
        if (r == first) {
            *out = std::move(one);
            continue;
        }
        for (size_t i = 0; i < out->size() && i < one.size(); ++i) {
            double& acc = (*out)[i].values[0];
            const double v = one[i].values[0];
            switch (rollup_of((*out)[i].counter->name)) {
            case Rollup::Sum: acc += v; break;
            case Rollup::Max: acc = std::max(acc, v); break;
            case Rollup::Min: acc = std::min(acc, v); break;
            case Rollup::None: break;
            }
        }
    }
    for (core::CounterSample& s : *out)
        if (rollup_of(s.counter->name) == Rollup::None) {
            s.values[0] = std::numeric_limits<double>::quiet_NaN();
            *lost += " " + s.counter->name;
        }
    return PortStatus::success();
}

PortStatus RangeCounters::collect(std::vector<core::CounterSample>* out) {
    if (!armed_) return PortStatus::success();
    if (sessions_incomplete()) {
        const Group* group = armed_;
        const size_t passes = armed_state_->passes;
        discard();
        empty_samples(*group, out);
        return PortStatus::failure("cuptiRangeProfilerStop",
                                   "the configuration needs " + std::to_string(passes) +
                                       " hardware passes and not all of them ran (a dispatch that is not replayed "
                                       "has no snapshot to run the kernel again from): its counters are empty");
    }
    size_t ranges = 0;
    PortStatus st = decode(&ranges);
    // The pass's kernels are the last workload_ of its ranges: the flush's first (less what ran before the
    // Start).
    const size_t own = user_range_ ? 1 : per_pass_ - 1 + workload_;
    // A pass of several kernels that filled its room may have lost ranges (arm_config).
    const bool full = !user_range_ && workload_ > 1 && ranges + lead_ >= per_pass_ - 1 + 2 * workload_;
    const bool found = ranges + lead_ >= own && !full;
    std::string lost;
    if (st.ok && found && user_range_) st = evaluate(0, armed_, out);
    else if (st.ok && found)
        st = workload_ == 1 ? evaluate(own - 1 - lead_, armed_, out)
                            : evaluate_workload(per_pass_ - 1 - lead_, ranges, armed_, out, &lost);
    if (st.ok && !found) empty_samples(*armed_, out);  // every counter of the group is reported, empty
    armed_ = nullptr;
    armed_state_ = nullptr;
    if (!st.ok) return st;
    if (!found)
        return PortStatus::failure("cuptiRangeProfilerGetCounterDataInfo",
                                   "the pass recorded " + std::to_string(ranges) + " range(s), its kernels' are " +
                                       std::to_string(own) + (full ? " (and the room for more is full)" : "") +
                                       ": the pass's counters are empty");
    if (!lost.empty())
        return PortStatus::failure("graph workload",
                                   "under --graph-profiling graph a counter is the graph's kernels' values combined, "
                                   "and" + lost + " are neither a sum, a maximum nor a minimum: they are empty");
    return PortStatus::success();
}

PortStatus RangeCounters::collect_ranges(const std::vector<const Group*>& groups,
                                         std::vector<std::vector<core::CounterSample>>* out,
                                         std::vector<double>* durations) {
    out->clear();
    if (durations) durations->clear();
    if (!armed_) return PortStatus::success();
    if (sessions_incomplete()) {
        // Decoding now would read the missing hardware passes' metrics as 0: nothing of the window is
        // reported rather than wrong values.
        discard();
        return PortStatus::failure("cuptiRangeProfilerStop",
                                   "a window ended before every hardware pass of its configuration ran (the replay "
                                   "stopped early or a rerun failed): its passes' counters are empty");
    }
    size_t ranges = 0;
    PortStatus st = decode(&ranges);
    // One entry per pass: the last of its per_pass_ ranges. A range count that is not a multiple (a kernel
    // that is no pass's) rounds up, so the caller sees one entry too many.
    const size_t entries = (ranges + lead_ + per_pass_ - 1) / per_pass_;
    const size_t probe = probe_;
    probe_ = 0;
    for (size_t r = 0; st.ok && r < entries; ++r) {
        const size_t range = r * per_pass_ + per_pass_ - 1 - lead_;
        out->emplace_back();
        double duration = std::numeric_limits<double>::quiet_NaN();
        // A probe's ranges, after the window's passes, are read as the whole union.
        const Group* group = r < groups.size() ? groups[r] : (probe && r < groups.size() + probe ? &union_ : nullptr);
        if (range < ranges) st = evaluate(range, group, &out->back(), &duration);
        if (durations) durations->push_back(duration);
    }
    // The probe's ranges are the tool's: dropped once they have told the metrics' hardware passes (a window
    // with a range too many still shows one entry too many). A probe that does not tell them (a hardware pass
    // left without a metric: a kernel that is no pass's ran in the first session, or CUPTI merged otherwise)
    // is not dropped, so the caller sees entries that do not line up with its passes and trusts none.
    if (st.ok && probe && out->size() >= groups.size() + probe) {
        if (learn_sessions(groups.size(), probe, out)) {
            out->erase(out->begin() + static_cast<std::ptrdiff_t>(groups.size()),
                       out->begin() + static_cast<std::ptrdiff_t>(groups.size() + probe));
            if (durations) durations->resize(out->size());
        } else {
            probe_failed_ = true;
        }
    }
    armed_ = nullptr;
    armed_state_ = nullptr;
    return st;
}

bool RangeCounters::sessions_incomplete() const {
    return armed_ && armed_state_ && armed_state_->passes > 1 && (running_ || !all_submitted_);
}

size_t RangeCounters::session_runs(size_t session, const std::vector<const Group*>& window) const {
    if (armed_ != nullptr && armed_state_ != nullptr && armed_state_->passes > 1 && probe_ > 0)
        return window.size() + session;  // the probe: the last pass again, once per session so far
    if (session_of_.empty() || window.empty()) return window.size();
    size_t runs = 0;
    for (size_t r = 0; r < window.size(); ++r) {
        if (!window[r]) continue;
        for (const core::PlanCounter& c : *window[r]) {
            auto it = session_of_.find(c.name);
            // A counter the probe did not place (not in the union): rerun everything up to it, to be safe.
            if (it == session_of_.end() || it->second == session) runs = r + 1;
        }
    }
    return runs ? runs : 1;  // a session still runs a kernel: CUPTI needs its hardware pass submitted
}

bool RangeCounters::learn_sessions(size_t window_passes, size_t extra,
                                   std::vector<std::vector<core::CounterSample>>* out) {
    // Entry window_passes + j - 1 was reached by sessions j and later only: its non-NaN metrics are theirs.
    std::vector<std::vector<bool>> seen(extra + 1);
    for (size_t j = 1; j <= extra; ++j) {
        const std::vector<core::CounterSample>& e = (*out)[window_passes + j - 1];
        seen[j].assign(union_.size(), false);
        for (size_t i = 0; i < e.size() && i < union_.size(); ++i)
            seen[j][i] = !e[i].values.empty() && !std::isnan(e[i].values[0]);
    }
    std::map<std::string, size_t> learned;
    for (size_t i = 0; i < union_.size(); ++i) {
        size_t s = 0;  // seen in no probe range: session 0's
        for (size_t j = 1; j <= extra; ++j)
            if (seen[j][i]) s = j;  // sessions j.. reached it, and j + 1.. did not, once the loop ends
        learned[union_[i].name] = s;
    }
    // Every hardware pass must hold a metric, else the ranges did not behave as measured: full reruns.
    std::vector<bool> used(extra + 1, false);
    for (const auto& [name, s] : learned) used[s] = true;
    for (bool u : used)
        if (!u) return false;
    session_of_ = std::move(learned);
    return true;
}

void RangeCounters::discard() {
    probe_ = 0;
    if (running_) stop_profiler(nullptr);
    armed_ = nullptr;
    armed_state_ = nullptr;
    stale_ = true;
}

}  // namespace gorocprof::cuda
