// End to end through the rocprofiler-sdk emulator: sim-demo with the emulator as the sim runtime's
// injection and libgorocprof_tool_rocm.so in ROCP_TOOL_LIBRARIES, a plan written here, the record
// file read back. Each case is one ctest test.
#include "app_run.hpp"
#include "check.hpp"

#include <cstdlib>
#include <map>
#include <set>

using check::AppRun;
using check::counter_names;
using check::num;
using check::of_type;
using check::values_of;
using gorocprof::json::Value;

namespace {

// A pass's counters, "NAME:BLOCK" each.
using Pass = std::vector<std::string>;

struct AgentPlan {
    int index;
    std::string name;
    std::vector<Pass> passes;
};

struct PlanSpec {
    std::string mode = "kernel";
    int application_pass = -1;
    std::string exclude, ranges = "[]";
    std::vector<AgentPlan> agents;
};

const Pass kGroup0{"SQ_WAVES:SQ", "SQ_INSTS_VALU:SQ"}, kGroup1{"SQ_WAVES:SQ", "SQ_INSTS_SALU:SQ"},
    kGroup2{"SQ_WAVES:SQ", "GRBM_COUNT:GRBM"};
const char* kGroupNames[] = {"SQ_WAVES,SQ_INSTS_VALU", "SQ_WAVES,SQ_INSTS_SALU", "SQ_WAVES,GRBM_COUNT"};

// Three groups on gfx90a, the first two on gfx942 (an agent with fewer groups).
PlanSpec three_and_two() {
    PlanSpec p;
    p.agents = {{0, "gfx90a", {kGroup0, kGroup1, kGroup2}}, {1, "gfx942", {kGroup0, kGroup1}}};
    return p;
}

std::string make_plan(const PlanSpec& p) {
    std::string agents;
    for (const AgentPlan& a : p.agents) {
        std::string passes;
        for (size_t g = 0; g < a.passes.size(); ++g) {
            std::string counters;
            for (const std::string& c : a.passes[g]) {
                size_t colon = c.find(':');
                counters += std::string(counters.empty() ? "" : ",") + "{\"name\":\"" + c.substr(0, colon) + "\",\"block\":\"" +
                            c.substr(colon + 1) + "\",\"event\":0}";
            }
            passes += std::string(passes.empty() ? "" : ",") + "{\"group\":" + std::to_string(g) + ",\"counters\":[" + counters + "]}";
        }
        agents += std::string(agents.empty() ? "" : ",") + "{\"index\":" + std::to_string(a.index) + ",\"name\":\"" + a.name +
                  "\",\"passes\":[" + passes + "]}";
    }
    return "{\"version\":1,\"backend\":\"rocm\",\"replay_mode\":\"" + p.mode + "\",\"application_pass\":" +
           std::to_string(p.application_pass) + ",\"kernel_trace\":false,\"filters\":{\"include_regex\":\"\",\"exclude_regex\":\"" +
           p.exclude + "\",\"iteration_ranges\":" + p.ranges + "},\"agents\":[" + agents + "]}";
}

AppRun run_demo(const PlanSpec& p, std::vector<std::string> env = {}) {
    env.push_back(std::string("GOROCPROF_SIM_INJECTION_PATH=") + ROCM_EMULATOR);
    env.push_back(std::string("ROCP_TOOL_LIBRARIES=") + ROCM_TOOL);
    return check::run_app(make_plan(p), {SIM_DEMO}, env);
}

bool demo_passed(const AppRun& r) { return check::exited_ok(r) && r.out.find("sim-demo: PASS") != std::string::npos; }

// The dispatch lines grouped per logical dispatch, in file order.
std::vector<std::vector<const Value*>> logical(const AppRun& r) {
    std::vector<std::vector<const Value*>> out;
    for (const Value* d : of_type(r, "dispatch")) {
        if (out.empty() || num(*out.back().front(), "dispatch_id") != num(*d, "dispatch_id")) out.emplace_back();
        out.back().push_back(d);
    }
    return out;
}

std::map<int64_t, std::string> kernel_names(const AppRun& r) {
    std::map<int64_t, std::string> names;
    for (const Value* k : of_type(r, "kernel")) names[num(*k, "kernel_id")] = k->find("truncated")->as_string();
    return names;
}

}  // namespace

TEST_CASE(e2e_pass_count_per_agent) {
    AppRun r = run_demo(three_and_two());
    CHECK(demo_passed(r));  // memory restored between passes: the app's own check
    std::vector<std::vector<const Value*>> ds = logical(r);
    CHECK_EQ(ds.size(), size_t{30});
    for (const auto& passes : ds) {
        int64_t agent = num(*passes.front(), "agent_id");
        size_t want = agent == 1 ? 3 : 2;
        CHECK_EQ(passes.size(), want);
        for (size_t p = 0; p < passes.size(); ++p) {
            CHECK_EQ(num(*passes[p], "pass"), static_cast<int64_t>(p));
            CHECK_EQ(num(*passes[p], "passes"), static_cast<int64_t>(want));
            CHECK_EQ(counter_names(*passes[p]), std::string(kGroupNames[p]));  // pass i = group i
            // Values per hardware instance: 8 shader engines on gfx90a, 32 on gfx942.
            size_t instances = passes[p]->find("counters")->items()[0].find("values")->items().size();
            CHECK_EQ(instances, agent == 1 ? size_t{8} : size_t{32});
        }
    }
    const Value& end = *of_type(r, "end").front();
    CHECK_EQ(num(end, "dispatches"), int64_t{30});
    CHECK_EQ(num(end, "replayed"), int64_t{30});
    CHECK(of_type(r, "fatal").empty());
    CHECK(of_type(r, "decline").empty());
}

TEST_CASE(e2e_one_dispatch_id_for_all_passes) {
    AppRun r = run_demo(three_and_two());
    CHECK(demo_passed(r));
    std::set<int64_t> ids;
    for (const auto& passes : logical(r)) {
        int64_t id = num(*passes.front(), "dispatch_id");
        CHECK(ids.insert(id).second);  // no id on two logical dispatches
        for (const Value* d : passes) {
            CHECK_EQ(num(*d, "dispatch_id"), id);
            CHECK_EQ(num(*d, "correlation_id"), id);
            CHECK_EQ(num(*d, "kernel_id"), num(*passes.front(), "kernel_id"));
            CHECK(num(*d, "end") >= num(*d, "start") && num(*d, "start") > 0);
        }
        // Each pass has its own kernel timestamps.
        CHECK(num(*passes[1], "start") > num(*passes[0], "end"));
    }
    CHECK(!ids.empty() && *ids.begin() == 1 && *ids.rbegin() == static_cast<int64_t>(ids.size()));
}

TEST_CASE(e2e_partial_and_empty_groups_two_architectures) {
    // gfx90a: group 1 has nothing this architecture can count (an empty pass); gfx942: one group only.
    PlanSpec p;
    p.agents = {{0, "gfx90a", {{"SQ_WAVES:SQ"}, {}, {"SQ_INSTS_VALU:SQ"}}}, {1, "gfx942", {{"SQ_WAVES:SQ"}}}};
    AppRun r = run_demo(p);
    CHECK(demo_passed(r));
    int on_90a = 0, on_942 = 0;
    for (const auto& passes : logical(r)) {
        if (num(*passes.front(), "agent_id") == 1) {
            ++on_90a;
            CHECK_EQ(passes.size(), size_t{3});
            if (passes.size() != 3) continue;
            CHECK_EQ(counter_names(*passes[0]), std::string("SQ_WAVES"));
            CHECK_EQ(counter_names(*passes[1]), std::string(""));  // the empty group keeps its pass: no shift
            CHECK_EQ(counter_names(*passes[2]), std::string("SQ_INSTS_VALU"));
            CHECK(num(*passes[1], "end") >= num(*passes[1], "start"));
        } else {
            ++on_942;
            CHECK_EQ(passes.size(), size_t{1});  // one group: not replayed
            CHECK_EQ(num(*passes[0], "pass"), int64_t{0});
            CHECK_EQ(num(*passes[0], "passes"), int64_t{1});
            CHECK_EQ(counter_names(*passes[0]), std::string("SQ_WAVES"));
        }
    }
    CHECK_EQ(on_90a, 15);
    CHECK_EQ(on_942, 15);
    CHECK_EQ(num(*of_type(r, "end").front(), "replayed"), int64_t{15});
}

TEST_CASE(e2e_filtered_out_dispatch_is_not_replayed) {
    // Every snapshot fails, so each dispatch the SDK tries to replay says so on stderr: a filtered-out
    // one must never be among them.
    PlanSpec p = three_and_two();
    p.exclude = "reduce";
    AppRun r = run_demo(p, {"GOROCPROF_SIM_FAIL=snapshot"});
    CHECK(demo_passed(r));
    std::map<int64_t, std::string> names = kernel_names(r);
    std::vector<const Value*> ds = of_type(r, "dispatch");
    CHECK(!ds.empty());
    std::set<int64_t> recorded;
    for (const Value* d : ds) {
        CHECK(names[num(*d, "kernel_id")].find("reduce") == std::string::npos);
        CHECK_EQ(num(*d, "passes"), int64_t{1});  // declined: ran once
        recorded.insert(num(*d, "dispatch_id"));
    }
    size_t attempts = 0;
    for (size_t at = r.out.find("snapshot: simulated backup failure"); at != std::string::npos;
         at = r.out.find("snapshot: simulated backup failure", at + 1))
        ++attempts;
    CHECK_EQ(attempts, recorded.size());  // replay was attempted for the selected dispatches only
    std::vector<const Value*> declines = of_type(r, "decline");
    CHECK_EQ(declines.size(), recorded.size());
    for (const Value* d : declines) CHECK(recorded.count(num(*d, "dispatch_id")) == 1);
    // Each decline is written with its dispatch: the line right after it.
    for (size_t i = 1; i < r.records.size(); ++i) {
        if (check::type_of(r.records[i]) != "decline") continue;
        CHECK_EQ(check::type_of(r.records[i - 1]), std::string("dispatch"));
        CHECK_EQ(num(r.records[i - 1], "dispatch_id"), num(r.records[i], "dispatch_id"));
    }
    CHECK_EQ(num(*of_type(r, "end").front(), "declined"), static_cast<int64_t>(recorded.size()));
    CHECK(ds.size() < 30);
}

TEST_CASE(e2e_group_over_hw_limit_reported_at_start) {
    // Nine SQ counters: SQ has eight registers per pass.
    PlanSpec p;
    p.agents = {{0, "gfx90a",
                 {kGroup0,
                  {"SQ_WAVES:SQ", "SQ_INSTS_VALU:SQ", "SQ_INSTS_SALU:SQ", "SQ_INSTS_LDS:SQ", "SQ_INSTS_SMEM:SQ",
                   "SQ_INSTS_BRANCH:SQ", "SQ_INSTS_VMEM_RD:SQ", "SQ_INSTS_VMEM_WR:SQ", "SQ_CYCLES:SQ"}}}};
    AppRun r = run_demo(p);
    CHECK(demo_passed(r));  // no crash, no hang: the app runs unprofiled
    std::vector<const Value*> fatals = of_type(r, "fatal");
    CHECK_EQ(fatals.size(), size_t{1});
    if (!fatals.empty()) {
        const std::string& m = fatals[0]->find("message")->as_string();
        CHECK(m.find("Agent 1 (GPU 0, gfx90a), pass 1 (group 1)") != std::string::npos);
        CHECK(m.find("ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT") != std::string::npos);
    }
    CHECK(of_type(r, "dispatch").empty());
    // Reported before the first dispatch: the fatal line precedes every kernel line.
    bool fatal_seen = false;
    for (const Value& v : r.records) {
        if (check::type_of(v) == "fatal") fatal_seen = true;
        if (check::type_of(v) == "kernel") CHECK(fatal_seen);
    }
}

TEST_CASE(e2e_no_replay_domain_falls_back_with_rocm_version) {
    AppRun r = run_demo(three_and_two(), {"GOROCPROF_ROCM_EMULATOR_KERNEL_REPLAY=0"});
    CHECK(demo_passed(r));
    std::vector<const Value*> warnings = of_type(r, "warning");
    bool said = false;
    for (const Value* w : warnings) {
        const std::string& m = w->find("message")->as_string();
        said = said || (m.find("rocprofiler-sdk 1.0.0 has no KERNEL_REPLAY") != std::string::npos &&
                        m.find("rocprofiler-sdk 1.4.1 (ROCm 10.1) or later") != std::string::npos &&
                        m.find("--replay-mode application") != std::string::npos);
    }
    CHECK(said);
    std::vector<std::vector<const Value*>> ds = logical(r);
    CHECK_EQ(ds.size(), size_t{30});
    for (const auto& passes : ds) {
        CHECK_EQ(passes.size(), size_t{1});
        CHECK_EQ(num(*passes[0], "pass"), int64_t{0});
        CHECK_EQ(num(*passes[0], "passes"), num(*passes[0], "agent_id") == 1 ? int64_t{3} : int64_t{2});
        CHECK_EQ(counter_names(*passes[0]), std::string(kGroupNames[0]));
    }
}

TEST_CASE(e2e_replay_domain_found_by_name) {
    // Another SDK version puts KERNEL_REPLAY at another number: the tool finds it by name.
    AppRun r = run_demo(three_and_two(), {"GOROCPROF_ROCM_EMULATOR_REPLAY_KIND=31"});
    CHECK(demo_passed(r));
    CHECK(of_type(r, "warning").size() == 0);
    CHECK_EQ(num(*of_type(r, "end").front(), "replayed"), int64_t{30});
}

TEST_CASE(e2e_counter_in_three_groups_is_not_summed) {
    // SQ_WAVES is in every group: each pass reads what one unreplayed run reads, never 3x.
    AppRun kernel = run_demo(three_and_two());
    PlanSpec single;
    single.mode = "none";
    single.agents = {{0, "gfx90a", {kGroup0}}, {1, "gfx942", {kGroup0}}};
    AppRun once = run_demo(single);
    CHECK(demo_passed(kernel) && demo_passed(once));
    std::map<int64_t, std::string> expected;
    for (const Value* d : of_type(once, "dispatch")) expected[num(*d, "dispatch_id")] = values_of(*d, "SQ_WAVES");
    CHECK_EQ(expected.size(), size_t{30});
    for (const Value* d : of_type(kernel, "dispatch")) CHECK_EQ(values_of(*d, "SQ_WAVES"), expected[num(*d, "dispatch_id")]);
}

TEST_CASE(e2e_iteration_range_counts_logical_dispatches) {
    PlanSpec p = three_and_two();
    p.ranges = "[[2, 3]]";
    AppRun r = run_demo(p);
    CHECK(demo_passed(r));
    std::map<int64_t, int> per_kernel;
    for (const auto& passes : logical(r)) {
        ++per_kernel[num(*passes.front(), "kernel_id")];
        CHECK_EQ(passes.size(), num(*passes.front(), "agent_id") == 1 ? size_t{3} : size_t{2});
    }
    // Counted per kernel id, as rocprofv3 counts (each agent loads its own copy of a kernel, with an id
    // of its own): iterations 2 and 3 of each of the five kernels on each of the two agents (each copy
    // launched 3 times); replay passes take no slots.
    CHECK_EQ(per_kernel.size(), size_t{10});
    for (const auto& kv : per_kernel) CHECK_EQ(kv.second, 2);
}

TEST_CASE(e2e_application_replay_collects_its_pass) {
    PlanSpec p = three_and_two();
    p.mode = "application";
    p.application_pass = 1;
    AppRun r = run_demo(p);
    CHECK(demo_passed(r));
    std::vector<const Value*> ds = of_type(r, "dispatch");
    CHECK_EQ(ds.size(), size_t{30});
    std::set<int64_t> ids;
    for (const Value* d : ds) {
        CHECK_EQ(num(*d, "pass"), int64_t{1});
        CHECK_EQ(num(*d, "passes"), num(*d, "agent_id") == 1 ? int64_t{3} : int64_t{2});
        CHECK_EQ(counter_names(*d), std::string(kGroupNames[1]));
        CHECK_EQ(num(*d, "thread_id"), static_cast<int64_t>(r.pid));  // the dispatching thread, not the stream's
        ids.insert(num(*d, "dispatch_id"));
    }
    CHECK_EQ(ids.size(), ds.size());
    CHECK_EQ(num(*of_type(r, "end").front(), "replayed"), int64_t{0});
}

TEST_CASE(e2e_query_helper_answers_from_the_sdk) {
    auto run = [](const std::string& args) {
        AppRun r = check::run_app("{}", {"/bin/sh", "-c", std::string(ROCM_QUERY) + " " + args}, {});
        CHECK(check::exited_ok(r));
        Value v;
        std::string error;
        CHECK(gorocprof::json::parse(r.out, &v, &error));
        return v;
    };
    Value agents = run("agents");
    CHECK_EQ(agents.find("backend")->as_string(), std::string("rocm"));
    CHECK(agents.find("sdk")->find("kernel_replay")->as_bool());
    CHECK_EQ(agents.find("agents")->items().size(), size_t{2});
    CHECK_EQ(agents.find("agents")->items()[1].find("name")->as_string(), std::string("gfx942"));
    Value metrics = run("metrics --agent 1");
    bool tcc = false;
    for (const Value& m : metrics.find("metrics")->items()) {
        if (m.find("name")->as_string() != "TCC_HIT") continue;
        tcc = true;
        CHECK_EQ(m.find("dimensions")->items().size(), size_t{2});  // XCC x channel
        CHECK_EQ(m.find("dimensions")->items()[1].find("size")->as_int(), int64_t{16});
    }
    CHECK(tcc);
    CHECK_EQ(run("passes --agent 0 SQ_WAVES,SQ_INSTS_VALU").find("passes")->as_int(), int64_t{1});
    CHECK_EQ(run("passes --agent 0 SQ_WAVES,SQ_INSTS_VALU,SQ_INSTS_SALU,SQ_INSTS_LDS,SQ_INSTS_SMEM,SQ_INSTS_BRANCH,"
                 "SQ_INSTS_VMEM_RD,SQ_INSTS_VMEM_WR,SQ_CYCLES")
                 .find("passes")
                 ->as_int(),
             int64_t{2});
}

// The same plan through the sim backend and through the SDK emulator + rocm tool: the same
// dispatches, passes, geometry and counter values per instance (SQ and TCC have two dimensions,
// GRBM one; the emulator delivers instances in reverse, so the tool must place them by position).
static void check_same_as_sim(const std::vector<std::string>& app, size_t dispatch_lines) {
    PlanSpec p;
    Pass mixed{"SQ_WAVES:SQ", "TCC_READ:TCC", "GRBM_COUNT:GRBM"};
    p.agents = {{0, "gfx90a", {mixed, kGroup1}}, {1, "gfx942", {mixed, kGroup1}}};
    std::vector<std::string> env{std::string("GOROCPROF_SIM_INJECTION_PATH=") + ROCM_EMULATOR,
                                 std::string("ROCP_TOOL_LIBRARIES=") + ROCM_TOOL};
    AppRun rocm = check::run_app(make_plan(p), app, env);
    std::string sim_plan = check::replace_all(make_plan(p), "\"backend\":\"rocm\"", "\"backend\":\"sim\"");
    AppRun sim = check::run_app(sim_plan, app, {std::string("GOROCPROF_SIM_INJECTION_PATH=") + SIM_TOOL});
    CHECK(check::exited_ok(rocm) && check::exited_ok(sim));
    auto key = [](const Value& d) {
        std::string k = std::to_string(num(d, "dispatch_id")) + "/" + std::to_string(num(d, "pass")) + " agent " +
                        std::to_string(num(d, "agent_id")) + " of " + std::to_string(num(d, "passes"));
        for (const char* geometry : {"grid", "workgroup"})
            for (const Value& v : d.find(geometry)->items()) k += " " + std::to_string(v.as_int());
        return k;
    };
    auto what = [](const AppRun& r, const Value& d) {
        return kernel_names(r)[num(d, "kernel_id")] + " " + counter_names(d) + " " + values_of(d, "SQ_WAVES") + " " +
               values_of(d, "TCC_READ") + " " + values_of(d, "GRBM_COUNT") + " " + values_of(d, "SQ_INSTS_SALU");
    };
    std::map<std::string, std::string> want;
    for (const Value* d : of_type(sim, "dispatch")) want[key(*d)] = what(sim, *d);
    std::vector<const Value*> got = of_type(rocm, "dispatch");
    CHECK_EQ(got.size(), want.size());
    CHECK_EQ(got.size(), dispatch_lines);
    for (const Value* d : got) CHECK_EQ(what(rocm, *d), want[key(*d)]);
    // The GPUs are the sim's; the SDK's CPU agent (the emulator's one) is listed besides, unprofiled.
    auto agents_of = [](const AppRun& r, const std::string& type) {
        size_t n = 0;
        for (const Value* a : of_type(r, "agent")) n += a->find("type")->as_string() == type ? 1 : 0;
        return n;
    };
    CHECK_EQ(agents_of(rocm, "GPU"), of_type(sim, "agent").size());
    CHECK_EQ(agents_of(rocm, "CPU"), static_cast<size_t>(1));
    CHECK_EQ(agents_of(sim, "CPU"), static_cast<size_t>(0));
}

TEST_CASE(e2e_records_match_the_sim_backend) {
    check_same_as_sim({SIM_DEMO}, 60);
    check_same_as_sim({SIM_MANY, "10"}, 20);  // two work-groups: most shader engines read 0
}

TEST_CASE(e2e_front_end_environment_with_preloaded_sdk) {
    // What tool/rocm/README.md tells the front end to set: the SDK preloaded too.
    // Under AddressSanitizer a preloaded instrumented library comes before the sanitizer's runtime.
    const char* asan = std::getenv("ASAN_OPTIONS");
    std::string asan_options = std::string("ASAN_OPTIONS=") + (asan != nullptr ? std::string(asan) + ":" : "") +
                               "verify_asan_link_order=0";
    AppRun r = run_demo(three_and_two(),
                        {std::string("LD_PRELOAD=") + ROCM_EMULATOR, "ROCPROFILER_LIBRARY_CTOR=1", asan_options});
    CHECK(demo_passed(r));
    CHECK_EQ(num(*of_type(r, "end").front(), "replayed"), int64_t{30});
    CHECK_EQ(logical(r).size(), size_t{30});
}

TEST_CASE(e2e_many_threads_kernel_replay) {
    std::vector<std::string> env{std::string("GOROCPROF_SIM_INJECTION_PATH=") + ROCM_EMULATOR,
                                 std::string("ROCP_TOOL_LIBRARIES=") + ROCM_TOOL};
    AppRun r = check::run_app(make_plan(three_and_two()), {SIM_MANY, "200", "--threads", "4"}, env);
    CHECK(check::exited_ok(r) && r.out.find("sim-many: PASS") != std::string::npos);
    std::set<int64_t> ids;
    for (const auto& passes : logical(r)) {
        CHECK(ids.insert(num(*passes.front(), "dispatch_id")).second);
        size_t want = num(*passes.front(), "agent_id") == 1 ? 3 : 2;
        CHECK_EQ(passes.size(), want);
        for (size_t p = 0; p < passes.size(); ++p) {
            CHECK_EQ(num(*passes[p], "pass"), static_cast<int64_t>(p));
            CHECK_EQ(counter_names(*passes[p]), std::string(kGroupNames[p]));
            CHECK_EQ(num(*passes[p], "thread_id"), num(*passes.front(), "thread_id"));
        }
    }
    CHECK_EQ(ids.size(), size_t{200});
    CHECK(!ids.empty() && *ids.begin() == 1 && *ids.rbegin() == 200);
}

TEST_CASE(e2e_plan_of_another_backend_runs_unprofiled) {
    std::string plan = check::replace_all(make_plan(three_and_two()), "\"backend\":\"rocm\"", "\"backend\":\"sim\"");
    AppRun r = check::run_app(plan, {SIM_DEMO},
                              {std::string("GOROCPROF_SIM_INJECTION_PATH=") + ROCM_EMULATOR,
                               std::string("ROCP_TOOL_LIBRARIES=") + ROCM_TOOL});
    CHECK(demo_passed(r));
    std::vector<const Value*> fatals = of_type(r, "fatal");
    CHECK_EQ(fatals.size(), size_t{1});
    if (!fatals.empty())
        CHECK(fatals[0]->find("message")->as_string().find("backend \"sim\", but this is the rocm tool library") !=
              std::string::npos);
    CHECK(of_type(r, "dispatch").empty());
}
