// Host-side tests of counter collection against the fake CUPTI profiler (fake_cupti.hpp): configuration
// runs (config_runs.*) and the Range Profiler per context (range_counters.*): windows, union sessions, runs,
// kept configurations, the cache flush's ranges, why the profiler object is re-created.
#include "../testkit/check.hpp"

#include "config_runs.hpp"
#include "counter_plans.hpp"
#include "fake_cupti.hpp"
#include "fake_driver.hpp"
#include "range_counters.hpp"

#include <algorithm>
#include <cmath>

#include <cstdint>
#include <cstring>

#include <map>
#include <set>
#include <string>
#include <vector>

using gorocprof::replay::PortStatus;
using gorocprof::cuda::longest_run;
using gorocprof::cuda::run_member;
using gorocprof::cuda::RangeCounters;


TEST_CASE(config_runs_cover_passes_with_fewest_switches) {
    // A stand-in for "fits one hardware pass": each group has a cost and a run fits while its groups'
    // costs add up to at most 4 (a group of cost 5 does not fit even alone).
    const std::vector<int> cost = {1, 1, 1, 1, 2, 2, 5, 1};
    std::vector<std::pair<size_t, size_t>> asked;
    auto fits = [&](size_t start, size_t length) {
        asked.emplace_back(start, length);
        int total = 0;
        for (size_t k = 0; k < length; ++k) total += cost[run_member(start, k, cost.size())];
        return total <= 4;
    };
    CHECK_EQ(longest_run(0, cost.size(), fits), size_t(4));  // 1+1+1+1; the 2 would make 6
    CHECK_EQ(asked.size(), size_t(4));                       // lengths 2, 3, 4, 5: not again after 5 failed
    CHECK(asked.back() == std::make_pair(size_t(0), size_t(5)));
    CHECK_EQ(longest_run(4, cost.size(), fits), size_t(2));  // 2+2
    CHECK_EQ(longest_run(6, cost.size(), fits), size_t(1));  // too large alone: stands alone
    CHECK_EQ(longest_run(7, cost.size(), fits), size_t(4));  // wraps: groups 7, 0, 1, 2
    CHECK_EQ(run_member(7, 3, cost.size()), size_t(2));
    // Every group fits with every other: one run of all of them, from any start.
    auto always = [](size_t, size_t) { return true; };
    CHECK_EQ(longest_run(5, 10, always), size_t(10));
    CHECK_EQ(longest_run(0, 0, always), size_t(0));

    // The pass sequence of three dispatches (0..7 three times) under the rule the Range Profiler code
    // follows: keep the run in use while it holds the pass, else take the longest run from the pass.
    // Each pass is measured by a run that holds it, and the switches are those of the greedy cover.
    const size_t n = cost.size();
    size_t start = 0, length = 0, switches = 0;
    std::string runs;
    for (size_t p = 0; p < 3 * n; ++p) {
        const size_t pass = p % n;
        const bool held = length > 0 && (pass + n - start) % n < length;
        if (!held) {
            start = pass, length = longest_run(pass, n, fits), ++switches;
            runs += std::to_string(start) + "+" + std::to_string(length) + " ";
        }
        CHECK((pass + n - start) % n < length);
    }
    // 0-3, 4-5, 6, 7-2 (into the next dispatch), 3-4, 5, 6, 7-2 (into the third), ...
    CHECK_EQ(runs, std::string("0+4 4+2 6+1 7+4 3+2 5+1 6+1 7+4 3+2 5+1 6+1 7+4 "));
    CHECK_EQ(switches, size_t(12));
}

namespace counters {

using gorocprof::core::CounterSample;
using gorocprof::core::PlanCounter;
using gorocprof::core::PlanPass;

using counter_plans::plan;
using counter_plans::value;

// The id of the tool's cache flush kernel in the fake (its ranges read values no pass has).
constexpr size_t kFlushKernel = 999999;

// Drives RangeCounters as the CUDA port does for `dispatches` replayed dispatches: a window opens at a pass
// that shares its configuration with the passes after it (passes_held, one spare range) and is decoded
// before the next pass that needs its own arm; a pass alone arms one range, and runs its kernel again while
// Stop says hardware passes are left (finish_hardware_passes). Every pass runs a kernel (id = dispatch * P
// + pass) and must read, for each counter of its own group, that kernel's value; with two kernels per pass
// the cache flush kernel runs before each (reruns included). Notes from arm go to `notes`, the kernels the
// further sessions ran to `reruns`. Returns the windows per dispatch as "first+passes" ("0+4 4+2 ...").
std::string drive(RangeCounters& rc, const std::vector<PlanPass>& passes, size_t dispatches, int* wrong,
                  std::set<std::string>* notes = nullptr, size_t* reruns = nullptr) {
    const size_t n = passes.size();
    std::string windows;
    std::vector<const std::vector<PlanCounter>*> pending;
    std::vector<size_t> pending_ids;
    std::vector<std::vector<CounterSample>> ranges;
    auto run = [&](size_t id) {
        if (rc.kernels_per_pass() == 2) fakecupti::kernel(kFlushKernel);
        fakecupti::kernel(id);
    };
    auto check = [&](const std::vector<PlanCounter>& group, const std::vector<CounterSample>& got, size_t id) {
        if (got.size() != group.size()) ++*wrong;
        for (size_t i = 0; i < got.size() && i < group.size(); ++i)
            if (got[i].counter != &group[i] || got[i].values.size() != 1 ||
                got[i].values[0] != value(group[i].name, id))
                ++*wrong;
    };
    // As the port does after a window's (or a lone pass's) last kernel: the same kernels again for every
    // further hardware pass of the configuration (union sessions), after which the decode has every counter.
    // A window's further sessions run its passes up to the last one they measure (session_runs; a probing
    // window's run the last pass again), a lone pass's its one kernel.
    auto finish = [&](const std::vector<size_t>& ids, const std::vector<const std::vector<PlanCounter>*>* window) {
        size_t sessions = 0;
        CHECK(rc.finish_sessions(
                    [&](size_t session) {
                        const size_t n = window ? rc.session_runs(session, *window) : ids.size();
                        for (size_t r = 0; r < n; ++r) run(ids[std::min(r, ids.size() - 1)]);
                        if (reruns) *reruns += n;
                        return PortStatus::success();
                    },
                    &sessions)
                  .ok);
        CHECK(!rc.sessions_incomplete());
    };
    auto flush = [&] {
        finish(pending_ids, &pending);
        CHECK(rc.collect_ranges(pending, &ranges).ok);
        CHECK_EQ(ranges.size(), pending.size());
        for (size_t i = 0; i < pending.size() && i < ranges.size(); ++i) check(*pending[i], ranges[i], pending_ids[i]);
        pending.clear();
        pending_ids.clear();
    };
    for (size_t d = 0; d < dispatches; ++d) {
        size_t window_end = 0;
        for (size_t p = 0; p < n; ++p) {
            const std::vector<PlanCounter>* group = &passes[p].counters;
            if (p >= window_end) {
                if (!pending.empty()) flush();
                const size_t held = rc.passes_held(p, n);
                windows += std::to_string(p) + "+" + std::to_string(held) + " ";
                window_end = held >= 2 ? p + held : 0;
                std::string note;
                CHECK(rc.arm(group, &note, held >= 2 ? held + 1 : 1).ok);
                if (notes && !note.empty()) notes->insert(note);
                if (!notes) CHECK(note.empty());
            }
            const size_t id = d * n + p;
            run(id);
            if (p < window_end) {
                pending.push_back(group);
                pending_ids.push_back(id);
            } else {
                finish({id}, nullptr);
                std::vector<CounterSample> got;
                CHECK(rc.collect(&got).ok);
                check(*group, got, id);
            }
        }
        if (!pending.empty()) flush();
        windows += "| ";
    }
    return windows;
}

// `count` groups of one metric each, named prefix0, prefix1, ...
std::vector<std::vector<std::string>> singles(const std::string& prefix, int count) {
    std::vector<std::vector<std::string>> groups;
    for (int i = 0; i < count; ++i) groups.push_back({prefix + std::to_string(i)});
    return groups;
}

// One context's RangeCounters planned over `groups`, with the fake CUPTI reset and metric costs set.
struct Setup {
    std::vector<PlanPass> passes;
    RangeCounters rc{reinterpret_cast<CUcontext>(0x10), "GH100"};
    explicit Setup(const std::vector<std::vector<std::string>>& groups, std::map<std::string, int> cost = {})
        : passes(plan(groups)) {
        fakecupti::state().value = value;
        fakecupti::state().cost = std::move(cost);
        // Every replay pass runs its kernel: the windows per dispatch of GOROCPROF_CUDA_UNION_RUNS=0.
        rc.allow_union_runs(false);
        rc.plan_passes(passes);
    }
};

}  // namespace counters

TEST_CASE(range_counters_measure_the_union_in_one_window_per_dispatch) {
    counters::Setup t({{"a", "b"}, {"a", "c"}, {"b", "c"}});  // all three fit one pass
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong), std::string("0+3 | 0+3 | 0+3 | "));
    CHECK_EQ(wrong, 0);
    CHECK(t.rc.single_config());
    CHECK_EQ(fakecupti::state().enables, size_t(1));  // never re-created
    CHECK_EQ(fakecupti::state().starts, size_t(3));   // one window per dispatch
}

TEST_CASE(range_counters_of_two_devices_measure_their_own_plans) {
    // One process, two GPUs: each context's RangeCounters is planned with its own device's groups (as
    // context_state does with passes_for_agent(ordinal)), and their dispatches interleave. Every pass must read
    // its own group's values from its own context's profiler object.
    fakecupti::reset();
    const std::vector<gorocprof::core::PlanPass> dev0 = counters::plan({{"a", "b"}, {"c"}});
    const std::vector<gorocprof::core::PlanPass> dev1 = counters::plan({{"x"}, {"y", "z"}, {"w"}});
    const CUcontext ctx0 = reinterpret_cast<CUcontext>(0x10), ctx1 = reinterpret_cast<CUcontext>(0x20);
    fakecupti::state().value = counters::value;
    RangeCounters rc0(ctx0, "GH100"), rc1(ctx1, "GH100");
    rc0.plan_passes(dev0);
    rc1.plan_passes(dev1);
    int wrong = 0;
    std::string windows;
    for (int d = 0; d < 3; ++d) {
        fakecupti::set_context(ctx0);
        windows += counters::drive(rc0, dev0, 1, &wrong);
        fakecupti::set_context(ctx1);
        windows += counters::drive(rc1, dev1, 1, &wrong);
    }
    CHECK_EQ(windows, std::string("0+2 | 0+3 | 0+2 | 0+3 | 0+2 | 0+3 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(2));  // one object per context, each kept
    rc0.disable();
    rc1.disable();
}

TEST_CASE(range_counters_measure_a_union_of_two_passes_in_sessions) {
    // S10's shape (ten single-metric groups whose union needs two hardware passes: capacity 8, so
    // {g0..g5} (cost 8) and {g6..g9}): every dispatch is one window of the union, one session per hardware
    // pass on the same profiler object, the ten kernels run again in the second session; no configuration
    // ever changes.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    fakecupti::state().capacity = 8;
    CHECK_EQ(t.rc.union_sessions(), size_t(2));
    int wrong = 0;
    std::set<std::string> notes;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong, &notes), std::string("0+10 | 0+10 | 0+10 | "));
    // Each pass's metric came from its own position in the session of the hardware pass holding it (the
    // fake reads NaN for a range its hardware pass did not run).
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(1));  // one object for the whole process
    CHECK_EQ(fakecupti::state().starts, size_t(6));   // two sessions per dispatch
    CHECK(notes.empty());                             // the union's pass count is not a group's problem
    // A pass armed on its own (one range: no window) still gets a one-pass configuration holding its group.
    std::string note;
    CHECK(t.rc.arm(&t.passes[4].counters, &note, 1).ok);
    CHECK_EQ(t.rc.armed_passes(), size_t(1));
    bool all = false;
    fakecupti::kernel(99);
    CHECK(t.rc.stop(&all).ok);
    CHECK(all);
    std::vector<gorocprof::core::CounterSample> got;
    CHECK(t.rc.collect(&got).ok);
    CHECK(got.size() == 1 && got[0].values.size() == 1 && got[0].values[0] == counters::value("g4", 99));
}

TEST_CASE(range_counters_rerun_only_the_passes_a_further_session_measures) {
    // S10 as the H200 splits it: nine metrics in the first hardware pass, the fifth group's alone in the second
    // (docs/h200/start-cost-2026-11-30T0905Z.md). The first window learns that (its second session runs the ten
    // passes and the last once more, whose range holds only the second hardware pass's metric); later windows'
    // second sessions run passes 0..4 only. Every value stays its own pass's kernel's.
    struct Row {
        const char* name;
        bool partial;
        std::map<std::string, size_t> pass_of;
        size_t reruns;  // kernels the second sessions ran over three dispatches
    } rows[] = {
        {"partial reruns", true, {{"g4", 1}}, 11 + 5 + 5},
        {"off (GOROCPROF_CUDA_PARTIAL_SESSIONS=0)", false, {{"g4", 1}}, 30},
        {"the second hardware pass holds the last groups", true, {{"g8", 1}, {"g9", 1}}, 11 + 10 + 10},
        {"it holds the first group", true, {{"g0", 1}}, 11 + 1 + 1},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        counters::Setup t(counters::singles("g", 10));
        fakecupti::state().capacity = 16;
        fakecupti::state().pass_of = r.pass_of;
        t.rc.plan_passes(t.passes);
        t.rc.allow_partial_sessions(r.partial);
        CHECK_EQ(t.rc.union_sessions(), size_t(2));
        int wrong = 0;
        size_t reruns = 0;
        CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong, nullptr, &reruns), std::string("0+10 | 0+10 | 0+10 | "));
        if (wrong != 0) check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(wrong) + " values wrong");
        if (reruns != r.reruns)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(reruns) + " reruns, want " +
                                                std::to_string(r.reruns));
        CHECK_EQ(fakecupti::state().enables, size_t(1));
        CHECK_EQ(fakecupti::state().starts, size_t(6));
    }
}

TEST_CASE(range_counters_trust_no_probe_with_a_foreign_kernel_in_its_first_session) {
    // A kernel that is no pass's in the probing window's first session fills the probe's range with every
    // metric: nothing is learned, the window decodes one entry too many (the caller empties it), and later
    // windows rerun every pass.
    counters::Setup t(counters::singles("g", 10));
    fakecupti::state().capacity = 16;
    fakecupti::state().pass_of = {{"g4", 1}};
    t.rc.plan_passes(t.passes);
    std::vector<const gorocprof::cuda::Group*> window;
    for (const gorocprof::core::PlanPass& p : t.passes) window.push_back(&p.counters);
    for (int w = 0; w < 2; ++w) {
        CHECK(t.rc.arm(window[0], nullptr, window.size() + 1).ok);
        for (size_t p = 0; p < window.size(); ++p) {
            fakecupti::kernel(w * 100 + p);
            if (w == 0 && p == 2) fakecupti::kernel(999);  // the foreign kernel
        }
        size_t sessions = 0, runs = 0;
        CHECK(t.rc.finish_sessions(
                      [&](size_t session) {
                          runs = t.rc.session_runs(session, window);
                          for (size_t r = 0; r < runs; ++r) fakecupti::kernel(w * 100 + std::min(r, window.size() - 1));
                          return PortStatus::success();
                      },
                      &sessions)
                  .ok);
        std::vector<std::vector<gorocprof::core::CounterSample>> got;
        CHECK(t.rc.collect_ranges(window, &got).ok);
        CHECK_EQ(runs, (w == 0 ? window.size() + 1 : window.size()));  // the probe, then full reruns
        CHECK_EQ(got.size(), (w == 0 ? window.size() + 1 : window.size()));
    }
}

TEST_CASE(range_counters_leave_unions_of_many_passes_to_runs) {
    // A union that needs more than kMaxUnionSessions hardware passes would run every kernel that many times:
    // configuration runs instead.
    counters::Setup t(counters::singles("h", 5), {{"h0", 4}, {"h1", 4}, {"h2", 4}, {"h3", 4}, {"h4", 4}});  // five passes together
    CHECK_EQ(t.rc.union_sessions(), size_t(0));
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 1, &wrong), std::string("0+1 1+1 2+1 3+1 4+1 | "));
    CHECK_EQ(wrong, 0);
}

TEST_CASE(range_counters_measure_a_multipass_group_in_union_sessions) {
    // {x,y} needs two hardware passes by itself: in a union window its x comes from the first session's
    // run and its y from the second's, both at the pass's position.
    counters::Setup t({{"x", "y"}, {"x"}, {"y"}}, {{"x", 3}, {"y", 3}});
    int wrong = 0;
    std::set<std::string> notes;
    CHECK_EQ(counters::drive(t.rc, t.passes, 2, &wrong, &notes), std::string("0+3 | 0+3 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(1));
    CHECK_EQ(fakecupti::state().starts, size_t(4));
    // The user's group needs two hardware passes by itself: they still hear it (the union's count they do not).
    CHECK_EQ(notes.size(), size_t(1));
    CHECK(!notes.empty() && notes.begin()->find("counter group {x,y} needs 2 hardware passes") == 0);
}

TEST_CASE(range_counters_discard_a_union_window_cut_short) {
    using counters::CounterSample;
    using counters::PlanCounter;
    // The replay ends after the first session of a union window: decoding would read the second hardware
    // pass's metrics as 0, so the window is discarded (empty, a failure) and the next window gets a new
    // object (the old one may be left inside the configuration's passes); its values are right again.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    fakecupti::state().capacity = 8;
    std::string note;
    CHECK(t.rc.arm(&t.passes[0].counters, &note, 11).ok);
    for (size_t id = 0; id < 10; ++id) fakecupti::kernel(id);
    bool all = true;
    CHECK(t.rc.stop(&all).ok);
    CHECK(!all);
    CHECK(t.rc.sessions_incomplete());
    std::vector<const std::vector<PlanCounter>*> groups_of(10, nullptr);
    for (size_t i = 0; i < 10; ++i) groups_of[i] = &t.passes[i].counters;
    std::vector<std::vector<CounterSample>> ranges;
    CHECK(!t.rc.collect_ranges(groups_of, &ranges).ok);
    CHECK(ranges.empty());
    CHECK(!t.rc.sessions_incomplete());
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 1, &wrong), std::string("0+10 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(2));
}

TEST_CASE(range_counters_empty_a_multipass_pass_that_ran_once) {
    using counters::CounterSample;
    using counters::PlanCounter;
    // A group that needs two hardware passes, armed for a dispatch that is not replayed (one run): its
    // counters are all empty, not the first pass's values beside zeros.
    counters::Setup t({{"x", "y"}}, {{"x", 3}, {"y", 3}});
    std::string note;
    CHECK(t.rc.arm(&t.passes[0].counters, &note, 1).ok);
    CHECK(note.find("counter group {x,y} needs 2 hardware passes") == 0);
    fakecupti::kernel(5);
    bool all = true;
    CHECK(t.rc.stop(&all).ok);
    CHECK(!all);
    std::vector<CounterSample> got;
    const PortStatus st = t.rc.collect(&got);
    CHECK(!st.ok);
    CHECK(st.message().find("not all of them ran") != std::string::npos);
    CHECK_EQ(got.size(), size_t(2));
    for (const CounterSample& c : got) CHECK(c.values.size() == 1 && std::isnan(c.values[0]));
}

TEST_CASE(range_counters_fall_back_to_runs_when_the_union_is_refused) {
    // CUPTI refuses the union's configuration: that window's arm fails (its passes get no counters), and
    // from then on the windows are configuration runs, whose values are right.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    fakecupti::state().capacity = 8;
    fakecupti::state().reject_config = [](const std::vector<std::string>& m) { return m.size() == 10; };
    CHECK_EQ(t.rc.passes_held(0, 10), size_t(10));
    std::string note;
    const PortStatus st = t.rc.arm(&t.passes[0].counters, &note, 11);
    CHECK(!st.ok);
    CHECK(st.message().find("configuration runs instead") != std::string::npos);
    CHECK_EQ(t.rc.union_sessions(), size_t(0));
    int wrong = 0;
    // Runs {0..5} and {6..9, 0..3} (cost 8 each); the second dispatch keeps the latter for its passes 0-3.
    CHECK_EQ(counters::drive(t.rc, t.passes, 2, &wrong), std::string("0+6 6+4 | 0+4 4+6 | "));
    CHECK_EQ(wrong, 0);
}

TEST_CASE(range_counters_plan_only_the_pass_of_an_application_replay_run) {
    // Application replay: this process measures pass 5 of S10's shape on every dispatch. Planned alone, the
    // group's own configuration is armed (a cheaper Start than the union's: docs/perf.md, attempt 12), and kept.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    t.rc.plan_passes(t.passes, 5);
    CHECK_EQ(t.rc.union_sessions(), size_t(0));
    for (size_t d = 0; d < 3; ++d) {
        std::string note;
        CHECK_EQ(t.rc.passes_held(0, 1), size_t(1));
        CHECK(t.rc.arm(&t.passes[5].counters, &note, 1).ok);
        CHECK(note.empty());
        fakecupti::kernel(d);
        bool all = false;
        CHECK(t.rc.stop(&all).ok);
        CHECK(all);
        std::vector<gorocprof::core::CounterSample> got;
        CHECK(t.rc.collect(&got).ok);
        CHECK(got.size() == 1 && got[0].values.size() == 1 && got[0].values[0] == counters::value("g5", d));
    }
    // With the duration metric, which fits the group's hardware pass (its ranges then give the durations).
    CHECK(fakecupti::state().last_config == (std::vector<std::string>{"g5", RangeCounters::kDurationMetric}));
    CHECK_EQ(fakecupti::state().enables, size_t(1));
}

TEST_CASE(range_counters_switch_configuration_runs_and_window_them) {
    // Ten single-metric groups as in the bench's S10: the union needs two passes. Costs (capacity 4):
    // g0-g3 cost 1, g4 and g5 cost 2, g6-g9 cost 1 (so g4-g5 and g6-g9 fit; g0-g3 with g4 do not).
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    const std::string windows = counters::drive(t.rc, t.passes, 3, &wrong);
    CHECK(!t.rc.single_config());
    // Each pass's counters came from its own kernel with the right value: the object was re-created on
    // every change (the fake, like the H200, reads 0 for a configuration given to a used object).
    CHECK_EQ(wrong, 0);
    // Runs: {0..3} (cost 4), {4,5} (cost 4), {6..9} (cost 4: no room to wrap into the next dispatch), the
    // same in every dispatch.
    CHECK_EQ(windows, std::string("0+4 4+2 6+4 | 0+4 4+2 6+4 | 0+4 4+2 6+4 | "));
    CHECK_EQ(fakecupti::state().starts, size_t(9));  // one Start per window
    CHECK_EQ(fakecupti::state().enables, size_t(9));  // a change of configuration at every window
    CHECK_EQ(fakecupti::state().disables, size_t(8));
}

TEST_CASE(range_counters_change_configuration_rather_than_add_a_window) {
    // Costs 1,1,2 | 2,1 (capacity 4): from pass 0, {0,1,2} fill a pass; the run from 3 is {3,4} and the
    // next dispatch's 0 (2+1+1). That run holds pass 0 of the next dispatch but not pass 1, so keeping it
    // would cost three windows there ({0}, {1,2}, {3,4}) instead of two: the configuration changes.
    counters::Setup t({{"m0"}, {"m1"}, {"m2"}, {"m3"}, {"m4"}}, {{"m2", 2}, {"m3", 2}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong), std::string("0+3 3+2 | 0+3 3+2 | 0+3 3+2 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().starts, size_t(6));
    CHECK_EQ(fakecupti::state().enables, size_t(6));
}

TEST_CASE(range_counters_keep_a_configuration_into_the_next_dispatch) {
    // Six groups of cost 1 (capacity 4): two windows per dispatch at best. The run from 4 is {4,5,0,1}: the
    // next dispatch keeps it for passes 0-1 and takes {2..5} (still two windows, one change fewer); the one
    // after that cannot keep {2..5} (it does not hold pass 0) and starts over with {0..3}.
    counters::Setup t({{"k0"}, {"k1"}, {"k2"}, {"k3"}, {"k4"}, {"k5"}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong), std::string("0+4 4+2 | 0+2 2+4 | 0+4 4+2 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().starts, size_t(6));
    CHECK_EQ(fakecupti::state().enables, size_t(5));  // {0..3}, {4,5,0,1}, {2..5}, {0..3}, {4,5,0,1}
}

TEST_CASE(range_counters_give_a_multipass_group_its_own_runs) {
    // {x,y} needs two hardware passes (cost 3 each); {x} and {y} after it are held by that configuration but
    // must not share its window (the window's one Start/Stop would submit only the first hardware pass) nor
    // keep it (each of their passes would run the kernel twice): each gets its own one-pass configuration.
    counters::Setup t({{"x", "y"}, {"x"}, {"y"}}, {{"x", 3}, {"y", 3}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    std::set<std::string> notes;
    CHECK_EQ(counters::drive(t.rc, t.passes, 2, &wrong, &notes), std::string("0+1 1+1 2+1 | 0+1 1+1 2+1 | "));
    CHECK_EQ(wrong, 0);  // x and y of pass 0 come from its two kernel runs
    CHECK_EQ(fakecupti::state().enables, size_t(6));
    CHECK_EQ(fakecupti::state().starts, size_t(8));  // pass 0: two hardware passes
    // The user hears once that the group needs two hardware passes, on every arm that uses it.
    CHECK_EQ(notes.size(), size_t(1));
    CHECK(!notes.empty() && notes.begin()->find("counter group {x,y} needs 2 hardware passes") == 0);
}

TEST_CASE(range_counters_skip_the_cache_flush_kernel_before_each_pass) {
    // --cache-control all: a flush kernel runs before every pass's kernel, inside the armed configuration.
    // Each pass must still read its own kernel, in one window (the union), in union sessions and in runs.
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        std::map<std::string, int> cost;
        bool sessions;
    } rows[] = {
        {"the union in one window", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, {}, true},
        {"union sessions", counters::singles("g", 10), {{"g4", 2}, {"g5", 2}}, true},
        {"configuration runs", counters::singles("g", 10), {{"g4", 2}, {"g5", 2}}, false},
        {"passes alone (groups of several hardware passes)", {{"x", "y"}, {"x"}, {"y"}}, {{"x", 3}, {"y", 3}}, false},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        counters::Setup t(r.groups, r.cost);
        t.rc.allow_union_sessions(r.sessions);
        t.rc.set_kernels_per_pass(2);
        int wrong = 0;
        std::set<std::string> notes;
        counters::drive(t.rc, t.passes, 2, &wrong, &notes);
        if (wrong != 0) check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(wrong) + " values wrong");
    }
}

TEST_CASE(range_counters_union_runs_run_a_dispatch_once_per_hardware_pass_of_the_union) {
    // A dispatch outside any window across dispatches (CudaPort::arm_shared, finish_shared): one range of the
    // union armed, the kernel run once per hardware pass (memory restored before each further run by the port),
    // and every replay pass's group picked from the union's values. Four groups of two hardware passes: 2 runs
    // per dispatch, not 4 x 2; a union over kMaxUnionRuns hardware passes is left to the per-pass windows.
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        int capacity;
        size_t hw;  // 0: no union runs
    } rows[] = {
        {"the issue's shape", {{"a", "b"}, {"c", "d"}, {"e"}, {"a", "f"}}, 4, 2},
        {"a union in one hardware pass", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 4, 1},
        {"a union of too many hardware passes", counters::singles("g", 20), 1, 0},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        counters::Setup t(r.groups);
        fakecupti::state().capacity = r.capacity;
        t.rc.allow_union_runs(true);
        t.rc.plan_passes(t.passes);
        CHECK_EQ(t.rc.union_runs(), r.hw != 0);
        if (r.hw == 0) {
            CHECK_EQ(t.rc.steady_passes(), size_t(0));
            continue;
        }
        CHECK_EQ(t.rc.steady_passes(), r.hw);
        size_t runs = 0;
        for (size_t d = 0; d < 3; ++d) {
            const size_t id = 100 + d;
            CHECK(t.rc.arm(t.rc.steady_config(), nullptr, 1).ok);
            fakecupti::kernel(id);
            ++runs;
            size_t sessions = 0;
            CHECK(t.rc.finish_sessions(
                          [&](size_t) {
                              fakecupti::kernel(id);
                              ++runs;
                              return PortStatus::success();
                          },
                          &sessions)
                      .ok);
            std::vector<gorocprof::core::CounterSample> all, got;
            CHECK(t.rc.collect(&all).ok);
            for (const auto& p : t.passes) {
                gorocprof::cuda::pick_samples(p.counters, all, &got);
                bool right = got.size() == p.counters.size();
                for (size_t i = 0; right && i < got.size(); ++i)
                    right = got[i].counter == &p.counters[i] && got[i].values[0] == counters::value(p.counters[i].name, id);
                if (!right) check::fail(__FILE__, __LINE__, std::string(r.name) + ": a pass's values");
            }
        }
        if (runs != 3 * r.hw) check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(runs) + " runs");
        CHECK_EQ(fakecupti::state().starts, 3 * r.hw);
        CHECK_EQ(fakecupti::state().enables, size_t(1));
    }
}

TEST_CASE(range_counters_reenabling_is_what_keeps_values_right) {
    // The fake's rule itself: without a re-created object a second configuration reads 0 (what the H200
    // did with GOROCPROF_CUDA_REENABLE_ON_SWITCH=0), so the cases above would catch a missing re-creation.
    fakecupti::state().value = counters::value;
    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    CHECK_EQ(cuptiRangeProfilerEnable(&en), CUPTI_SUCCESS);
    std::vector<uint8_t> image(256);
    const std::string first = "x\n", second = "y\n";
    for (const std::string* cfg : {&first, &second}) {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = en.pRangeProfilerObject;
        init.counterDataSize = image.size();
        init.pCounterData = image.data();
        CHECK_EQ(cuptiRangeProfilerCounterDataImageInitialize(&init), CUPTI_SUCCESS);
        CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
        sc.pRangeProfilerObject = en.pRangeProfilerObject;
        sc.pConfig = reinterpret_cast<const uint8_t*>(cfg->data());
        sc.configSize = cfg->size();
        sc.pCounterDataImage = image.data();
        sc.counterDataImageSize = image.size();
        sc.maxRangesPerPass = 1;
        CHECK_EQ(cuptiRangeProfilerSetConfig(&sc), CUPTI_SUCCESS);
        CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = en.pRangeProfilerObject;
        CHECK_EQ(cuptiRangeProfilerStart(&st), CUPTI_SUCCESS);
        fakecupti::kernel(7);
        CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = en.pRangeProfilerObject;
        CHECK_EQ(cuptiRangeProfilerStop(&sp), CUPTI_SUCCESS);
        const char* name = cfg == &first ? "x" : "y";
        double v = -1;
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pCounterDataImage = image.data();
        ev.counterDataImageSize = image.size();
        ev.ppMetricNames = &name;
        ev.numMetrics = 1;
        ev.pMetricValues = &v;
        CHECK_EQ(cuptiProfilerHostEvaluateToGpuValues(&ev), CUPTI_SUCCESS);
        CHECK_EQ(v, cfg == &first ? counters::value("x", 7) : 0.0);
    }
    CUpti_RangeProfiler_Disable_Params dis{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = en.pRangeProfilerObject;
    CHECK_EQ(cuptiRangeProfilerDisable(&dis), CUPTI_SUCCESS);
}
