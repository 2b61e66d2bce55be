// Counters of one pass through CUPTI's Range Profiler, one context at a time: auto range (one range
// per kernel) and user replay (we replay, CUPTI only measures). A pass measures a single-pass
// configuration holding its group (built once per context and cached); a pass is SetConfig, Start,
// the launch, Stop, Decode, Evaluate. After a second SetConfig with another configuration on the same
// profiler object (CUDA 13.0), metrics come back wrong, so the
// profiler object is re-created whenever the configuration changes (README.md, "Counters"), and
// configurations are chosen to change as rarely as they can: the union of all groups when it fits
// one hardware pass; else, for a window, the union measured in one session per hardware pass on the same
// object; else runs of consecutive groups (config_runs.hpp).
#pragma once

#include "check.hpp"
#include "core.hpp"
#include "metric_host.hpp"

#include <cupti_range_profiler.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <type_traits>
#include <vector>

namespace gorocprof::cuda {

using Group = std::vector<core::PlanCounter>;

// One sample per counter of `group`, each an empty value (NaN: the hardware delivered nothing).
void empty_samples(const Group& group, std::vector<core::CounterSample>* out);
// One sample per counter of `group`, its value the one `from` (a range evaluated as the whole configuration
// that measured it) holds for the counter's name; NaN where `from` has none.
void pick_samples(const Group& group, const std::vector<core::CounterSample>& from,
                  std::vector<core::CounterSample>* out);

// How a metric of a workload of several kernels (a graph launched as one dispatch) follows from its kernels'
// values, by the metric's name: `.sum` adds up, `.max` and `.min` take the largest and smallest; any other
// (an average, a ratio, a rate, a percentage of peak) is not a function of the kernels' values alone.
enum class Rollup { Sum, Max, Min, None };
Rollup rollup_of(const std::string& metric);

class RangeCounters {
public:
    RangeCounters(CUcontext ctx, std::string chip);
    RangeCounters(const RangeCounters&) = delete;
    RangeCounters& operator=(const RangeCounters&) = delete;
    ~RangeCounters();

    // Arms collection of `group` for the next pass launched in the context (the next `ranges` passes,
    // one auto range per kernel, set_kernels_per_pass kernels each, when ranges > 1). `note` receives a
    // message the user must see once (a group that needs more than one pass).
    // `lead`: the first pass's cache flush (the first of its set_kernels_per_pass kernels) was queued before
    // this arm, outside the profiler's session, where a launch costs the host far less (flush_may_lead).
    // `kernels`: the pass's own kernels, after its flush (a graph launched as one dispatch runs all of its
    // kernels in every pass): the pass's counters are those of every range after the flush combined by
    // rollup_of (collect: at least `kernels` ranges, more where the driver runs another node as a kernel; room
    // for twice as many is armed, and a pass that fills it is reported empty, as it may have lost ranges), and
    // a metric without a rollup is empty. A pass of several kernels is armed alone (ranges is then 1).
    // `user_range` (with `kernels`): the pass is one user range (CUPTI_UserRange) instead, which the caller opens
    // and closes around the pass's work with push_range / pop_range (reruns of further hardware passes too):
    // everything the device runs inside it counts, every metric of the group included; the cache flush runs
    // outside it. A change between auto and user ranges gets a new profiler object, as a change of configuration.
    PortStatus arm(const Group* group, std::string* note, size_t ranges = 1, bool lead = false, size_t kernels = 1,
                   bool user_range = false);
    // The armed pass's user range: push before its work, pop after it. No-ops when nothing is armed or the arm
    // was not a user range.
    PortStatus push_range();
    PortStatus pop_range();
    // Whether arm(group, ranges) may take `lead`: the flush precedes each pass and the configuration it
    // arms has one hardware pass (the reruns of further hardware passes run every pass's flush inside
    // their session, so their ranges would not line up with a first session that lacks one).
    bool flush_may_lead(const Group* group, size_t ranges);
    // After the armed kernel finished: stops the range. *all_submitted is false when the
    // configuration needs the kernel once more (restart(), run it again, stop() again).
    PortStatus stop(bool* all_submitted);
    PortStatus restart();
    // After the armed window's (or pass's) last kernel: stops, and while the configuration has hardware
    // passes left, restarts, calls rerun(session) (session 1, 2, ...: it must run the window's first
    // session_runs(session, ...) kernels again, in the same order, each from the same memory) and stops again,
    // at most max_sessions times. *sessions: the further sessions run.
    template <class Rerun>
    PortStatus finish_sessions(Rerun&& rerun, size_t* sessions, size_t max_sessions = 32) {
        *sessions = 0;
        bool all = true;
        PortStatus st = stop(&all);
        while (st.ok && !all && *sessions < max_sessions) {
            if (!(st = restart()).ok) break;
            // A rerun that does not ask which session it is runs the same kernels every time.
            if constexpr (std::is_invocable_v<Rerun&, size_t>) st = rerun(*sessions + 1);
            else st = rerun();
            if (!st.ok) break;
            ++*sessions;
            st = stop(&all);
        }
        return st;
    }
    // How many of a union-sessions window's passes (`window`: their groups, in order) further session
    // `session` runs again: up to the last pass whose group has a counter in that session's hardware pass,
    // once which metric CUPTI put in which hardware pass is known (ranges merge by index, and a range a session
    // did not reach reads NaN for that session's metrics: docs/h200/start-cost-2026-11-30T0905Z.md). The first
    // such window of the profiler object learns it: it was armed with a range more per further session, and
    // session k runs the window's passes and then the last one k times more, so range P + k - 1 holds only
    // sessions k and later (collect_ranges decodes and drops those ranges). Every pass otherwise, or when
    // GOROCPROF_CUDA_PARTIAL_SESSIONS=0.
    size_t session_runs(size_t session, const std::vector<const Group*>& window) const;
    // Whether partial reruns may be learned and used (the option by default; tests set it).
    void allow_partial_sessions(bool on) { allow_partial_ = on; }
    // True while a configuration of several hardware passes is armed and not all of them have run.
    bool sessions_incomplete() const;
    // Forgets what is armed without decoding it (stopping first); the next arm gets a new profiler object,
    // as this one may be left inside its configuration's sequence of hardware passes.
    void discard();
    // Decodes and evaluates one value per counter (NaN when the hardware delivered nothing), and
    // disarms. Stops first when stop() was not called. No-op when nothing is armed. When the
    // configuration's hardware passes did not all run, every counter is empty (and a failure says why).
    PortStatus collect(std::vector<core::CounterSample>* out);
    // Ends a window armed with ranges > 1: one sample list per range it recorded, in launch order,
    // range r reported as groups[r] (an empty list where groups[r] is null or past the end). The
    // caller compares out->size() with the number of kernels it ran in the window. A window whose
    // configuration's hardware passes did not all run is discarded, not decoded (a failure, out empty).
    // `durations`, when given: one entry per entry of *out, its range's kDurationMetric in ns when the armed
    // configuration holds it (timed()), else NaN.
    PortStatus collect_ranges(const std::vector<const Group*>& groups, std::vector<std::vector<core::CounterSample>>* out,
                              std::vector<double>* durations = nullptr);
    // True when every planned pass's counters fit one configuration together (the union), so that
    // one window can hold all of a dispatch's passes.
    bool single_config();
    // True when every pass of every dispatch measures one configuration of one hardware pass (the only
    // planned group, or the union of all of them): a window may then hold passes of many dispatches.
    bool steady() { return steady_passes() == 1; }
    // The hardware passes of the one configuration every pass of every dispatch measures (steady() when 1;
    // above 1 only under union_runs()), 0 when passes measure different configurations.
    size_t steady_passes();
    // True when a replayed dispatch runs its kernel once per hardware pass of the union of the planned groups
    // (kernel replay with two groups or more whose union CUPTI configures in at most kMaxUnionRuns hardware
    // passes; not under GOROCPROF_CUDA_UNION_RUNS=0): every replay pass reads its own group from those runs'
    // one range, so passes after the first run nothing (README.md, "One run per hardware pass").
    bool union_runs();
    static constexpr size_t kMaxUnionRuns = 16;
    // Whether union_runs() may be used (the option by default; tests set it).
    void allow_union_runs(bool on) { allow_union_runs_ = on; timed_state_ = kUnknownTimed; }
    // The configuration that measures every pass under steady_passes() (the timed one when timed()).
    const Group* steady_config();
    // The metric whose value in a range is its kernel's GPU time in ns (what ncu reports as the duration).
    static constexpr const char* kDurationMetric = "gpu__time_duration.sum";
    // True when the configuration of steady() measures kDurationMetric too, in its one hardware pass (added
    // to it unless a group asks for it; not when it would need another hardware pass or CUPTI does not know
    // it, nor under GOROCPROF_CUDA_DURATION_METRIC=0): every range then gives its kernel's duration, so a
    // replayed dispatch needs no timing run outside the session. Every pass measures that configuration.
    bool timed();
    // Whether timed() may add the metric (the option by default; tests set it).
    void allow_duration_metric(bool on) { allow_duration_ = on; timed_state_ = kUnknownTimed; }
    // How many consecutive planned passes from `pass` (up to, not including, `end`) the configuration
    // that pass will measure also holds, each in the same single hardware pass: one window can hold
    // them all. 1 when only the pass itself (or for a pass that is not planned).
    // With union sessions, every pass from `pass` to `end`.
    size_t passes_held(size_t pass, size_t end);
    const Group* armed() const { return armed_; }
    // The hardware passes of the armed configuration: above 1, a window's kernels must run once per
    // hardware pass (stop, restart, run them again in the same order) before collect_ranges.
    size_t armed_passes() const { return armed_state_ ? armed_state_->passes : 0; }
    // When the groups do not fit one hardware pass together but their union needs at most
    // kMaxUnionSessions: how many hardware passes (sessions) a window of the union takes; else 0.
    size_t union_sessions();
    // Union sessions are on unless GOROCPROF_CUDA_UNION_SESSIONS=0 (read at construction); tests turn
    // them off to exercise configuration runs.
    void allow_union_sessions(bool on) { allow_union_sessions_ = on; }
    // Kernels the port runs per pass inside an armed configuration, the pass's own last: 2 when a cache
    // flush kernel precedes each (cache_flush.hpp). Every kernel is an auto range, so a window arms that
    // many ranges per pass and pass r is range r * k + k - 1. Set before the first arm.
    void set_kernels_per_pass(size_t k) { per_pass_ = k ? k : 1; }
    size_t kernels_per_pass() const { return per_pass_; }
    static constexpr size_t kMaxUnionSessions = 4;
    // The passes planned for this context's device: when all their counters fit one hardware pass
    // together, every replay pass measures that union and reports its own group.
    // Otherwise a pass takes the longest run of groups from its own that fits one hardware pass
    // (config_runs.hpp), or keeps the configuration in use when that holds its group and costs the
    // dispatch no extra window.
    // `only`: the one pass this process measures (application replay: one pass per run of the app), so
    // that its group's own configuration is used for every dispatch instead of a run of groups.
    static constexpr size_t kAllPasses = static_cast<size_t>(-1);
    void plan_passes(const std::vector<core::PlanPass>& passes, size_t only = kAllPasses);

    // Turns the context's profiler off before the context goes away.
    void disable();
    // Turns it on now (at context creation, before the application loads modules).
    PortStatus enable_now() { return enable(); }
    // Where the device's counter availability image is kept between processes (availability_cache.hpp; empty:
    // read from the driver every time). Before the first enable.
    void use_availability_cache(std::string path) { availability_path_ = std::move(path); }
    // Whether the image in use came from that file; and what went wrong keeping it, for a warning (the
    // counters work either way). Whichever call enabled the profiler (enable_now or a first arm), the problem
    // is handed out once: empty afterwards, and when nothing went wrong.
    bool availability_cached() const { return availability_cached_; }
    std::string take_availability_cache_problem() { return std::exchange(cache_problem_, std::string()); }

private:
    struct GroupState {
        HostObject host;
        std::vector<uint8_t> config;
        std::vector<const char*> names;
        size_t passes = 0;
        std::string note;  // for the user when the configuration needs several hardware passes
    };
    PortStatus enable();
    // The availability image: the cached file's when `from_file` and there is one, else the driver's (then saved).
    PortStatus read_availability(bool from_file);
    // A configuration failed under a cached image: the driver's image replaces it (profiler off meanwhile,
    // as reading it needs) and the file is rewritten. False when the image in use was the driver's already.
    bool refresh_availability();
    PortStatus arm_config(const Group* group, const Group* config, std::string* note, size_t passes, bool lead);
    // The host object and configuration image of `group` (names point into it).
    PortStatus build_state(const Group& group, GroupState* gs);
    PortStatus group_state(const Group* group, GroupState** out, std::string* note);
    // cuptiRangeProfilerStart / Stop of the armed configuration (running_ follows them).
    PortStatus start_profiler();
    PortStatus stop_profiler(bool* all_submitted);
    const Group* config_for(const Group* group);
    const Group* run_config(size_t pass);
    size_t windows_from(size_t pass);
    size_t held_from(const Group& config, size_t pass, size_t end);
    size_t config_passes(const Group* config);
    bool fits_one_pass(const Group& counters);
    Group union_;
    // The union's hardware passes (0: its configuration cannot be built), worked out once per plan.
    static constexpr size_t kUnknownPasses = static_cast<size_t>(-1);
    size_t union_passes_ = kUnknownPasses;
    size_t union_passes();
    bool allow_union_sessions_ = true;
    bool allow_union_runs_ = true;
    // Partial reruns of union sessions (session_runs): the hardware pass of each union metric, learned by a
    // probing window (probe_ the further sessions it was armed for, 0 when none is armed).
    bool allow_partial_ = true;
    size_t probe_ = 0;
    bool probe_failed_ = false;  // a probe did not show every metric in one hardware pass: full reruns
    std::map<std::string, size_t> session_of_;
    bool learn_sessions(size_t window_passes, size_t extra, std::vector<std::vector<core::CounterSample>>* out);
    // steady()'s configuration with kDurationMetric, worked out once per plan (timed()).
    static constexpr int kUnknownTimed = -1;
    int timed_state_ = kUnknownTimed;  // 1: timed_ is what every pass measures; 0: no duration metric
    bool allow_duration_ = true;
    Group timed_;
    bool union_refused_ = false;  // CUPTI refused the union's configuration: no union sessions any more
    // The planned groups in pass order; per pass the configuration of the run that starts there (null
    // until first needed; the group itself when no longer run fits) and its length in groups (it may
    // wrap into the next dispatch's first passes); and how many windows the passes from there to the
    // dispatch's end need when each takes such a run (0 until first needed).
    std::vector<const Group*> pass_groups_;
    std::vector<const Group*> runs_;
    std::vector<size_t> run_length_;
    std::vector<size_t> windows_from_;
    std::vector<std::unique_ptr<Group>> run_storage_;

    CUcontext ctx_;
    std::string chip_;
    // Declared before groups_, so that the host objects, which point into these images, go first.
    std::vector<uint8_t> availability_;
    std::vector<std::vector<uint8_t>> retired_availability_;  // replaced by refresh_availability, still pointed into
    std::string availability_path_;
    bool availability_cached_ = false;
    std::string cache_problem_;
    CUpti_RangeProfiler_Object* profiler_ = nullptr;
    std::map<const Group*, std::unique_ptr<GroupState>> groups_;
    const Group* armed_ = nullptr;
    GroupState* armed_state_ = nullptr;
    bool running_ = false;  // between Start and Stop
    bool all_submitted_ = true;  // the last Stop said every hardware pass of the configuration ran
    bool stale_ = false;         // the object must be re-created before the next arm (discard())
    size_t per_pass_ = 1;        // kernels (auto ranges) per pass: set_kernels_per_pass
    size_t workload_ = 1;        // of them, the pass's own (the last ones): arm's `kernels`
    bool user_range_ = false;    // arm's `user_range`: one user range per pass
    bool last_user_range_ = false;  // whether the object in use was configured for user ranges
    size_t lead_ = 0;            // of the armed window's first pass's kernels, those that ran before its Start
    size_t first_ranges_ = 0;    // maxRangesPerPass of the profiler object's first SetConfig (0: none yet)
    const Group* last_group_ = nullptr;  // the configuration in use
    size_t last_passes_ = 0;              // and the hardware passes it needs
    // The counter data image belongs to the profiler object: rebuilt with it.
    std::vector<uint8_t> counter_data_;
    const Group* counter_data_group_ = nullptr;
    size_t counter_data_ranges_ = 0;
    PortStatus decode(size_t* ranges);
    // `duration`, when given: the range's kDurationMetric when the armed configuration holds it, else NaN.
    PortStatus evaluate(size_t range, const Group* group, std::vector<core::CounterSample>* out,
                        double* duration = nullptr);
    // The armed pass's ranges [first, end), combined per counter (rollup_of); `lost` gets the counters that
    // have no rollup (reported empty). Every range after the flush counts: a node the driver runs as a kernel
    // of its own (a memset, a copy) is part of the graph's work, as it is of a range around the graph.
    PortStatus evaluate_workload(size_t first, size_t end, const Group* group, std::vector<core::CounterSample>* out,
                                 std::string* lost);
};

}  // namespace gorocprof::cuda
