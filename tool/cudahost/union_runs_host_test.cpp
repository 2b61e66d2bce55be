// Host-side tests of union runs across dispatches (README.md, "One run per hardware pass"): a window of
// dispatches that each ran once, whose further hardware passes run every launch again when it closes, against the
// fake CUPTI profiler (a metric a session did not reach reads NaN).
#include "lasting_fixture.hpp"

#include <string>
#include <utility>
#include <vector>

using namespace lasting_fixture;

namespace {

// Union runs across dispatches (README.md, "One run per hardware pass"), as the port drives them: each
// dispatch is one launch (its flush before it when the context flushes) and one range of the window; its
// first pass is add_pass, its further passes add_shared_pass; when the window closes, every further hardware
// pass runs the window's launches again in order, each after its flush (CudaPort::rerun_window). `hole_at`:
// that dispatch's launch fails after its flush (CudaPort::launch_failed). Counts the application's kernel runs.
struct UnionRuns {
    size_t windows = 0, launches = 0, failures = 0, wrong_durations = 0;
    std::vector<std::pair<uint64_t, std::vector<long>>> written;
};

UnionRuns drive_union_runs(RangeCounters& rc, const std::vector<PlanPass>& passes, size_t capacity,
                           size_t dispatches, size_t hole_at = kNever) {
    UnionRuns u;
    LastingWindow lw;
    lw.set_capacity(capacity);
    const bool flush = rc.kernels_per_pass() == 2;
    std::vector<size_t> saved;  // the open window's launches
    auto run = [&](size_t id) {
        if (flush) fakecupti::kernel(kFlushKernel);
        fakecupti::kernel(id);
        ++u.launches;
    };
    auto write = [&](const DispatchFacts& f, std::vector<PendingPass>& ps, size_t at, size_t n, const Outcome&) {
        u.written.emplace_back(f.info.dispatch_id, written_kernels(ps, at, n, true, &u.wrong_durations));
    };
    auto close = [&] {
        const PortStatus st = lw.close(rc, write, [&](size_t) {
            for (size_t id : saved) run(id);
            return PortStatus::success();
        });
        if (!st.ok) ++u.failures;
        saved.clear();
    };
    for (size_t d = 0; d < dispatches; ++d) {
        JoinFacts f;
        f.windows = f.counters = f.app_launch = f.replayed = f.replayed_may = f.shared = f.savable = true;
        f.hw_passes = rc.steady_passes();
        f.steady = f.hw_passes > 0;
        f.timed = rc.timed();
        f.capacity = capacity;
        CHECK(gorocprof::cuda::may_last(f));
        if (!lw.open() || !lw.room(1)) {
            close();
            CHECK(rc.arm(rc.steady_config(), nullptr, lw.ranges()).ok);
            lw.opened();
            lw.set_reruns(f.hw_passes > 1);
            ++u.windows;
        }
        const size_t id = kernel_id(d, 0);
        if (d == hole_at) {
            if (flush) fakecupti::kernel(kFlushKernel);
            lw.add_hole();
            close();
            continue;
        }
        run(id);
        saved.push_back(id);
        for (size_t p = 0; p < passes.size(); ++p) {
            PassRecord rec;
            rec.start_ns = rec.end_ns = static_cast<int64_t>(id);  // every pass shows the dispatch's one run
            if (p == 0) lw.add_pass(std::move(rec), &passes[p].counters);
            else lw.add_shared_pass(std::move(rec), &passes[p].counters);
        }
        DispatchFacts facts;
        facts.info.dispatch_id = d;
        lw.end_dispatch(facts, Outcome{});
    }
    close();
    return u;
}

}  // namespace

TEST_CASE(union_runs_measure_each_dispatch_once_per_hardware_pass_across_dispatches) {
    // The shape: four groups whose union needs two hardware passes (capacity 4: {a b c d} then {e f}
    // and the duration metric). Each dispatch runs its kernel twice in all (once in the window, once more when
    // it closes), not groups x hardware passes; each replay pass reads its own group, every value that
    // dispatch's kernel's (the fake reads NaN for a metric of a hardware pass whose session did not reach the
    // range), every duration its range's. With one group whose union fits one pass nothing runs again.
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        size_t kernels_per_pass, hw, dispatches, capacity, windows;
    } rows[] = {
        {"four groups, two hardware passes, a flush before each run", {{"a", "b"}, {"c", "d"}, {"e"}, {"a", "f"}}, 2, 2, 20, 8, 3},
        {"four groups, two hardware passes, no flush", {{"a", "b"}, {"c", "d"}, {"e"}, {"a", "f"}}, 1, 2, 20, 8, 3},
        {"three groups in one hardware pass", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, 2, 1, 20, 8, 3},
        {"ten single metrics, three hardware passes", {{"g0"}, {"g1"}, {"g2"}, {"g3"}, {"g4"}, {"g5"}, {"g6"}, {"g7"}, {"g8"}, {"g9"}},
         2, 3, 9, 4, 3},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        Setup t(r.groups, r.kernels_per_pass);
        t.rc.allow_union_runs(true);
        t.rc.plan_passes(t.passes);
        if (t.rc.steady_passes() != r.hw) check::fail(__FILE__, __LINE__, std::string(r.name) + ": hardware passes");
        CHECK(t.rc.union_runs());
        CHECK(t.rc.timed());
        const UnionRuns u = drive_union_runs(t.rc, t.passes, r.capacity, r.dispatches);
        std::vector<std::pair<uint64_t, std::vector<long>>> want;
        for (size_t d = 0; d < r.dispatches; ++d)
            want.emplace_back(d, std::vector<long>(t.passes.size(), static_cast<long>(kernel_id(d, 0))));
        if (u.written != want || u.failures != 0 || u.wrong_durations != 0)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": values, durations or dispatches wrong");
        if (u.launches != r.dispatches * r.hw)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(u.launches) + " kernel runs");
        if (u.windows != r.windows || fakecupti::state().starts != r.windows * r.hw)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(fakecupti::state().starts) +
                                                " Starts in " + std::to_string(u.windows) + " windows");
        CHECK_EQ(fakecupti::state().enables, size_t(1));
    }
}

TEST_CASE(union_runs_window_with_a_range_it_cannot_run_again_writes_its_dispatches_empty) {
    // A launch that failed after its flush leaves a range no launch owns: the further hardware pass cannot run
    // it again, so the window is written empty (and fails); the next window reads right again.
    fakecupti::reset();
    Setup t({{"a", "b"}, {"c", "d"}, {"e"}, {"a", "f"}}, 2);
    t.rc.allow_union_runs(true);
    t.rc.plan_passes(t.passes);
    const UnionRuns u = drive_union_runs(t.rc, t.passes, 8, 6, 2);
    const long e = -1;
    const auto k = [](size_t d) { return std::vector<long>(4, static_cast<long>(kernel_id(d, 0))); };
    CHECK(u.written == (std::vector<std::pair<uint64_t, std::vector<long>>>{
                           {0, {e, e, e, e}}, {1, {e, e, e, e}}, {3, k(3)}, {4, k(4)}, {5, k(5)}}));
    CHECK_EQ(u.failures, size_t(1));
}

TEST_CASE(union_runs_join_windows_across_dispatches_as_their_hardware_passes_allow) {
    JoinFacts one;
    one.windows = one.counters = one.steady = one.app_launch = one.replayed = one.replayed_may = one.shared = true;
    one.capacity = 32;
    one.scan = true;  // a footprint that would need the reach scan: no snapshot is taken at all
    JoinFacts two = one;
    two.hw_passes = 2;
    two.savable = true;
    two.scan = false;
    struct Row {
        const char* name;
        JoinFacts f;
        bool joins;
    } rows[] = {
        {"one hardware pass, whatever the footprint, timed or not", one, true},
        {"two hardware passes, a launch copied, memory copied whole", two, true},
        {"two, durations from events (not timed)", [&] { JoinFacts f = two; f.timed = false; return f; }(), true},
        {"two, a launch that cannot be run again", [&] { JoinFacts f = two; f.savable = false; return f; }(), false},
        {"two, a footprint that needs the reach scan", [&] { JoinFacts f = two; f.scan = true; return f; }(), false},
        {"two, off (GOROCPROF_CUDA_LASTING_REPLAYED=0)", [&] { JoinFacts f = two; f.replayed_may = false; return f; }(), false},
        {"two, not union runs", [&] { JoinFacts f = two; f.shared = false; return f; }(), false},
        {"passes of different configurations", [&] { JoinFacts f = two; f.hw_passes = 0; return f; }(), false},
    };
    for (const Row& r : rows)
        if (gorocprof::cuda::may_last(r.f) != r.joins) check::fail(__FILE__, __LINE__, r.name);
}
