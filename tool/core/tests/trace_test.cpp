// The trace lines of docs/tracing.md as core writes them: numbering, nesting, Quiet, marker pairing,
// per-thread buffers written at exit, and forks.
#include "core_fixture.hpp"

#include <trace.hpp>

#include <thread>

using namespace core_fixture;
namespace trace = gorocprof::core::trace;

namespace {

bool start_traced(const std::string& domains) {
    std::string plan = replace(kPlan, "\"kernel_trace\": true,", "\"kernel_trace\": true, \"trace_domains\": " + domains + ",");
    return start(Setup{}, plan.c_str());
}

const char* kSimDomains = R"(["HIP_COMPILER_API", "HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY"])";

}  // namespace

TEST_CASE(trace_api_calls_nest_and_number_from_1) {
    CHECK(start_traced(kSimDomains));
    CHECK(trace::enabled(trace::Domain::HipRuntime));
    CHECK(!trace::enabled(trace::Domain::HsaCore));
    CHECK(trace::any_api_enabled());
    uint64_t inner_id = 0, copy_corr = 0;
    {
        trace::ApiCall outer(trace::Domain::HipRuntime, "simMemcpy");
        CHECK(outer.active());
        CHECK_EQ(outer.correlation_id(), uint64_t{1});
        {
            trace::ApiCall inner(trace::Domain::HipCompiler, "simRegisterKernel");
            inner_id = inner.correlation_id();
            CHECK_EQ(trace::current_correlation_id(), inner_id);
        }
        copy_corr = trace::current_correlation_id();
        trace::Copy c;
        c.op = "MEMORY_COPY_HOST_TO_DEVICE";
        c.correlation_id = copy_corr;
        c.dst_agent_id = 1;
        c.size = 4096;
        c.start = 10;
        c.end = 20;
        trace::record_copy(c);
        trace::ApiCall untraced(trace::Domain::HsaCore, "hsa_init");
        CHECK(!untraced.active());
    }
    CHECK_EQ(trace::current_correlation_id(), uint64_t{0});
    Core::instance().finish();

    std::vector<Value> recs = read_records();
    std::vector<Value> api = of_type(recs, "api");
    CHECK_EQ(api.size(), size_t{2});
    if (api.size() != 2) return;
    // The inner call ends first, so its line comes first.
    CHECK_EQ(str(api[0], "op"), std::string("simRegisterKernel"));
    CHECK_EQ(str(api[0], "domain"), std::string("HIP_COMPILER_API"));
    CHECK_EQ(num(api[0], "correlation_id"), int64_t(inner_id));
    CHECK_EQ(str(api[1], "op"), std::string("simMemcpy"));
    CHECK_EQ(str(api[1], "domain"), std::string("HIP_RUNTIME_API"));
    CHECK_EQ(num(api[1], "correlation_id"), int64_t{1});
    CHECK(num(api[1], "start") <= num(api[0], "start"));
    CHECK(num(api[0], "end") <= num(api[1], "end"));
    CHECK(num(api[1], "thread_id") > 0);
    std::vector<Value> copies = of_type(recs, "copy");
    CHECK_EQ(copies.size(), size_t{1});
    if (copies.size() == 1) {
        CHECK_EQ(num(copies[0], "correlation_id"), int64_t{1});
        CHECK_EQ(copy_corr, uint64_t{1});
        CHECK_EQ(num(copies[0], "size"), int64_t{4096});
        CHECK_EQ(num(copies[0], "dst_agent_id"), int64_t{1});
        CHECK_EQ(str(copies[0], "op"), std::string("MEMORY_COPY_HOST_TO_DEVICE"));
        CHECK_EQ(num(copies[0], "thread_id"), num(api[1], "thread_id"));
    }
    // Everything before `end`.
    CHECK_EQ(str(recs.back(), "t"), std::string("end"));
}

TEST_CASE(trace_quiet_hides_the_tools_own_work) {
    CHECK(start_traced(kSimDomains));
    {
        trace::Quiet q;
        CHECK(trace::quiet());
        CHECK(!trace::enabled(trace::Domain::HipRuntime));
        trace::ApiCall call(trace::Domain::HipRuntime, "simMemcpy");
        CHECK(!call.active());
        trace::marker_mark("roctxMarkA", "hidden");
        {
            trace::Quiet nested;
        }
        CHECK(trace::quiet());
    }
    CHECK(!trace::quiet());
    { trace::ApiCall call(trace::Domain::HipRuntime, "simFree"); }
    Core::instance().finish();
    std::vector<Value> api = of_type(read_records(), "api");
    CHECK_EQ(api.size(), size_t{1});
    if (!api.empty()) CHECK_EQ(str(api[0], "op"), std::string("simFree"));
    CHECK_EQ(of_type(read_records(), "marker").size(), size_t{0});
}

TEST_CASE(trace_markers_pair_ranges_and_keep_messages) {
    CHECK(start_traced(kSimDomains));
    trace::marker_push("roctxThreadRangeA", "outer");
    trace::marker_push("roctxThreadRangeA", "inner \"quoted\"");
    trace::marker_pop();
    trace::marker_mark("roctxMarkA", "here");
    trace::marker_pop();
    trace::marker_pop();  // nothing open: ignored
    uint64_t id = trace::marker_start("roctxProcessRangeA", "across threads");
    CHECK(id != 0);
    std::thread([id] { trace::marker_stop(id); }).join();
    trace::marker_stop(id);  // already stopped: ignored
    trace::marker_push("roctxThreadRangeA", "left open");
    Core::instance().finish();

    std::vector<Value> recs = read_records();
    std::vector<Value> all = of_type(recs, "marker");
    CHECK_EQ(all.size(), size_t{5});
    // The stopping thread wrote its line at its exit, before this thread's buffer: find them by message.
    auto by = [&](const std::string& message) -> Value {
        for (const Value& v : all)
            if (str(v, "message") == message) return v;
        check::fail(__FILE__, __LINE__, "no marker line for " + message);
        return Value{};
    };
    Value inner = by("inner \"quoted\""), here = by("here"), outer = by("outer"), across = by("across threads"),
          open = by("left open");
    CHECK_EQ(num(here, "start"), num(here, "end"));
    CHECK_EQ(str(here, "op"), std::string("roctxMarkA"));
    CHECK(num(outer, "start") <= num(inner, "start") && num(inner, "end") <= num(outer, "end"));
    CHECK_EQ(str(across, "op"), std::string("roctxProcessRangeA"));
    // The range started on this thread keeps its thread though another stopped it.
    CHECK_EQ(num(across, "thread_id"), num(outer, "thread_id"));
    CHECK_EQ(str(open, "op"), std::string("roctxThreadRangeA"));
    for (const Value& v : all) CHECK_EQ(str(v, "domain"), std::string("MARKER_CORE_RANGE_API"));
    // Correlation ids come from the one counter, taken at the range's start.
    CHECK(num(outer, "correlation_id") < num(inner, "correlation_id"));
    CHECK(num(inner, "correlation_id") < num(here, "correlation_id"));
    std::vector<Value> warnings = of_type(recs, "warning");
    CHECK_EQ(warnings.size(), size_t{1});
    if (!warnings.empty()) CHECK(str(warnings[0], "message").find("1 marker range(s) were still open") == 0);
}

TEST_CASE(trace_record_marker_keeps_the_backends_ids_and_times) {
    CHECK(start_traced(kSimDomains));
    trace::record_marker("roctxThreadRangeA", "sdk range", 41, 7, 1000, 2000);
    trace::record_marker("roctxMarkA", "sdk mark", 43, 7, 1500, 1500);
    {
        trace::Quiet q;  // the backend decides what is its own: record_marker is not Quiet's
        trace::record_marker("roctxProcessRangeA", "ended early", 44, 8, 3000, 2500);
    }
    Core::instance().finish();
    std::vector<Value> all = of_type(read_records(), "marker");
    CHECK_EQ(all.size(), size_t{3});
    if (all.size() != 3) return;
    CHECK_EQ(str(all[0], "op"), std::string("roctxThreadRangeA"));
    CHECK_EQ(str(all[0], "message"), std::string("sdk range"));
    CHECK_EQ(num(all[0], "correlation_id"), int64_t{41});
    CHECK_EQ(num(all[0], "thread_id"), int64_t{7});
    CHECK_EQ(num(all[0], "start"), int64_t{1000});
    CHECK_EQ(num(all[0], "end"), int64_t{2000});
    CHECK_EQ(num(all[1], "start"), num(all[1], "end"));
    CHECK_EQ(str(all[2], "domain"), std::string("MARKER_CORE_RANGE_API"));
    CHECK_EQ(num(all[2], "end"), int64_t{3000});  // an end before the start is the start
}

TEST_CASE(trace_reserved_ids_keep_core_apart_from_the_backends) {
    CHECK(start_traced(kSimDomains));
    const uint64_t below = uint64_t{1} << 32;
    trace::reserve_correlation_ids(below);
    trace::reserve_correlation_ids(5);  // never lowers the counter
    // API lines with the backend's own ids and thread, written from another thread (CUPTI's buffer thread).
    std::thread([] { trace::record_api(trace::Domain::HipRuntime, "simLaunch", 7, 4242, 100, 200); }).join();
    trace::marker_push("nvtxRangePushA", "step");
    trace::marker_pop();
    uint64_t call_id = 0;
    {
        trace::ApiCall call(trace::Domain::HipRuntime, "simMemcpy");
        call_id = call.correlation_id();
    }
    Core::instance().finish();
    std::vector<Value> recs = read_records();
    std::vector<Value> api = of_type(recs, "api"), marks = of_type(recs, "marker");
    CHECK_EQ(api.size(), size_t{2});
    CHECK_EQ(marks.size(), size_t{1});
    if (api.size() != 2 || marks.size() != 1) return;
    CHECK_EQ(num(api[0], "correlation_id"), int64_t{7});
    CHECK_EQ(num(api[0], "thread_id"), int64_t{4242});
    CHECK_EQ(num(api[0], "start"), int64_t{100});
    CHECK_EQ(num(api[0], "end"), int64_t{200});
    CHECK_EQ(num(marks[0], "correlation_id"), int64_t(below + 1));
    CHECK_EQ(call_id, below + 2);
    CHECK_EQ(num(api[1], "correlation_id"), int64_t(below + 2));
}

TEST_CASE(trace_every_thread_s_lines_reach_the_file) {
    CHECK(start_traced(kSimDomains));
    count_writes();
    constexpr int kThreads = 4, kCalls = 5000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([] {
            for (int i = 0; i < kCalls; ++i) trace::ApiCall call(trace::Domain::HipRuntime, "simStreamSynchronize");
        });
    }
    for (std::thread& t : threads) t.join();
    // A thread still running at exit: its buffered lines are written by finish.
    std::atomic<bool> done{false}, stop{false};
    std::thread late([&] {
        for (int i = 0; i < 10; ++i) trace::ApiCall call(trace::Domain::HipRuntime, "simMalloc");
        done = true;
        while (!stop) std::this_thread::yield();
    });
    while (!done) std::this_thread::yield();
    Core::instance().finish();
    stop = true;
    late.join();
    std::vector<Value> api = of_type(read_records(), "api");
    CHECK_EQ(api.size(), size_t{kThreads * kCalls + 10});
    std::vector<bool> seen(api.size() + 1, false);
    for (const Value& v : api) {
        int64_t c = num(v, "correlation_id");
        CHECK(c >= 1 && c <= int64_t(api.size()) && !seen[c]);
        if (c >= 1 && c <= int64_t(api.size())) seen[c] = true;
    }
    // Buffered: far fewer writes than lines.
    CHECK(g_writes.load() < kThreads * kCalls / 100);
}

TEST_CASE(trace_unknown_domain_is_a_plan_error) {
    CHECK(!start_traced(R"(["HIP_RUNTIME_API", "NOT_A_DOMAIN"])"));
    std::vector<Value> fatals = of_type(read_records(), "fatal");
    CHECK_EQ(fatals.size(), size_t{1});
    if (!fatals.empty())
        CHECK(str(fatals[0], "message").find("trace_domains[1]: \"NOT_A_DOMAIN\" is not a domain") != std::string::npos);
    CHECK(!trace::enabled(trace::Domain::HipRuntime));
}

TEST_CASE(trace_nothing_when_the_plan_traces_nothing) {
    CHECK(start());
    CHECK(!trace::any_api_enabled());
    { trace::ApiCall call(trace::Domain::HipRuntime, "simMemcpy"); }
    trace::marker_mark("roctxMarkA", "x");
    Core::instance().finish();
    std::vector<Value> recs = read_records();
    CHECK_EQ(of_type(recs, "api").size() + of_type(recs, "marker").size(), size_t{0});
}

TEST_CASE(trace_forked_child_does_not_repeat_the_parents_lines) {
    CHECK(start_traced(kSimDomains));
    register_agents();
    { trace::ApiCall call(trace::Domain::HipRuntime, "parentCall"); }
    trace::marker_push("roctxThreadRangeA", "parent range");
    pid_t child = ::fork();
    if (child == 0) {
        { trace::ApiCall call(trace::Domain::HipRuntime, "childCall"); }
        std::exit(0);
    }
    int status = wait_status(child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    trace::marker_pop();
    Core::instance().finish();
    std::vector<std::string> mine = child_lines(::getpid());
    CHECK_EQ(count_type(mine, "api"), size_t{1});
    CHECK_EQ(count_type(mine, "marker"), size_t{1});
    std::vector<std::string> theirs = child_lines(child);
    CHECK_EQ(count_type(theirs, "api"), size_t{1});
    CHECK_EQ(count_type(theirs, "marker"), size_t{0});
    bool child_call = false;
    for (const std::string& l : theirs) child_call = child_call || l.find("\"childCall\"") != std::string::npos;
    CHECK(child_call);
}

TEST_CASE(trace_range_open_when_main_exits_is_written_and_counted) {
    CHECK(start_traced(kSimDomains));
    register_agents();
    pid_t child = ::fork();
    if (child == 0) {
        // exit() destroys this thread's thread_locals before the atexit handler writes `end`.
        trace::marker_push("roctxThreadRangeA", "main never pops");
        { trace::ApiCall call(trace::Domain::HipRuntime, "lastCall"); }
        std::exit(0);
    }
    int status = wait_status(child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::vector<std::string> lines = child_lines(child);
    CHECK_EQ(count_type(lines, "marker"), size_t{1});
    CHECK_EQ(count_type(lines, "api"), size_t{1});
    CHECK_EQ(count_type(lines, "end"), size_t{1});
    bool warned = false;
    for (const std::string& l : lines)
        warned = warned || l.find("1 marker range(s) were still open when their thread or the process ended") !=
                               std::string::npos;
    CHECK(warned);
    if (!lines.empty()) CHECK(lines.back().find("\"t\":\"end\"") != std::string::npos);
    Core::instance().finish();
}
