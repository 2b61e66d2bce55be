#include "range_counters.hpp"

#include "availability_cache.hpp"
#include "range_config.hpp"
#include "config_runs.hpp"
#include "options.hpp"
#include "phase_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace gorocprof::cuda {

void empty_samples(const Group& group, std::vector<core::CounterSample>* out) {
    out->clear();
    for (const core::PlanCounter& c : group) {
        core::CounterSample s;
        s.counter = &c;
        s.values.push_back(std::numeric_limits<double>::quiet_NaN());
        out->push_back(std::move(s));
    }
}

void pick_samples(const Group& group, const std::vector<core::CounterSample>& from,
                  std::vector<core::CounterSample>* out) {
    out->clear();
    out->reserve(group.size());
    for (const core::PlanCounter& c : group) {
        core::CounterSample s;
        s.counter = &c;
        double v = std::numeric_limits<double>::quiet_NaN();
        for (const core::CounterSample& f : from)
            if (f.counter && f.counter->name == c.name && !f.values.empty()) v = f.values[0];
        s.values.push_back(v);
        out->push_back(std::move(s));
    }
}

namespace {

std::string name_list(const std::vector<const char*>& names) {
    std::string list;
    for (const char* n : names) list += (list.empty() ? "" : ",") + std::string(n);
    return list;
}

bool holds(const Group& config, const core::PlanCounter& c) {
    for (const core::PlanCounter& u : config)
        if (u.name == c.name) return true;
    return false;
}

bool holds_all(const Group& config, const Group& group) {
    for (const core::PlanCounter& c : group)
        if (!holds(config, c)) return false;
    return true;
}

// The counters of groups start, start+1, ... (length of them, wrapping), each name once, in order.
Group run_union(const std::vector<const Group*>& groups, size_t start, size_t length) {
    Group out;
    for (size_t k = 0; k < length; ++k)
        for (const core::PlanCounter& c : *groups[run_member(start, k, groups.size())])
            if (!holds(out, c)) out.push_back(c);
    return out;
}

}  // namespace

RangeCounters::RangeCounters(CUcontext ctx, std::string chip) : ctx_(ctx), chip_(std::move(chip)) {
    allow_union_sessions_ = options().union_sessions;
    allow_union_runs_ = options().union_runs;
    allow_duration_ = options().duration_metric;
    allow_partial_ = options().partial_sessions;
}

RangeCounters::~RangeCounters() { disable(); }

void RangeCounters::disable() {
    if (!profiler_) return;
    CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = profiler_;
    // Not through cupti(): the object is dropped either way, and the next arm enables a new one, whose own
    // failure is reported there.
    cuptiRangeProfilerDisable(&p);
    profiler_ = nullptr;
    first_ranges_ = 0;
    counter_data_group_ = nullptr;
    running_ = false;
    armed_ = nullptr;
    armed_state_ = nullptr;
}

PortStatus RangeCounters::enable() {
    if (profiler_) return PortStatus::success();
    if (chip_.empty()) return PortStatus::failure("cuptiDeviceGetChipName", "the device's chip has no name in CUPTI");
    // Availability must be read before the profiler holds the context. It does not change while the
    // process runs, and reading it is a heavy driver call, so a re-enable reuses the first image.
    PortStatus st;
    if (availability_.empty() && !(st = read_availability(true)).ok) return st;
    CUpti_RangeProfiler_Enable_Params p{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    p.ctx = ctx_;
    {
        PhaseTimer t(Phase::Enable);
        st = cupti(cuptiRangeProfilerEnable(&p), "cuptiRangeProfilerEnable");
    }
    if (st.ok) profiler_ = p.pRangeProfilerObject;
    return st;
}

PortStatus RangeCounters::read_availability(bool from_file) {
    availability_cached_ = from_file && load_availability(availability_path_, &availability_);
    if (availability_cached_) return PortStatus::success();
    PhaseTimer t(Phase::Availability);
    PortStatus st = counter_availability(ctx_, &availability_);
    if (!st.ok) return st;
    PortStatus saved = save_availability(availability_path_, availability_);
    if (!saved.ok) cache_problem_ = "keeping the counter availability in " + availability_path_ + ": " + saved.message();
    return st;
}

bool RangeCounters::refresh_availability() {
    if (!availability_cached_) return false;
    const bool was_on = profiler_ != nullptr;
    disable();
    // The host objects built on the kept image hold a pointer into it (CUPTI does not copy it): it moves
    // aside, its buffer unchanged, for as long as they live.
    retired_availability_.push_back(std::move(availability_));
    availability_.clear();
    PortStatus st = read_availability(false);  // the driver's image, which replaces the file
    if (st.ok && was_on) st = enable();
    return st.ok;
}

PortStatus RangeCounters::build_state(const Group& group, GroupState* gs) {
    for (const core::PlanCounter& c : group) gs->names.push_back(c.name.c_str());
    PortStatus st;
    for (int attempt = 0; attempt < 2; ++attempt) {
        {
            PhaseTimer t(Phase::HostInit);
            gs->host.reset();
            st = gs->host.init(chip_, availability_);
        }
        if (st.ok) {
            PhaseTimer t(Phase::ConfigImage);
            st = build_config(gs->host, gs->names, &gs->config, &gs->passes);
        }
        // A cached image may be stale (the device's state changed since it was kept): once more under the
        // driver's before the failure counts.
        if (st.ok || attempt > 0 || !refresh_availability()) break;
    }
    if (!st.ok) st.reason += " (metrics " + name_list(gs->names) + " on " + chip_ + ")";
    return st;
}

PortStatus RangeCounters::group_state(const Group* group, GroupState** out, std::string* note) {
    auto it = groups_.find(group);
    if (it != groups_.end()) {
        *out = it->second.get();
        // Built earlier (maybe by passes_held, which asks for no note): the note still reaches a caller
        // that asks (the port reports each note once).
        if (note) *note = it->second->note;
        return PortStatus::success();
    }
    auto gs = std::make_unique<GroupState>();
    PortStatus st = build_state(*group, gs.get());
    if (!st.ok) return st;
    if (gs->passes > 1) {
        gs->note = "counter group {" + name_list(gs->names) + "} needs " + std::to_string(gs->passes) + " hardware passes on " +
                   chip_ + ": each replay pass runs the kernel that many times (memory restored before each), and "
                   "a dispatch that is not replayed gets none of its values; split the group";
    }
    if (note) *note = gs->note;
    *out = gs.get();
    groups_.emplace(group, std::move(gs));
    return PortStatus::success();
}

void RangeCounters::plan_passes(const std::vector<core::PlanPass>& passes, size_t only) {
    union_passes_ = kUnknownPasses;
    union_refused_ = false;
    pass_groups_.clear();
    for (size_t i = 0; i < passes.size(); ++i)
        if (only == kAllPasses || i == only) pass_groups_.push_back(&passes[i].counters);
    union_ = run_union(pass_groups_, 0, pass_groups_.size());
    timed_state_ = kUnknownTimed;
    groups_.erase(&timed_);  // built for the previous plan's configuration
    session_of_.clear();
    probe_ = 0;
    probe_failed_ = false;
    runs_.assign(pass_groups_.size(), nullptr);
    run_length_.assign(pass_groups_.size(), 0);
    windows_from_.assign(pass_groups_.size(), 0);
    run_storage_.clear();
}

size_t RangeCounters::union_passes() {
    if (union_passes_ == kUnknownPasses) union_passes_ = union_.empty() ? 0 : config_passes(&union_);
    return union_passes_;
}

bool RangeCounters::fits_one_pass(const Group& counters) {
    GroupState gs;  // built to be asked, not kept
    return build_state(counters, &gs).ok && gs.passes == 1;
}

const Group* RangeCounters::run_config(size_t pass) {
    if (!runs_[pass]) {
        const size_t n = longest_run(pass, pass_groups_.size(), [this](size_t start, size_t length) {
            return fits_one_pass(run_union(pass_groups_, start, length));
        });
        run_length_[pass] = n;
        if (n <= 1) {
            runs_[pass] = pass_groups_[pass];
        } else {
            run_storage_.push_back(std::make_unique<Group>(run_union(pass_groups_, pass, n)));
            runs_[pass] = run_storage_.back().get();
        }
    }
    return runs_[pass];
}

size_t RangeCounters::windows_from(size_t pass) {
    const size_t n = pass_groups_.size();
    if (pass >= n) return 0;
    if (windows_from_[pass] == 0) {
        run_config(pass);
        const size_t within = std::min(run_length_[pass], n - pass);  // a window ends with its dispatch
        windows_from_[pass] = 1 + windows_from(pass + within);
    }
    return windows_from_[pass];
}

size_t RangeCounters::held_from(const Group& config, size_t pass, size_t end) {
    size_t k = pass + 1;
    while (k < end && holds_all(config, *pass_groups_[k])) ++k;
    return k - pass;
}

// Whether the union of every pass's counters fits one hardware pass: then every pass measures it and
// the configuration never changes.
bool RangeCounters::single_config() { return pass_groups_.size() >= 2 && union_passes() == 1; }

bool RangeCounters::union_runs() {
    if (!allow_union_runs_ || union_refused_ || pass_groups_.size() < 2 || !enable().ok) return false;
    const size_t h = union_passes();
    return h >= 1 && h <= kMaxUnionRuns;
}

size_t RangeCounters::steady_passes() {
    if (pass_groups_.empty() || !enable().ok) return 0;  // configurations are built against the availability
    if (pass_groups_.size() == 1) return config_passes(pass_groups_[0]) == 1 ? 1 : 0;
    if (union_runs()) return union_passes();
    return single_config() ? 1 : 0;
}

const Group* RangeCounters::steady_config() {
    if (timed()) return &timed_;
    if (steady_passes() == 0) return nullptr;
    return pass_groups_.size() == 1 ? pass_groups_[0] : &union_;
}

bool RangeCounters::timed() {
    if (timed_state_ == kUnknownTimed) {
        timed_state_ = 0;
        const size_t h = allow_duration_ ? steady_passes() : 0;
        if (h > 0) {
            timed_ = pass_groups_.size() == 1 ? *pass_groups_[0] : union_;
            const core::PlanCounter duration{kDurationMetric, "", 0};
            if (!holds(timed_, duration)) timed_.push_back(duration);
            // Only where it costs no hardware pass more.
            if (config_passes(&timed_) == h) timed_state_ = 1;
        }
    }
    return timed_state_ == 1;
}

// Which configuration measures `group`: the timed one when every pass measures it; the union when it
// fits; else the run from the group's pass, or the configuration in use when keeping it is no worse.
const Group* RangeCounters::config_for(const Group* group) {
    if (timed() && holds_all(timed_, *group)) return &timed_;
    if (single_config() || union_runs()) return holds_all(union_, *group) ? &union_ : group;
    const size_t n = pass_groups_.size();
    size_t pass = 0;
    while (pass < n && pass_groups_[pass] != group) ++pass;
    // The configuration in use measures this group too (in one hardware pass).
    const bool held =
        last_group_ && (last_group_ == group || (last_passes_ == 1 && holds_all(*last_group_, *group)));
    if (pass == n) return held ? last_group_ : group;  // not one of the planned groups
    // Keeping it saves a change of configuration (a re-created profiler object and its first Start, the
    // dearest step of all), but its window ends at the first pass it does not hold: keep it only when the
    // rest of the dispatch then needs no more windows than a run taken here would.
    if (held) {
        const size_t kept = last_passes_ == 1 ? held_from(*last_group_, pass, n) : 1;
        if (1 + windows_from(pass + kept) <= windows_from(pass)) return last_group_;
    }
    return run_config(pass);
}

size_t RangeCounters::config_passes(const Group* config) {
    GroupState* gs = nullptr;
    return group_state(config, &gs, nullptr).ok ? gs->passes : 0;
}

// Whether a window measures the union as one configuration of several hardware passes, one Start/Stop
// session per hardware pass on the same profiler object: a further session's Start and a rerun of each
// kernel cost far less than a change of configuration, which re-creates the object and pays its first
// Start (docs/perf.md, "Measurements behind tool/cuda's choices").
size_t RangeCounters::union_sessions() {
    if (!allow_union_sessions_ || union_refused_ || pass_groups_.size() < 2 || union_runs()) return 0;
    const size_t h = union_passes();
    return h >= 2 && h <= kMaxUnionSessions ? h : 0;
}

size_t RangeCounters::passes_held(size_t pass, size_t end) {
    if (pass >= pass_groups_.size() || pass >= end) return 1;
    if (end > pass_groups_.size()) end = pass_groups_.size();
    if (!enable().ok) return 1;  // the configurations are built against the device's availability
    if (union_sessions()) return end - pass;
    const Group* config = config_for(pass_groups_[pass]);
    return config_passes(config) == 1 ? held_from(*config, pass, end) : 1;
}

bool RangeCounters::flush_may_lead(const Group* group, size_t ranges) {
    if (per_pass_ < 2 || !group || group->empty() || !enable().ok) return false;
    if (ranges > 1 && union_sessions() != 0) return false;
    return config_passes(config_for(group)) == 1;
}

PortStatus RangeCounters::arm(const Group* group, std::string* note, size_t ranges, bool lead, size_t kernels,
                              bool user_range) {
    workload_ = kernels ? kernels : 1;
    user_range_ = user_range;
    if (ranges == 0 || workload_ > 1 || user_range_) ranges = 1;
    if (user_range_) lead = false;  // the flush runs outside the user range: it needs no range of its own
    armed_ = nullptr;
    armed_state_ = nullptr;
    lead_ = 0;
    probe_ = 0;
    if (!group || group->empty()) return PortStatus::success();
    PortStatus st = enable();
    if (!st.ok) return st;
    // A window (ranges > 1) measures the union in sessions when passes_held said so; a single pass takes
    // a configuration of one hardware pass holding its group.
    const bool sessions = ranges > 1 && union_sessions() != 0;
    const Group* config = sessions ? &union_ : config_for(group);
    if (sessions) {
        // The union's own note (it needs several hardware passes) is not the user's; a group of theirs that
        // needs several by itself still gets its note.
        GroupState* own = nullptr;
        if (!(st = group_state(group, &own, note)).ok) return st;
        // Until the metrics' hardware passes are known, each further session takes one range more.
        const size_t probe = allow_partial_ && !probe_failed_ && session_of_.empty() ? union_sessions() - 1 : 0;
        st = arm_config(group, config, nullptr, ranges + probe, false);
        probe_ = st.ok ? probe : 0;
        if (!st.ok) {
            // Never again in this process: the windows fall back to configuration runs.
            union_refused_ = true;
            stale_ = true;
            st.reason += "; the union of the groups is not used again in this process (configuration runs instead)";
        }
        return st;
    }
    const bool runs = union_runs() && (config == &union_ || config == &timed_);
    if (runs && group != config) {
        // As for union sessions, the union's hardware passes are not the user's problem; a group of theirs that
        // needs several by itself still gets its note.
        GroupState* own = nullptr;
        if (!(st = group_state(group, &own, note)).ok) return st;
    }
    st = arm_config(group, config, runs ? nullptr : note, ranges, lead);
    if (!st.ok && runs) {
        // As for union sessions: the passes measure their own configurations from now on.
        union_refused_ = true;
        timed_state_ = kUnknownTimed;
        stale_ = true;
        st.reason += "; the union of the groups is not used again in this process (configuration runs instead)";
    }
    return st;
}

PortStatus RangeCounters::arm_config(const Group* group, const Group* config, std::string* note, size_t passes,
                                     bool lead) {
    const size_t skipped = lead ? per_pass_ - 1 : 0;
    // A pass of several kernels gets room for as many ranges again (nodes the driver runs as kernels); a user
    // range is one range, whatever runs in it.
    const size_t own = user_range_ ? 1 : per_pass_ - 1 + (workload_ > 1 ? 2 * workload_ : 1);
    const size_t ranges = passes * own - skipped;
    const bool keep_object = !options().reenable_on_switch;
    PortStatus st;
    // A new object when the configuration changes, when the last one was left inside an unfinished
    // sequence of hardware passes (discard()), or when this window has more ranges than the object's first
    // (an object records no more ranges per window than about twice its first SetConfig's
    // maxRangesPerPass: docs/perf.md, attempt 15).
    const bool larger = first_ranges_ != 0 && ranges > first_ranges_;
    const bool other_ranges = last_group_ && last_user_range_ != user_range_;
    if (!keep_object && ((stale_ && profiler_) || (last_group_ && last_group_ != config) || larger || other_ranges)) {
        {
            PhaseTimer off(Phase::SwitchOff);
            disable();
        }
        PhaseTimer on(Phase::SwitchOn);
        if (!(st = enable()).ok) return st;
    }
    stale_ = false;
    last_group_ = config;
    last_user_range_ = user_range_;
    last_passes_ = 0;
    GroupState* gs = nullptr;
    if (!(st = group_state(config, &gs, note)).ok) return st;
    last_passes_ = gs->passes;

    if (counter_data_group_ != config || counter_data_ranges_ != ranges) {
        CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        size.pRangeProfilerObject = profiler_;
        size.pMetricNames = gs->names.data();
        size.numMetrics = gs->names.size();
        size.maxNumOfRanges = ranges;
        size.maxNumRangeTreeNodes = ranges;
        st = cupti(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
        if (!st.ok) return st;
        counter_data_.assign(size.counterDataSize, 0);
        counter_data_group_ = config;
        counter_data_ranges_ = ranges;
    }
    {
        PhaseTimer t(Phase::DataInit);
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = profiler_;
        init.counterDataSize = counter_data_.size();
        init.pCounterData = counter_data_.data();
        st = cupti(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
        if (!st.ok) return st;
    }
    {
        PhaseTimer t(Phase::SetConfig);
        st = set_range_config(profiler_, gs->config, counter_data_, user_range_, ranges);
        if (!st.ok) return st;
        if (first_ranges_ == 0) first_ranges_ = ranges;
    }
    {
        PhaseTimer t(Phase::Start);
        if (!(st = start_profiler()).ok) return st;
    }
    armed_ = group;
    armed_state_ = gs;
    lead_ = skipped;
    return PortStatus::success();
}

PortStatus RangeCounters::start_profiler() {
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = profiler_;
    PortStatus st = cupti(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
    if (st.ok) {
        running_ = true;
        all_submitted_ = false;
    }
    return st;
}

PortStatus RangeCounters::stop_profiler(bool* all_submitted) {
    CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = profiler_;
    running_ = false;
    PortStatus st = cupti(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop");
    if (st.ok) all_submitted_ = stop.isAllPassSubmitted != 0;
    if (st.ok && all_submitted) *all_submitted = all_submitted_;
    return st;
}

PortStatus RangeCounters::stop(bool* all_submitted) {
    *all_submitted = true;
    if (!armed_ || !running_) return PortStatus::success();
    return stop_profiler(all_submitted);
}

PortStatus RangeCounters::push_range() {
    if (!armed_ || !running_ || !user_range_) return PortStatus::success();
    CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
    push.pRangeProfilerObject = profiler_;
    push.pRangeName = "graph";
    return cupti(cuptiRangeProfilerPushRange(&push), "cuptiRangeProfilerPushRange");
}

PortStatus RangeCounters::pop_range() {
    if (!armed_ || !running_ || !user_range_) return PortStatus::success();
    CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
    pop.pRangeProfilerObject = profiler_;
    return cupti(cuptiRangeProfilerPopRange(&pop), "cuptiRangeProfilerPopRange");
}

PortStatus RangeCounters::restart() {
    if (!armed_ || running_) return PortStatus::success();
    return start_profiler();
}

}  // namespace gorocprof::cuda
