// Host-side tests of the counter windows that outlast their dispatches (lasting_window.*), against the fake
// CUPTI profiler (fake_cupti.hpp): every kernel that runs while the profiler is started is a range, so a
// kernel of the tool or of the application that landed in a window unowned would shift every later
// dispatch's values. The cases drive RangeCounters and LastingWindow in the order the CUDA port does
// (launches.cpp's open_dispatch and close_dispatch, cuda_port.cpp's arm_app_launch and submit) and count
// the ranges against the dispatches.
#include "../testkit/check.hpp"

#include "fake_driver.hpp"
#include "lasting_fixture.hpp"
#include "options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>


using namespace lasting_fixture;

namespace {

struct Sequence {
    size_t dispatches = 0;
    size_t replay_every = 0;     // every n-th dispatch (n > 0) is replayed
    size_t foreign_after = kNever;  // a kernel the tool does not see runs after this dispatch
    size_t failed = kNever;      // this dispatch's launch fails after its cache flush was queued
    // Replayed dispatches may join the window across dispatches (GOROCPROF_CUDA_LASTING_REPLAYED), and the
    // context's tracked allocations their snapshot starts from (joining needs no reach scan of them). One
    // that does not join runs its reach scan and timing run and its passes in a window of their own.
    bool replayed_may = false;
    std::vector<gorocprof::cuda::Allocation> footprint;
};

struct Result {
    std::vector<std::pair<uint64_t, std::vector<long>>> written;  // per dispatch written: its id, per pass its kernel
    size_t failures = 0;
    size_t wrong_durations = 0;  // passes of a timed window whose duration is not their range's duration metric
};

std::vector<gorocprof::cuda::Allocation> footprint(size_t allocations, size_t bytes_each) {
    std::vector<gorocprof::cuda::Allocation> out(allocations);
    for (size_t i = 0; i < allocations; ++i) {
        out[i].base = 0x100000000ull + i * (bytes_each + 4096);
        out[i].size = bytes_each;
    }
    return out;
}

// The expected `written` when every value is right: each dispatch but the failed one, in order.
std::vector<std::pair<uint64_t, std::vector<long>>> all_right(const Sequence& s, size_t passes) {
    std::vector<std::pair<uint64_t, std::vector<long>>> out;
    for (size_t d = 0; d < s.dispatches; ++d) {
        if (d == s.failed) continue;
        const bool replayed = s.replay_every && d % s.replay_every == s.replay_every - 1;
        std::vector<long> kernels;
        for (size_t p = 0; p < (replayed ? passes : 1); ++p) kernels.push_back(static_cast<long>(kernel_id(d, p)));
        out.emplace_back(d, kernels);
    }
    return out;
}

// As the port does for `s`: a dispatch that may not join the lasting window closes it at its ENTER; a
// replayed one then runs the tool's reach scan and timing run and its passes in a window of their own; one
// that joins opens a window when none is open or the open one is full, and its record waits for the decode.
Result drive(RangeCounters& rc, const std::vector<PlanPass>& passes, size_t capacity, const Sequence& s) {
    LastingWindow lw;
    lw.set_capacity(capacity);
    Result r;
    const bool flush = rc.kernels_per_pass() == 2;
    const Group* first = &passes[0].counters;
    const bool timed = rc.timed();
    auto write = [&](const DispatchFacts& f, std::vector<PendingPass>& ps, size_t at, size_t n, const Outcome&) {
        r.written.emplace_back(f.info.dispatch_id, written_kernels(ps, at, n, timed, &r.wrong_durations));
    };
    auto close = [&] {
        if (!lw.close(rc, write).ok) ++r.failures;
    };
    const size_t n = passes.size();
    for (size_t d = 0; d < s.dispatches; ++d) {
        JoinFacts f;
        f.windows = f.counters = f.app_launch = true;
        f.steady = rc.steady();
        f.replayed = s.replay_every && d % s.replay_every == s.replay_every - 1;
        f.capacity = capacity;
        f.passes = f.replayed ? n : 1;
        f.replayed_may = s.replayed_may;
        f.timed = timed;
        f.scan = gorocprof::cuda::snapshot_scans(s.footprint, false, true);
        const bool joins = gorocprof::cuda::may_last(f);
        if (!joins) close();
        if (f.replayed && !joins) {
            fakecupti::kernel(kReachScan);
            fakecupti::kernel(kReachScan);
            if (flush) fakecupti::kernel(kFlushKernel);
            fakecupti::kernel(kTimingRun);
            CHECK(rc.arm(first, nullptr, rc.passes_held(0, n) + 1).ok);
            std::vector<const Group*> groups;
            for (size_t p = 0; p < n; ++p) {
                if (flush) fakecupti::kernel(kFlushKernel);
                fakecupti::kernel(kernel_id(d, p));
                groups.push_back(&passes[p].counters);
            }
            std::vector<std::vector<CounterSample>> got;
            CHECK(rc.collect_ranges(groups, &got).ok);
            std::vector<long> kernels;
            for (size_t p = 0; p < n; ++p) kernels.push_back(p < got.size() ? kernel_of(*groups[p], got[p], kernel_id(d, p)) : -3);
            r.written.emplace_back(d, kernels);
            continue;
        }
        if (!lw.open() || !lw.room(f.passes)) {
            close();
            CHECK(rc.arm(first, nullptr, lw.ranges()).ok);
            lw.opened();
        }
        if (flush) fakecupti::kernel(kFlushKernel);
        if (d == s.failed) {
            if (flush) {  // CudaPort::launch_failed: the flush's range ends the window
                lw.add_hole();
                close();
            }
            continue;
        }
        // A replayed dispatch's snapshot and restores between its passes are copies, never ranges; each pass
        // is its flush and its launch (the application's, then the relaunches).
        for (size_t p = 0; p < f.passes; ++p) {
            if (p > 0 && flush) fakecupti::kernel(kFlushKernel);
            fakecupti::kernel(kernel_id(d, p));
            PassRecord rec;
            rec.start_ns = rec.end_ns = static_cast<int64_t>(kernel_id(d, p));
            lw.add_pass(std::move(rec), f.replayed ? &passes[p].counters : first);
        }
        DispatchFacts facts;
        facts.info.dispatch_id = d;
        lw.end_dispatch(facts, Outcome{});
        if (d == s.foreign_after) fakecupti::kernel(kForeign);
    }
    close();  // at exit
    return r;
}

}  // namespace

TEST_CASE(lasting_windows_count_ranges_against_dispatches) {
    // Every dispatch must read its own kernel's values and nothing of the tool's kernels (cache flush before
    // each pass, reach scans and timing runs of replayed dispatches), with one Start per window.
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        size_t kernels_per_pass, capacity;
        Sequence seq;
        size_t starts;
        size_t enables = 1;  // one configuration: re-created only for a window larger than the object's first
    } rows[] = {
        {"one group, a flush before each", {{"a", "b"}}, 2, 4, {10}, 3},
        {"one group, no flush", {{"a", "b"}}, 1, 4, {10}, 3},
        {"one dispatch per window", {{"a"}}, 2, 1, {3}, 3},
        {"a union of three groups, every third dispatch replayed", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 2, 4,
         {12, 3}, 8},
        {"a launch that fails after its flush", {{"a"}}, 2, 4, {6, 0, kNever, 2}, 2},
        // Windows of 8 passes: 1+1+3+1+1 | 3+1+1+3 | 1+1+3 (a replayed dispatch never straddles two).
        {"replayed dispatches join, a small footprint copied whole", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 2, 8,
         {12, 3, kNever, kNever, true, footprint(2, 1 << 20)}, 3},
        {"replayed, no flush", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 1, 8,
         {12, 3, kNever, kNever, true, footprint(16, 4 << 20)}, 3},
        // Windows of 4: 1+1 | own | 1+1 | own | ...: each replayed dispatch closes the window before its scan.
        {"replayed with a footprint that needs the reach scan", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 2, 4,
         {12, 3, kNever, kNever, true, footprint(17, 1 << 20)}, 8},
        {"replayed with 65 MiB to copy", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 2, 8,
         {12, 3, kNever, kNever, true, footprint(1, 65 << 20)}, 8},
        {"replayed, a window too small for their passes", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 2, 2,
         {12, 3, kNever, kNever, true, footprint(1, 4096)}, 8, 2},
        {"replayed without the duration metric in the configuration", {{"a", "b"}, {"c", "d"}}, 2, 8,
         {12, 3, kNever, kNever, true, footprint(1, 4096)}, 8},
    };
    for (const Row& row : rows) {
        fakecupti::reset();
        Setup t(row.groups, row.kernels_per_pass);
        const Result r = drive(t.rc, t.passes, row.capacity, row.seq);
        if (r.written != all_right(row.seq, t.passes.size()) || r.failures != 0 || r.wrong_durations != 0)
            check::fail(__FILE__, __LINE__, std::string(row.name) + ": values, durations or dispatches wrong");
        if (fakecupti::state().starts != row.starts)
            check::fail(__FILE__, __LINE__, std::string(row.name) + ": " + std::to_string(fakecupti::state().starts) +
                                                " Starts, want " + std::to_string(row.starts));
        if (fakecupti::state().enables != row.enables)
            check::fail(__FILE__, __LINE__, std::string(row.name) + ": " + std::to_string(fakecupti::state().enables) +
                                                " profiler objects, want " + std::to_string(row.enables));
    }
}

// As the port drives a replayed dispatch's windows with the cache flush before each pass: a window's first
// flush is queued before its arm when flush_may_lead says so (cuda_port.cpp, arm_counters), inside it
// otherwise. Returns the windows that took the lead; `wrong` counts values that are not their kernel's.
size_t drive_with_lead(RangeCounters& rc, const std::vector<PlanPass>& passes, size_t dispatches, int* wrong) {
    const size_t n = passes.size();
    size_t leads = 0;
    std::vector<const Group*> pending;
    std::vector<size_t> ids;
    auto run = [](size_t id) {
        fakecupti::kernel(kFlushKernel);
        fakecupti::kernel(id);
    };
    auto finish = [&](const std::vector<size_t>& again) {
        size_t sessions = 0;
        CHECK(rc.finish_sessions(
                    [&](size_t session) {
                        const size_t k = again.size() > 1 ? rc.session_runs(session, pending) : 1;
                        for (size_t r = 0; r < k; ++r) run(again[std::min(r, again.size() - 1)]);
                        return PortStatus::success();
                    },
                    &sessions)
                  .ok);
    };
    auto check_all = [&](const std::vector<std::vector<CounterSample>>& got) {
        CHECK_EQ(got.size(), pending.size());
        for (size_t i = 0; i < pending.size() && i < got.size(); ++i)
            if (kernel_of(*pending[i], got[i], ids[i]) != static_cast<long>(ids[i])) ++*wrong;
        pending.clear();
        ids.clear();
    };
    for (size_t d = 0; d < dispatches; ++d) {
        size_t end = 0;
        for (size_t p = 0; p < n; ++p) {
            const Group* group = &passes[p].counters;
            const size_t id = kernel_id(d, p);
            bool led = false;
            if (p >= end) {
                std::vector<std::vector<CounterSample>> got;
                if (!pending.empty()) {
                    finish(ids);
                    CHECK(rc.collect_ranges(pending, &got).ok);
                    check_all(got);
                }
                const size_t held = rc.passes_held(p, n);
                end = held >= 2 ? p + held : 0;
                const size_t ranges = held >= 2 ? held + 1 : 1;
                led = rc.flush_may_lead(group, ranges);
                if (led) fakecupti::kernel(kFlushKernel);  // before the Start: no range
                leads += led ? 1 : 0;
                CHECK(rc.arm(group, nullptr, ranges, led).ok);
            }
            if (!led) fakecupti::kernel(kFlushKernel);
            fakecupti::kernel(id);
            pending.push_back(group);
            ids.push_back(id);
            if (p >= end) {  // a pass alone
                finish({id});
                std::vector<CounterSample> got;
                CHECK(rc.collect(&got).ok);
                if (kernel_of(*group, got, id) != static_cast<long>(id)) ++*wrong;
                pending.clear();
                ids.clear();
            }
        }
        if (!pending.empty()) {
            std::vector<std::vector<CounterSample>> got;
            finish(ids);
            CHECK(rc.collect_ranges(pending, &got).ok);
            check_all(got);
        }
    }
    return leads;
}

TEST_CASE(range_counters_read_windows_whose_first_flush_ran_before_the_start) {
    // A flush queued before the Start is no range: each pass must still read its own kernel. Configurations of
    // several hardware passes keep every flush inside (their reruns' ranges must line up with the first session).
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        std::map<std::string, int> cost;
        bool sessions;
        size_t leads;  // windows (or lone passes) over 3 dispatches that took the lead
    } rows[] = {
        {"the union in one window", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, {}, true, 3},
        {"configuration runs", {{"g0"}, {"g1"}, {"g2"}, {"g3"}, {"g4"}, {"g5"}}, {{"g2", 2}, {"g3", 2}, {"g4", 2}}, false, 9},
        {"union sessions", {{"g0"}, {"g1"}, {"g2"}, {"g3"}, {"g4"}, {"g5"}}, {{"g2", 2}, {"g3", 2}, {"g4", 2}}, true, 0},
        {"a group of two hardware passes alone", {{"x", "y"}}, {{"x", 3}, {"y", 3}}, false, 0},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        Setup t(r.groups, 2, r.cost);
        t.rc.allow_union_sessions(r.sessions);
        int wrong = 0;
        const size_t leads = drive_with_lead(t.rc, t.passes, 3, &wrong);
        if (wrong != 0) check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(wrong) + " values wrong");
        if (leads != r.leads)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(leads) + " leads, want " +
                                                std::to_string(r.leads));
    }
}

TEST_CASE(range_counters_give_a_window_larger_than_the_first_a_new_object) {
    // The fake records, like the H200, at most twice an object's first maxRangesPerPass ranges per window: a
    // lasting window after a lone pass (a graph's kernel node before the application's launches) must still
    // read every dispatch's own kernel, on a new object.
    Setup t({{"a", "b"}}, 2);
    std::vector<CounterSample> got;
    CHECK(t.rc.arm(&t.passes[0].counters, nullptr, 1).ok);
    fakecupti::kernel(kFlushKernel);
    fakecupti::kernel(kernel_id(99, 0));
    CHECK(t.rc.collect(&got).ok);
    CHECK_EQ(kernel_of(t.passes[0].counters, got, kernel_id(99, 0)), static_cast<long>(kernel_id(99, 0)));
    Sequence s{10};
    const Result r = drive(t.rc, t.passes, 4, s);
    CHECK(r.written == all_right(s, 1));
    CHECK_EQ(r.failures, size_t(0));
    CHECK_EQ(fakecupti::state().enables, size_t(2));  // re-created once, for the first larger window
}

TEST_CASE(lasting_window_with_a_foreign_kernel_writes_its_dispatches_empty) {
    // A kernel that is no dispatch's (a memset the driver runs as a kernel, missed by the tool) inside the
    // window: the spare range shows it, that window's dispatches are all written with empty counters, and
    // the next window's values are right again.
    for (size_t after : {size_t(1), size_t(3)}) {
        fakecupti::reset();
        Setup t({{"a"}}, 2);
        Sequence s{8};
        s.foreign_after = after;
        const Result r = drive(t.rc, t.passes, 4, s);
        auto want = all_right(s, 1);
        for (size_t d = 0; d < 4; ++d) want[d].second = {-1};
        CHECK_EQ(r.failures, size_t(1));
        if (r.written != want) check::fail(__FILE__, __LINE__, "foreign kernel after " + std::to_string(after));
    }
}

TEST_CASE(lasting_windows_only_for_dispatches_whose_only_kernel_is_their_launch) {
    JoinFacts yes;
    yes.windows = yes.counters = yes.steady = yes.app_launch = true;
    yes.capacity = 64;
    JoinFacts replayed = yes;
    replayed.replayed = replayed.replayed_may = replayed.timed = true;
    replayed.passes = 3;
    struct Row {
        const char* name;
        JoinFacts f;
        bool joins;
    } rows[] = {
        {"a launch of the application that is not replayed", yes, true},
        {"windows off", [&] { JoinFacts f = yes; f.windows = false; return f; }(), false},
        {"no counters", [&] { JoinFacts f = yes; f.counters = false; return f; }(), false},
        {"configurations change between passes", [&] { JoinFacts f = yes; f.steady = false; return f; }(), false},
        {"replayed, durations from the configuration, no reach scan", replayed, true},
        {"replayed, off (GOROCPROF_CUDA_LASTING_REPLAYED=0)", [&] { JoinFacts f = replayed; f.replayed_may = false; return f; }(), false},
        {"replayed, durations need the timing run", [&] { JoinFacts f = replayed; f.timed = false; return f; }(), false},
        {"replayed, the snapshot runs the reach scan", [&] { JoinFacts f = replayed; f.scan = true; return f; }(), false},
        {"replayed, more passes than a window holds", [&] { JoinFacts f = replayed; f.capacity = 2; return f; }(), false},
        {"a window of no passes", [&] { JoinFacts f = yes; f.capacity = 0; return f; }(), false},
        {"a graph's kernel node", [&] { JoinFacts f = yes; f.app_launch = false; return f; }(), false},
        {"unwatched", [&] { JoinFacts f = yes; f.unwatched = true; return f; }(), false},
    };
    for (const Row& r : rows)
        if (gorocprof::cuda::may_last(r.f) != r.joins) check::fail(__FILE__, __LINE__, r.name);
}

TEST_CASE(lasting_window_spoiled_or_abandoned_writes_its_dispatches_empty) {
    // A relaunch that failed after its flush (spoil): the window's ranges may be a half pass off, so nothing of
    // it is trusted. A run the timeout guard left queued (abandon): the profiler is not touched (stopping it
    // would wait for the run), the passes are written empty, and once the counters are discarded the next
    // window reads right again.
    for (bool abandon : {false, true}) {
        fakecupti::reset();
        Setup t({{"a", "b"}, {"a", "c"}}, 2);
        LastingWindow lw;
        lw.set_capacity(8);
        std::vector<std::pair<uint64_t, std::vector<long>>> written;
        auto write = [&](const DispatchFacts& f, std::vector<PendingPass>& ps, size_t at, size_t n, const Outcome&) {
            std::vector<long> kernels;
            for (size_t i = at; i < at + n; ++i)
                kernels.push_back(kernel_of(*ps[i].group, ps[i].rec.counters, static_cast<size_t>(ps[i].rec.start_ns)));
            written.emplace_back(f.info.dispatch_id, kernels);
        };
        auto pass = [&](size_t d, size_t p) {
            fakecupti::kernel(kFlushKernel);
            fakecupti::kernel(kernel_id(d, p));
            PassRecord rec;
            rec.start_ns = static_cast<int64_t>(kernel_id(d, p));
            lw.add_pass(std::move(rec), &t.passes[p].counters);
        };
        auto end = [&](size_t d) {
            DispatchFacts facts;
            facts.info.dispatch_id = d;
            lw.end_dispatch(facts, Outcome{});
        };
        CHECK(t.rc.arm(&t.passes[0].counters, nullptr, lw.ranges()).ok);
        lw.opened();
        pass(0, 0);
        pass(0, 1);
        end(0);
        pass(1, 0);
        if (abandon) {
            lw.abandon();  // pass 1's run did not complete in time
        } else {
            fakecupti::kernel(kFlushKernel);  // pass 1's relaunch failed after its flush
            lw.spoil();
        }
        end(1);
        const auto starts = fakecupti::state().starts;
        const PortStatus st = lw.close(t.rc, write);
        CHECK_EQ(st.ok, abandon);  // a spoiled window fails (windows go off); an abandoned one was reported already
        CHECK(written == (std::vector<std::pair<uint64_t, std::vector<long>>>{{0, {-1, -1}}, {1, {-1}}}));
        CHECK_EQ(t.rc.armed() != nullptr, abandon);  // abandoned: the profiler left as it was
        if (abandon) t.rc.discard();                 // what CudaPort::recovered does once the run completed
        written.clear();
        CHECK(t.rc.arm(&t.passes[0].counters, nullptr, lw.ranges()).ok);
        lw.opened();
        pass(2, 0);
        pass(2, 1);
        end(2);
        CHECK(lw.close(t.rc, write).ok);
        CHECK(written == (std::vector<std::pair<uint64_t, std::vector<long>>>{
                             {2, {static_cast<long>(kernel_id(2, 0)), static_cast<long>(kernel_id(2, 1))}}}));
        CHECK_EQ(fakecupti::state().starts, starts + 1);
    }
}

TEST_CASE(range_counters_measure_the_duration_metric_when_it_fits_the_steady_configuration) {
    const std::string dur = RangeCounters::kDurationMetric;
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        bool allow, timed;
        std::vector<std::string> config;  // what SetConfig gets
    } rows[] = {
        {"one group", {{"a", "b"}}, true, true, {"a", "b", dur}},
        {"the union of three", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, true, true, {"a", "b", "c", dur}},
        {"a group that asks for it", {{"a", dur}}, true, true, {"a", dur}},
        {"the union fills its hardware pass", {{"a", "b"}, {"c", "d"}}, true, false, {"a", "b", "c", "d"}},
        {"off (GOROCPROF_CUDA_DURATION_METRIC=0)", {{"a", "b"}}, false, false, {"a", "b"}},
        {"configurations change between passes", {{"a", "b"}, {"c", "d"}, {"e"}}, true, false, {}},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        Setup t(r.groups, 1);
        t.rc.allow_duration_metric(r.allow);
        if (t.rc.timed() != r.timed) check::fail(__FILE__, __LINE__, std::string(r.name) + ": timed wrong");
        if (r.config.empty()) continue;  // not steady: no window across dispatches to read durations from
        CHECK(t.rc.arm(&t.passes[0].counters, nullptr, 3).ok);
        if (fakecupti::state().last_config != r.config) check::fail(__FILE__, __LINE__, std::string(r.name) + ": config");
        fakecupti::kernel(7);
        fakecupti::kernel(8);
        std::vector<std::vector<CounterSample>> got;
        std::vector<double> durations;
        const std::vector<const Group*> groups(2, &t.passes[0].counters);
        CHECK(t.rc.collect_ranges(groups, &got, &durations).ok);
        CHECK_EQ(durations.size(), size_t(2));
        for (size_t i = 0; i < durations.size(); ++i) {
            CHECK_EQ(kernel_of(t.passes[0].counters, got[i], 7 + i), static_cast<long>(7 + i));
            const bool right = r.timed ? durations[i] == value(dur, 7 + i) : std::isnan(durations[i]);
            if (!right) check::fail(__FILE__, __LINE__, std::string(r.name) + ": duration of range " + std::to_string(i));
        }
    }
}

TEST_CASE(snapshots_in_windows_across_dispatches_copy_small_footprints_whole) {
    struct Row {
        const char* name;
        std::vector<gorocprof::cuda::Allocation> allocs;
        bool copy_all, lasting, scans;
    } rows[] = {
        {"nothing tracked", {}, false, true, false},
        {"everything copied anyway", footprint(100, 1 << 30), true, true, false},
        {"a dispatch with its own window scans", footprint(1, 4096), false, false, true},
        {"one small allocation", footprint(1, 4096), false, true, false},
        {"exactly the limits", footprint(gorocprof::cuda::kCopyAllAllocations, gorocprof::cuda::kCopyAllBytes /
                                                                                   gorocprof::cuda::kCopyAllAllocations),
         false, true, false},
        {"one allocation too many", footprint(gorocprof::cuda::kCopyAllAllocations + 1, 4096), false, true, true},
        {"one byte too many", footprint(1, gorocprof::cuda::kCopyAllBytes + 1), false, true, true},
    };
    for (const Row& r : rows)
        if (gorocprof::cuda::snapshot_scans(r.allocs, r.copy_all, r.lasting) != r.scans)
            check::fail(__FILE__, __LINE__, r.name);
}

TEST_CASE(range_counters_are_steady_when_one_configuration_serves_every_pass) {
    struct Row {
        std::vector<std::vector<std::string>> groups;
        std::map<std::string, int> cost;
        bool steady;
    } rows[] = {
        {{{"a", "b"}}, {}, true},                              // one group in one hardware pass
        {{{"x", "y"}}, {{"x", 3}, {"y", 3}}, false},           // one group of two hardware passes
        {{{"a", "b"}, {"a", "c"}, {"b", "c"}}, {}, true},      // the union fits one pass
        {{{"a", "b"}, {"c", "d"}, {"e"}}, {}, false},          // the union needs two
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        Setup t(r.groups, 1, r.cost);
        CHECK_EQ(t.rc.steady(), r.steady);
    }
}

TEST_CASE(options_read_the_window_dispatches) {
    struct Row {
        const char* value;
        size_t want;
        bool problem;
    } rows[] = {
        {nullptr, gorocprof::cuda::Options::kDefaultWindowDispatches, false},
        {"", gorocprof::cuda::Options::kDefaultWindowDispatches, false},
        {"0", 0, false},
        {"256", 256, false},
        {"4097", gorocprof::cuda::Options::kDefaultWindowDispatches, true},
        {"-3", gorocprof::cuda::Options::kDefaultWindowDispatches, true},
        {"12x", gorocprof::cuda::Options::kDefaultWindowDispatches, true},
    };
    for (const Row& r : rows) {
        std::string problem;
        CHECK_EQ(gorocprof::cuda::parse_window_dispatches(r.value, &problem), r.want);
        CHECK_EQ(problem.empty(), !r.problem);
    }
    const auto o = gorocprof::cuda::read_options([](const char* name) -> const char* {
        return std::string(name) == "GOROCPROF_CUDA_WINDOW_DISPATCHES" ? "8" : nullptr;
    });
    CHECK_EQ(o.window_dispatches, size_t(8));
}

int main(int argc, char** argv) {
    check::Options options;
    options.reset = [] {
        fakecuda::reset();
        fakecupti::reset();
    };
    return check::run(argc, argv, options);
}
