// Core as a backend sees it (core_fixture.hpp sets each case up).
#include "core_fixture.hpp"

#include <chrono>
#include <cstring>
#include <thread>

using namespace core_fixture;

TEST_CASE(core_pass_count_per_agent) {
    CHECK(start());
    register_agents();
    gorocprof_kernel_dispatch_info_t info{};
    std::vector<uint64_t> counts;
    for (uint64_t id : {1, 2, 3, 4, 99}) {
        info.agent_id.handle = id;
        counts.push_back(detail::pass_count(info, gorocprof_user_data_t{}));
    }
    CHECK((counts == std::vector<uint64_t>{3, 2, 1, 1, 1}));

    // CONFIG ENTER installs the pass-count callback.
    gorocprof_callback_tracing_kernel_replay_data_t payload{};
    payload.size = sizeof payload;
    gorocprof_callback_tracing_record_t r{};
    r.kind = GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY;
    r.operation = GOROCPROF_KERNEL_REPLAY_CONFIG;
    r.phase = GOROCPROF_CALLBACK_PHASE_ENTER;
    r.payload = &payload;
    detail::replay_callback(r, nullptr, nullptr);
    CHECK(payload.replay_pass_count == &detail::pass_count);
    CHECK(payload.replay_continue == nullptr);
}

TEST_CASE(core_pass_i_collects_group_i) {
    CHECK(start());
    register_agents();
    Core& core = Core::instance();
    CHECK_EQ(published_pass(), UINT64_MAX);
    gorocprof_callback_tracing_kernel_replay_data_t payload{};
    payload.size = sizeof payload;
    for (uint64_t pass = 0; pass < 3; ++pass) {
        payload.current_pass = pass;
        payload.total_passes = 3;
        detail::replay_callback(pass_record(&payload, GOROCPROF_CALLBACK_PHASE_ENTER), nullptr, nullptr);
        CHECK_EQ(published_pass(), pass);
        // Same pointer as the plan's pass: pass i is group i, no wrap, no skip.
        CHECK(core.counters_for_current_pass(0) == &core.passes_for_agent(0)[pass].counters);
        // Agent 1 has two passes: nothing for pass 2.
        if (pass < 2) {
            CHECK(core.counters_for_current_pass(1) == &core.passes_for_agent(1)[pass].counters);
        } else {
            CHECK(core.counters_for_current_pass(1) == nullptr);
        }
        CHECK(core.counters_for_current_pass(3) == nullptr);  // not in the plan
        detail::replay_callback(pass_record(&payload, GOROCPROF_CALLBACK_PHASE_EXIT), nullptr, nullptr);
        CHECK_EQ(published_pass(), UINT64_MAX);
    }
    // The pass is per thread.
    payload.current_pass = 2;
    detail::replay_callback(pass_record(&payload, GOROCPROF_CALLBACK_PHASE_ENTER), nullptr, nullptr);
    uint64_t other = 0;
    std::thread([&] { other = published_pass(); }).join();
    CHECK_EQ(other, UINT64_MAX);
    detail::replay_callback(pass_record(&payload, GOROCPROF_CALLBACK_PHASE_EXIT), nullptr, nullptr);
    // Outside a pass (one planned pass, a declined replay): pass 0.
    CHECK_EQ(names_of(core.counters_for_current_pass(0)), std::string("SQ_WAVES,A0"));
    CHECK_EQ(names_of(core.counters_for_current_pass(2)), std::string("Z0"));
}

TEST_CASE(core_replay_writes_one_line_per_pass) {
    CHECK(start());
    register_agents();
    KernelRef k = kernel("_Z4axpyPfS_f");
    count_writes();
    CHECK(replay::ReplayService::instance().enabled());
    replay::Outcome a = run_dispatch(0, k);
    replay::Outcome b = run_dispatch(1, k);
    replay::Outcome c = run_dispatch(2, k);
    CHECK(a.replayed && b.replayed && !c.replayed);
    CHECK_EQ(g_writes.load(), 3);  // one write per logical dispatch
    Core::instance().finish();

    std::vector<Value> recs = read_records();
    std::vector<Value> ds = of_type(recs, "dispatch");
    CHECK_EQ(ds.size(), size_t{6});
    if (ds.size() != 6) return;
    std::string got;
    for (const Value& d : ds) {
        got += std::to_string(num(d, "dispatch_id")) + ":" + std::to_string(num(d, "pass")) + "/" +
               std::to_string(num(d, "passes")) + ":" + counter_names(d) + " ";
    }
    CHECK_EQ(got, std::string("1:0/3:SQ_WAVES,A0 1:1/3:SQ_WAVES,B1 1:2/3:SQ_WAVES,C2 2:0/2:X0 2:1/2:Y1 3:0/1:Z0 "));
    const Value& d0 = ds[0];
    CHECK_EQ(num(d0, "agent_id"), int64_t{1});
    CHECK_EQ(num(d0, "queue_id"), int64_t{7});
    CHECK_EQ(num(d0, "kernel_id"), int64_t{1});
    CHECK_EQ(num(d0, "lds"), int64_t{128});
    CHECK_EQ(num(d0, "correlation_id"), int64_t{1});
    CHECK(num(d0, "thread_id") > 0);
    CHECK_EQ(num(d0, "start"), int64_t{1001});
    CHECK_EQ(num(d0, "end"), int64_t{2001});
    CHECK_EQ(d0.find("grid")->items()[0].as_int(), int64_t{256});
    CHECK_EQ(d0.find("workgroup")->items()[0].as_int(), int64_t{64});
    // Values as delivered, NaN as null, never summed.
    const Value& values = *d0.find("counters")->items()[0].find("values");
    CHECK_EQ(values.items().size(), size_t{3});
    if (values.items().size() == 3) {
        CHECK_EQ(values.items()[0].as_double(), 16.0);
        CHECK(values.items()[2].is_null());
    }

    std::vector<Value> ends = of_type(recs, "end");
    CHECK_EQ(ends.size(), size_t{1});
    CHECK_EQ(num(ends[0], "dispatches"), int64_t{3});
    CHECK_EQ(num(ends[0], "replayed"), int64_t{2});
    CHECK_EQ(num(ends[0], "declined"), int64_t{0});
    CHECK_EQ(str(recs.front(), "t"), std::string("header"));
    CHECK_EQ(str(recs.back(), "t"), std::string("end"));
}

TEST_CASE(core_declined_replay_is_recorded_with_its_dispatch) {
    CHECK(start());
    register_agents();
    KernelRef k = kernel("_Z4axpyPfS_f");
    count_writes();
    TestPort port(0);
    port.fail_snapshot = true;
    replay::Outcome o = run_dispatch(0, k, &port);
    CHECK(o.declined);
    CHECK_EQ(port.submits, 1);
    CHECK_EQ(g_writes.load(), 1);  // the pass and the decline in one write
    Core::instance().finish();
    std::vector<Value> recs = read_records();
    std::vector<Value> ds = of_type(recs, "dispatch");
    std::vector<Value> dec = of_type(recs, "decline");
    CHECK_EQ(ds.size(), size_t{1});
    CHECK_EQ(dec.size(), size_t{1});
    if (ds.size() != 1 || dec.size() != 1) return;
    CHECK_EQ(num(ds[0], "pass"), int64_t{0});
    CHECK_EQ(num(ds[0], "passes"), int64_t{1});
    CHECK_EQ(counter_names(ds[0]), std::string("SQ_WAVES,A0"));
    CHECK_EQ(num(dec[0], "dispatch_id"), int64_t{1});
    CHECK_EQ(str(dec[0], "reason"), std::string("snapshot: test backup failure"));
    std::vector<Value> ends = of_type(recs, "end");
    CHECK_EQ(ends.size(), size_t{1});
    if (!ends.empty()) CHECK_EQ(num(ends[0], "declined"), int64_t{1});
}

TEST_CASE(core_filters_apply_once_per_logical_dispatch) {
    Setup s;
    s.include = "axpy";
    s.ranges = "[[2, 3]]";
    CHECK(start(s));
    register_agents();
    KernelRef axpy = kernel("_Z4axpyPfS_f");
    KernelRef other = kernel("_Z5scalePf");
    std::string selected;
    // Replayed dispatches (3 passes each) count one iteration each; `scale` never counts.
    for (int i = 0; i < 4; ++i) {
        replay::Outcome o = run_dispatch(0, other);
        selected.push_back(o.dispatch_id != 0 ? 'S' : 's');
        o = run_dispatch(0, axpy);
        selected.push_back(o.dispatch_id != 0 ? 'A' : 'a');
    }
    CHECK_EQ(selected, std::string("sasAsAsa"));
    Core::instance().finish();
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    std::string ids;
    for (const Value& d : ds) ids += std::to_string(num(d, "dispatch_id")) + "." + std::to_string(num(d, "pass")) + " ";
    // Ids are reserved for every dispatch the runtime saw: 4 and 6 are the selected ones.
    CHECK_EQ(ids, std::string("4.0 4.1 4.2 6.0 6.1 6.2 "));
}

namespace {

// Starts core filtering on `kind` names with `include`; says whether `match` is selected and
// `miss` is not.
bool filters_see(const char* kind, const char* include, const char* match, const char* miss) {
    Setup s;
    s.include = include;
    s.name_kind = kind;
    if (!start(s)) return false;
    register_agents();
    return Core::instance().select(kernel(match)) && !Core::instance().select(kernel(miss));
}

}  // namespace

// The filters see the name output displays, as rocprofv3 filters: the mangled one under -M, the
// truncated one under -T (the demangled one otherwise, as the cases above).
TEST_CASE(core_filters_see_the_mangled_name_under_M) {
    CHECK(filters_see("mangled", "^_Z4axpy", "_Z4axpyPfS_f", "_Z5scalePf"));
}

TEST_CASE(core_filters_see_the_truncated_name_under_T) {
    CHECK(filters_see("truncated", "^ns::reduce$", "_ZN2ns6reduceIiLi256EEEvPKT_PS1_i", "_ZN2ns6reduce_smallEv"));
}

TEST_CASE(core_kernel_and_agent_records) {
    Setup s;
    s.include = "reduce";
    CHECK(start(s));
    register_agents();
    register_agents();  // once per agent, however often the backend says so
    KernelRef a = kernel("_ZN2ns6reduceIiLi256EEEvPKT_PS1_i");
    KernelRef again = kernel("_ZN2ns6reduceIiLi256EEEvPKT_PS1_i");
    KernelRef on_other_agent = kernel("_ZN2ns6reduceIiLi256EEEvPKT_PS1_i", 2);
    KernelRef b = kernel("plain");
    CHECK_EQ(a.kernel_id, uint64_t{1});
    CHECK_EQ(again.kernel_id, uint64_t{1});
    CHECK_EQ(on_other_agent.kernel_id, uint64_t{2});
    CHECK_EQ(b.kernel_id, uint64_t{3});
    CHECK_EQ(a.truncated, std::string("ns::reduce"));
    CHECK(Core::instance().select(a));
    CHECK(!Core::instance().select(b));
    std::vector<Value> recs = read_records();
    std::vector<Value> agents = of_type(recs, "agent");
    std::vector<Value> kernels = of_type(recs, "kernel");
    CHECK_EQ(agents.size(), size_t{4});
    CHECK_EQ(kernels.size(), size_t{3});
    if (agents.size() != 4 || kernels.size() != 3) return;
    CHECK_EQ(num(*agents[0].find("props"), "cu_count"), int64_t{104});
    CHECK_EQ(str(*agents[0].find("strings"), "uuid"), std::string(""));
    CHECK_EQ(str(agents[1], "name"), std::string("gfx942"));
    CHECK_EQ(str(kernels[0], "name"), std::string("_ZN2ns6reduceIiLi256EEEvPKT_PS1_i"));
    CHECK_EQ(str(kernels[0], "demangled"), std::string("void ns::reduce<int, 256>(int const*, int*, int)"));
    CHECK_EQ(str(kernels[0], "truncated"), std::string("ns::reduce"));
    CHECK_EQ(num(kernels[0], "kernarg_size"), int64_t{24});
    CHECK_EQ(num(kernels[1], "agent_id"), int64_t{2});
    const Value& h = recs[0];
    CHECK_EQ(str(h, "t"), std::string("header"));
    CHECK_EQ(num(h, "version"), int64_t{1});
    CHECK_EQ(num(h, "pid"), int64_t{::getpid()});
    CHECK_EQ(num(h, "ppid"), int64_t{::getppid()});
    CHECK_EQ(str(h, "backend"), std::string("sim"));
    CHECK(num(h, "init_time") > 1500000000000000000);
    CHECK(h.find("cmdline")->items().size() >= 2);
    // Agent 4 (gfx950) is not in the plan; with no node id it goes by its handle.
    std::vector<Value> warnings = of_type(recs, "warning");
    CHECK_EQ(warnings.size(), size_t{1});
    if (!warnings.empty())
        CHECK_EQ(str(warnings[0], "message"), std::string("Agent 4 (GPU 3, gfx950) is not in the plan: its dispatches are not profiled"));
}

TEST_CASE(core_agent_name_mismatch_is_not_profiled) {
    CHECK(start());
    AgentInfo a;
    a.id = 1;
    a.index = 0;
    a.name = "gfx942";  // the plan says gfx90a
    a.props = {{"node_id", 5}, {"logical_node_id", 3}};  // named by the logical node id, as Agent_Id
    Core::instance().register_agent(a);
    CHECK(Core::instance().passes_for_agent(0).empty());
    CHECK(Core::instance().counters_for_current_pass(0) == nullptr);
    gorocprof_kernel_dispatch_info_t info{};
    info.agent_id.handle = 1;
    CHECK_EQ(detail::pass_count(info, gorocprof_user_data_t{}), uint64_t{1});
    std::vector<Value> warnings = of_type(read_records(), "warning");
    CHECK_EQ(warnings.size(), size_t{1});
    if (!warnings.empty())
        CHECK_EQ(str(warnings[0], "message"),
                  std::string("Agent 3 (GPU 0, gfx942): the plan's GPU 0 is gfx90a; its dispatches are not profiled"));
}

TEST_CASE(core_application_replay_collects_one_pass) {
    Setup s;
    s.mode = "application";
    s.application_pass = 1;
    CHECK(start(s));
    register_agents();
    CHECK(!replay::ReplayService::instance().enabled());  // no replay context outside kernel mode
    Core& core = Core::instance();
    CHECK_EQ(names_of(core.counters_for_current_pass(0)), std::string("SQ_WAVES,B1"));
    CHECK_EQ(names_of(core.counters_for_current_pass(1)), std::string("Y1"));
    CHECK_EQ(names_of(core.counters_for_current_pass(2)), std::string("(none)"));  // one pass only
    KernelRef k = kernel("_Z4axpyPfS_f");
    run_dispatch(0, k);
    core.finish();
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    CHECK_EQ(ds.size(), size_t{1});
    if (ds.empty()) return;
    CHECK_EQ(num(ds[0], "pass"), int64_t{1});
    CHECK_EQ(num(ds[0], "passes"), int64_t{3});
    CHECK_EQ(counter_names(ds[0]), std::string("SQ_WAVES,B1"));
}

TEST_CASE(core_no_replay_mode_collects_pass_0) {
    Setup s;
    s.mode = "none";
    CHECK(start(s));
    register_agents();
    CHECK(!replay::ReplayService::instance().enabled());
    CHECK_EQ(names_of(Core::instance().counters_for_current_pass(0)), std::string("SQ_WAVES,A0"));
    run_dispatch(0, kernel("k"));
    Core::instance().finish();
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    CHECK_EQ(ds.size(), size_t{1});
    if (!ds.empty()) CHECK_EQ(num(ds[0], "passes"), int64_t{1});
}

TEST_CASE(core_bad_plan_records_fatal_and_runs_unprofiled) {
    CHECK(!start(Setup{}, R"({"version": 2, "backend": "sim"})"));
    CHECK(!Core::initialize("sim"));  // once per process: the answer stays
    CHECK(!Core::instance().active());
    CHECK(!Core::instance().select(KernelRef{1, "k", "k", "k"}));
    Core::instance().finish();
    std::vector<Value> recs = read_records();
    CHECK_EQ(recs.size(), size_t{3});
    if (recs.size() != 3) return;
    CHECK_EQ(str(recs[0], "t"), std::string("header"));
    CHECK_EQ(str(recs[1], "t"), std::string("fatal"));
    CHECK_EQ(str(recs[1], "message"), "plan " + g_dir + "/plan.json: version 2, this tool library speaks contract 1; "
                                       "the application runs unprofiled");
    CHECK_EQ(str(recs[2], "t"), std::string("end"));
}

TEST_CASE(core_backend_mismatch_is_fatal) {
    Setup s;
    s.backend = "cuda";
    CHECK(!start(s));
    std::vector<Value> fatals = of_type(read_records(), "fatal");
    CHECK_EQ(fatals.size(), size_t{1});
    if (!fatals.empty())
        CHECK_EQ(str(fatals[0], "message"), "plan " + g_dir + "/plan.json: backend \"sim\", but this is the cuda tool "
                                             "library; the application runs unprofiled");
}

TEST_CASE(core_nested_dispatches_write_inner_first) {
    CHECK(start());
    register_agents();
    count_writes();
    Core& core = Core::instance();
    DispatchFacts outer, inner;
    outer.info.dispatch_id = 1;
    inner.info.dispatch_id = 2;
    PassRecord p;
    core.begin_dispatch(outer);
    core.record_pass(p);
    core.begin_dispatch(inner);
    core.record_pass(p);
    core.end_dispatch();
    CHECK_EQ(g_writes.load(), 1);
    p.pass = 1;
    p.passes = 2;
    core.record_pass(p);
    core.end_dispatch();
    CHECK_EQ(g_writes.load(), 2);
    std::vector<Value> ds = of_type(read_records(), "dispatch");
    std::string ids;
    for (const Value& d : ds) ids += std::to_string(num(d, "dispatch_id")) + "." + std::to_string(num(d, "pass")) + " ";
    CHECK_EQ(ids, std::string("2.0 1.0 1.1 "));
}

TEST_CASE(core_nothing_after_end) {
    CHECK(start());
    register_agents();
    Core& core = Core::instance();
    run_dispatch(0, kernel("k"));
    core.finish();
    core.finish();
    run_dispatch(0, kernel("k"));
    core.warn("late");
    std::vector<Value> recs = read_records();
    CHECK_EQ(of_type(recs, "end").size(), size_t{1});
    CHECK_EQ(str(recs.back(), "t"), std::string("end"));
    CHECK_EQ(of_type(recs, "dispatch").size(), size_t{3});
}

TEST_CASE(core_exit_from_another_thread_ends_the_file) {
    pid_t child = fork_started_child();
    if (child == 0) {
        KernelRef k = kernel("k");
        // The exit waits for three finished dispatches rather than a fixed delay, which on a loaded
        // machine could pass before the main thread had run any.
        static std::atomic<int> finished{0};
        std::thread([] {
            while (finished.load() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            std::exit(0);  // atexit handlers run here while the main thread keeps dispatching
        }).detach();
        for (;;) {
            run_dispatch(0, k);
            ++finished;
        }
    }
    int status = wait_status(child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::vector<std::string> lines = child_lines(child);
    CHECK_EQ(count_type(lines, "end"), size_t{1});
    CHECK(count_type(lines, "dispatch") >= 3);
    CHECK(!lines.empty() && lines.back().rfind("{\"t\":\"end\"", 0) == 0);
}

TEST_CASE(core_crash_leaves_complete_lines_and_no_end) {
    pid_t child = fork_started_child();
    if (child == 0) {
        KernelRef k = kernel("k");
        run_dispatch(0, k);
        run_dispatch(1, k);
        std::abort();
    }
    int status = wait_status(child);
    CHECK(WIFSIGNALED(status));
    std::vector<std::string> lines = child_lines(child);
    CHECK_EQ(count_type(lines, "end"), size_t{0});
    CHECK_EQ(count_type(lines, "dispatch"), size_t{5});
}

TEST_CASE(core_forked_child_writes_its_own_file) {
    CHECK(start());
    register_agents();
    KernelRef k = kernel("_Z4axpyPfS_f");
    run_dispatch(0, k);
    pid_t child = ::fork();
    if (child == 0) {
        run_dispatch(2, k);
        std::exit(0);
    }
    int status = wait_status(child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    run_dispatch(1, k);
    Core::instance().finish();

    std::vector<std::string> mine = child_lines(::getpid());
    CHECK_EQ(count_type(mine, "dispatch"), size_t{5});  // 3 + 2 passes; nothing of the child's
    CHECK_EQ(count_type(mine, "end"), size_t{1});
    std::vector<std::string> theirs = child_lines(child);
    // The child's file stands alone: its header, the agents and kernels it may refer to, its dispatch.
    CHECK_EQ(count_type(theirs, "header"), size_t{1});
    CHECK_EQ(count_type(theirs, "agent"), size_t{4});
    CHECK_EQ(count_type(theirs, "kernel"), size_t{1});
    CHECK_EQ(count_type(theirs, "dispatch"), size_t{1});
    CHECK_EQ(count_type(theirs, "end"), size_t{1});
    if (!theirs.empty()) {
        Value h;
        std::string error;
        CHECK(gorocprof::json::parse(theirs[0], &h, &error));
        CHECK_EQ(num(h, "pid"), int64_t{child});
        CHECK_EQ(num(h, "ppid"), int64_t{::getpid()});
    }
}
