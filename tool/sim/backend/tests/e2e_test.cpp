// End to end: an example app of the simulated runtime with libgorocprof_tool_sim.so injected, a
// plan written here, and the record file read back. Each case is one ctest test.
#include "app_run.hpp"
#include "check.hpp"

#include <json.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <algorithm>
#include <set>

using gorocprof::json::Value;

namespace {

using check::replace_all;

// Three passes on both default agents; SQ_WAVES is in every group.
const char* kPlan3 = R"({"version": 1, "backend": "sim", "replay_mode": "kernel", "application_pass": -1,
 "kernel_trace": false, "filters": {"include_regex": "%INCLUDE%", "exclude_regex": "%EXCLUDE%",
 "iteration_ranges": %RANGES%},
 "agents": [%AGENT0%, %AGENT1%]})";

const char* kAgentPasses = R"({"index": %I%, "name": "%NAME%", "passes": [
   {"group": 0, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "SQ_INSTS_VALU", "block": "SQ", "event": 26}]},
   {"group": 1, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "SQ_INSTS_SALU", "block": "SQ", "event": 27}]},
   {"group": 2, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "GRBM_COUNT", "block": "GRBM", "event": 0}]}]})";

const char* kGroupNames[] = {"SQ_WAVES,SQ_INSTS_VALU", "SQ_WAVES,SQ_INSTS_SALU", "SQ_WAVES,GRBM_COUNT"};

struct PlanSpec {
    std::string mode = "kernel";
    int application_pass = -1;
    bool kernel_trace = false;
    std::string include, exclude, ranges = "[]";
    bool agents = true;
};

std::string make_plan(const PlanSpec& p) {
    std::string plan = kPlan3;
    plan = replace_all(plan, "\"replay_mode\": \"kernel\"", "\"replay_mode\": \"" + p.mode + "\"");
    plan = replace_all(plan, "\"application_pass\": -1", "\"application_pass\": " + std::to_string(p.application_pass));
    plan = replace_all(plan, "\"kernel_trace\": false", p.kernel_trace ? "\"kernel_trace\": true" : "\"kernel_trace\": false");
    plan = replace_all(plan, "%INCLUDE%", p.include);
    plan = replace_all(plan, "%EXCLUDE%", p.exclude);
    plan = replace_all(plan, "%RANGES%", p.ranges);
    if (!p.agents) return replace_all(plan, "%AGENT0%, %AGENT1%", "");
    plan = replace_all(plan, "%AGENT0%", replace_all(replace_all(kAgentPasses, "%I%", "0"), "%NAME%", "gfx90a"));
    return replace_all(plan, "%AGENT1%", replace_all(replace_all(kAgentPasses, "%I%", "1"), "%NAME%", "gfx942"));
}

using Run = check::AppRun;
using check::counter_names;
using check::exited_ok;
using check::num;
using check::of_type;
using check::values_of;

// Runs `argv` with the sim tool injected; `env` entries are NAME=VALUE.
Run run_app(const std::string& plan, std::vector<std::string> argv, std::vector<std::string> env = {}) {
    env.push_back(std::string("GOROCPROF_SIM_INJECTION_PATH=") + GOROCPROF_TOOL_SIM);
    return check::run_app(plan, std::move(argv), env);
}

std::string t_of(const Value& v) { return check::type_of(v); }

std::map<int64_t, std::string> kernel_names(const Run& r) {
    std::map<int64_t, std::string> names;
    for (const Value* k : of_type(r, "kernel")) names[num(*k, "kernel_id")] = k->find("truncated")->as_string();
    return names;
}

// Checks the invariants of a kernel-replay record file where every dispatch has `passes` passes:
// the passes of one dispatch are consecutive lines 0..passes-1 with one dispatch_id, pass i carries
// group i, the shared SQ_WAVES is identical on every pass. Returns the dispatch ids in file order.
std::vector<int64_t> check_replayed(const Run& r, int64_t passes) {
    std::vector<int64_t> ids;
    std::vector<const Value*> ds = of_type(r, "dispatch");
    CHECK(!ds.empty());
    if (ds.size() % static_cast<size_t>(passes) != 0) {
        check::fail(__FILE__, __LINE__, "dispatch lines not a multiple of the pass count");
        return ids;
    }
    for (size_t i = 0; i < ds.size(); i += static_cast<size_t>(passes)) {
        const Value& first = *ds[i];
        int64_t id = num(first, "dispatch_id");
        ids.push_back(id);
        for (int64_t p = 0; p < passes; ++p) {
            const Value& d = *ds[i + static_cast<size_t>(p)];
            CHECK_EQ(num(d, "dispatch_id"), id);
            CHECK_EQ(num(d, "pass"), p);
            CHECK_EQ(num(d, "passes"), passes);
            CHECK_EQ(num(d, "kernel_id"), num(first, "kernel_id"));
            CHECK_EQ(num(d, "agent_id"), num(first, "agent_id"));
            CHECK_EQ(counter_names(d), std::string(kGroupNames[p]));
            CHECK_EQ(values_of(d, "SQ_WAVES"), values_of(first, "SQ_WAVES"));
            CHECK(num(d, "end") >= num(d, "start"));
            CHECK(num(d, "start") > 0);
        }
    }
    return ids;
}

}  // namespace

TEST_CASE(e2e_demo_kernel_replay_three_passes) {
    Run r = run_app(make_plan(PlanSpec{}), {SIM_DEMO});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-demo: PASS") != std::string::npos);  // memory restored: the app's own check
    CHECK_EQ(t_of(r.records.front()), std::string("header"));
    CHECK_EQ(t_of(r.records.back()), std::string("end"));
    CHECK_EQ(of_type(r, "agent").size(), size_t{2});
    std::vector<int64_t> ids = check_replayed(r, 3);
    // Contiguous from 1, each once.
    std::set<int64_t> unique(ids.begin(), ids.end());
    CHECK_EQ(unique.size(), ids.size());
    CHECK(!unique.empty() && *unique.begin() == 1 && *unique.rbegin() == static_cast<int64_t>(ids.size()));
    const Value& end = *of_type(r, "end").front();
    CHECK_EQ(num(end, "dispatches"), static_cast<int64_t>(ids.size()));
    CHECK_EQ(num(end, "replayed"), static_cast<int64_t>(ids.size()));
    CHECK_EQ(num(end, "declined"), int64_t{0});
    // Counter values per hardware instance: 8 shader engines on gfx90a, 32 on gfx942.
    for (const Value* d : of_type(r, "dispatch")) {
        size_t instances = d->find("counters")->items()[0].find("values")->items().size();
        CHECK_EQ(instances, num(*d, "agent_id") == 1 ? size_t{8} : size_t{32});
    }
    CHECK(of_type(r, "decline").empty());
    CHECK(of_type(r, "fatal").empty());
}

TEST_CASE(e2e_filters_exclude_and_iterations) {
    PlanSpec p;
    p.exclude = "reduce";
    p.ranges = "[[2, 3]]";
    Run r = run_app(make_plan(p), {SIM_DEMO});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-demo: PASS") != std::string::npos);
    std::map<int64_t, std::string> names = kernel_names(r);
    std::vector<int64_t> ids = check_replayed(r, 3);
    std::map<std::string, int> per_name;
    for (const Value* d : of_type(r, "dispatch")) {
        std::string name = names[num(*d, "kernel_id")];
        CHECK(name.find("reduce") == std::string::npos);
        if (num(*d, "pass") == 0) ++per_name[name];
    }
    // Iterations 2 and 3 of each kernel id, as rocprofv3 counts them: the demo launches each kernel 3
    // times on each of its 2 agents, whose copies have ids of their own, so 2 of each name's 3 per agent.
    CHECK(!per_name.empty());
    for (const auto& kv : per_name) CHECK_EQ(kv.second, 4);
    // Filtered dispatches consumed ids: gaps, but ascending and unique.
    for (size_t i = 1; i < ids.size(); ++i) CHECK(ids[i] > ids[i - 1]);
    CHECK(!ids.empty() && ids.back() > static_cast<int64_t>(ids.size()));
}

TEST_CASE(e2e_declined_snapshot_is_reported_and_app_correct) {
    Run r = run_app(make_plan(PlanSpec{}), {SIM_DEMO}, {"GOROCPROF_SIM_FAIL=snapshot"});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-demo: PASS") != std::string::npos);
    std::vector<const Value*> ds = of_type(r, "dispatch");
    std::vector<const Value*> declines = of_type(r, "decline");
    CHECK(!ds.empty());
    CHECK_EQ(declines.size(), ds.size());  // every dispatch ran once and says why
    for (const Value* d : ds) {
        CHECK_EQ(num(*d, "pass"), int64_t{0});
        CHECK_EQ(num(*d, "passes"), int64_t{1});
    }
    for (const Value* d : declines) CHECK_EQ(d->find("reason")->as_string(), std::string("snapshot: simulated backup failure"));
    CHECK(r.out.find("snapshot: simulated backup failure") != std::string::npos);  // and on stderr
    const Value& end = *of_type(r, "end").front();
    CHECK_EQ(num(end, "declined"), static_cast<int64_t>(ds.size()));
    CHECK_EQ(num(end, "replayed"), int64_t{0});
}

TEST_CASE(e2e_restore_failure_is_fatal) {
    Run r = run_app(make_plan(PlanSpec{}), {SIM_DEMO}, {"GOROCPROF_SIM_FAIL=restore@1"});
    std::vector<const Value*> fatals = of_type(r, "fatal");
    CHECK(!fatals.empty());
    if (!fatals.empty()) CHECK(fatals[0]->find("message")->as_string().find("restore: simulated restore failure") != std::string::npos);
    CHECK(r.out.find("restore: simulated restore failure") != std::string::npos);
}

TEST_CASE(e2e_crash_keeps_complete_lines_without_end) {
    Run r = run_app(make_plan(PlanSpec{}), {SIM_CRASH});
    CHECK(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGABRT);
    CHECK(!r.raw.empty() && r.raw.back() == '\n');
    CHECK(of_type(r, "end").empty());
    std::vector<int64_t> ids = check_replayed(r, 3);
    CHECK_EQ(ids, (std::vector<int64_t>{1, 2, 3}));
}

TEST_CASE(e2e_bad_plan_runs_unprofiled) {
    Run r = run_app(R"({"version": 2, "backend": "sim"})", {SIM_DEMO});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-demo: PASS") != std::string::npos);
    std::vector<const Value*> fatals = of_type(r, "fatal");
    CHECK_EQ(fatals.size(), size_t{1});
    if (!fatals.empty())
        CHECK_EQ(fatals[0]->find("message")->as_string(),
                  "plan " + r.dir + "/plan.json: version 2, this tool library speaks contract 1; the application runs unprofiled");
    CHECK(of_type(r, "dispatch").empty());
    CHECK(r.out.find("gorocprof-tool: fatal: plan " + r.dir + "/plan.json: version 2") != std::string::npos);
}

TEST_CASE(e2e_application_replay_collects_its_pass) {
    PlanSpec p;
    p.mode = "application";
    p.application_pass = 1;
    Run r = run_app(make_plan(p), {SIM_DEMO});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-demo: PASS") != std::string::npos);
    std::vector<const Value*> ds = of_type(r, "dispatch");
    CHECK(!ds.empty());
    std::set<int64_t> ids;
    for (const Value* d : ds) {
        CHECK_EQ(num(*d, "pass"), int64_t{1});
        CHECK_EQ(num(*d, "passes"), int64_t{3});
        CHECK_EQ(counter_names(*d), std::string(kGroupNames[1]));
        ids.insert(num(*d, "dispatch_id"));
    }
    CHECK_EQ(ids.size(), ds.size());
}

TEST_CASE(e2e_kernel_trace_only) {
    PlanSpec p;
    p.mode = "none";
    p.kernel_trace = true;
    p.agents = false;
    Run r = run_app(make_plan(p), {SIM_DEMO});
    CHECK(exited_ok(r));
    std::vector<const Value*> ds = of_type(r, "dispatch");
    CHECK(!ds.empty());
    for (const Value* d : ds) {
        CHECK_EQ(num(*d, "passes"), int64_t{1});
        CHECK(d->find("counters") == nullptr);
        CHECK(num(*d, "end") >= num(*d, "start"));
    }
    CHECK(of_type(r, "warning").empty());  // no counters asked for: no agent is "missing"
}

TEST_CASE(e2e_many_threads_kernel_replay) {
    Run r = run_app(make_plan(PlanSpec{}), {SIM_MANY, "200", "--threads", "4"});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-many: PASS") != std::string::npos);
    std::vector<int64_t> ids = check_replayed(r, 3);
    std::set<int64_t> unique(ids.begin(), ids.end());
    CHECK_EQ(unique.size(), ids.size());
    CHECK(!unique.empty() && *unique.begin() == 1 && *unique.rbegin() == static_cast<int64_t>(ids.size()));
}

// ---- tracing (docs/tracing.md) ----

namespace {

// Kernel replay, two groups on both agents, every sim trace domain.
std::string trace_plan() {
    std::string agent = R"({"index": %I%, "name": "%NAME%", "passes": [
   {"group": 0, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "SQ_INSTS_VALU", "block": "SQ", "event": 26}]},
   {"group": 1, "counters": [{"name": "SQ_WAVES", "block": "SQ", "event": 4}, {"name": "SQ_INSTS_SALU", "block": "SQ", "event": 27}]}]})";
    std::string plan = R"({"version": 1, "backend": "sim", "replay_mode": "kernel", "application_pass": -1,
 "kernel_trace": false, "filters": {"include_regex": "", "exclude_regex": "", "iteration_ranges": []},
 "trace_domains": ["HIP_COMPILER_API", "HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY"],
 "agents": [%AGENT0%, %AGENT1%]})";
    plan = replace_all(plan, "%AGENT0%", replace_all(replace_all(agent, "%I%", "0"), "%NAME%", "gfx90a"));
    return replace_all(plan, "%AGENT1%", replace_all(replace_all(agent, "%I%", "1"), "%NAME%", "gfx942"));
}

std::string str_of(const Value& v, const char* key) {
    const Value* f = v.find(key);
    return f != nullptr ? f->as_string() : std::string();
}

// The api lines' ops of one thread in the order the calls started.
std::vector<std::string> ops_of_thread(const std::vector<const Value*>& api, int64_t tid) {
    std::vector<const Value*> mine;
    for (const Value* a : api)
        if (num(*a, "thread_id") == tid) mine.push_back(a);
    std::stable_sort(mine.begin(), mine.end(),
                     [](const Value* x, const Value* y) { return num(*x, "start") < num(*y, "start"); });
    std::vector<std::string> ops;
    for (const Value* a : mine) ops.push_back(str_of(*a, "op"));
    return ops;
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : " ") + x;
    return s;
}

}  // namespace

// Every call, marker and copy of sim-trace appears exactly once although each kernel runs twice and
// memory is restored between the passes; dispatches and copies carry the ids of the calls that issued
// them; the host side of copies is the CPU agent.
TEST_CASE(e2e_trace_all_domains_kernel_replay) {
    Run r = run_app(trace_plan(), {SIM_TRACE});
    CHECK(exited_ok(r));
    CHECK(r.out.find("sim-trace: PASS") != std::string::npos);  // memory restored between passes
    CHECK(of_type(r, "fatal").empty());

    // Agents: the two GPUs and the CPU (id 0), the CPU before the first copy.
    std::vector<const Value*> agents = of_type(r, "agent");
    CHECK_EQ(agents.size(), size_t{3});
    const Value* cpu = nullptr;
    for (const Value* a : agents)
        if (str_of(*a, "type") == "CPU") cpu = a;
    CHECK(cpu != nullptr);
    if (cpu != nullptr) CHECK_EQ(num(*cpu, "id"), int64_t{0});
    size_t cpu_line = 0, first_copy_line = 0;
    for (size_t i = 0; i < r.records.size(); ++i) {
        if (&r.records[i] == cpu) cpu_line = i;
        if (first_copy_line == 0 && t_of(r.records[i]) == "copy") first_copy_line = i;
    }
    CHECK(cpu_line < first_copy_line);

    // API calls: per thread, each once, in the app's order. Thread 0 is the one that registered.
    std::vector<const Value*> api = of_type(r, "api");
    std::map<int64_t, const Value*> by_corr;
    int64_t main_tid = -1;
    for (const Value* a : api) {
        CHECK(by_corr.emplace(num(*a, "correlation_id"), a).second);  // unique ids
        CHECK(num(*a, "end") >= num(*a, "start"));
        bool compiler = str_of(*a, "op") == "simRegisterKernel" || str_of(*a, "op") == "simModuleGlobal";
        CHECK_EQ(str_of(*a, "domain"), std::string(compiler ? "HIP_COMPILER_API" : "HIP_RUNTIME_API"));
        if (str_of(*a, "op") == "simRegisterKernel") main_tid = num(*a, "thread_id");
    }
    int64_t other_tid = -1;
    for (const Value* a : api)
        if (num(*a, "thread_id") != main_tid) other_tid = num(*a, "thread_id");
    CHECK_EQ(joined(ops_of_thread(api, main_tid)),
             std::string("simGetDeviceCount simRegisterKernel simGetDevice simModuleGlobal simMalloc simMalloc simMemcpy "
                         "simMemset simLaunchKernel simLaunchKernel simStreamSynchronize simStreamCreate simMemsetAsync "
                         "simMemcpyAsync simLaunchKernel simStreamSynchronize simStreamDestroy simMemcpy simMemcpy "
                         "simFree simFree simFree"));
    CHECK_EQ(joined(ops_of_thread(api, other_tid)),
             std::string("simSetDevice simGetDevice simModuleGlobal simMalloc simMemcpy simStreamCreate simLaunchKernel "
                         "simMemcpyAsync simStreamSynchronize simStreamDestroy"));

    // Dispatches: 4 launches x 2 passes, each with the correlation id of its simLaunchKernel.
    std::vector<const Value*> ds = of_type(r, "dispatch");
    CHECK_EQ(ds.size(), size_t{8});
    std::set<int64_t> launch_ids;
    for (const Value* d : ds) {
        auto it = by_corr.find(num(*d, "correlation_id"));
        CHECK(it != by_corr.end());
        if (it == by_corr.end()) continue;
        CHECK_EQ(str_of(*it->second, "op"), std::string("simLaunchKernel"));
        CHECK_EQ(num(*d, "thread_id"), num(*it->second, "thread_id"));
        launch_ids.insert(it->first);
    }
    CHECK_EQ(launch_ids.size(), size_t{4});

    // Copies: once each, kind and agents by where the memory is, ids of the issuing calls.
    std::vector<const Value*> copies = of_type(r, "copy");
    std::multiset<std::string> kinds;
    for (const Value* c : copies) {
        std::string op = str_of(*c, "op");
        kinds.insert(op + " " + std::to_string(num(*c, "src_agent_id")) + "->" + std::to_string(num(*c, "dst_agent_id")));
        auto it = by_corr.find(num(*c, "correlation_id"));
        CHECK(it != by_corr.end());
        if (it == by_corr.end()) continue;
        std::string call = str_of(*it->second, "op");
        CHECK(call == "simMemcpy" || call == "simMemcpyAsync");
        CHECK_EQ(num(*c, "thread_id"), num(*it->second, "thread_id"));
        CHECK_EQ(num(*c, "size"), int64_t{16384});
        CHECK(num(*c, "start") <= num(*c, "end"));
        CHECK_EQ(num(*c, "stream_id") == 0, call == "simMemcpy");
    }
    CHECK_EQ(copies.size(), size_t{6});
    std::multiset<std::string> want = {"MEMORY_COPY_HOST_TO_DEVICE 0->1", "MEMORY_COPY_DEVICE_TO_DEVICE 1->1",
                                       "MEMORY_COPY_DEVICE_TO_DEVICE 1->2", "MEMORY_COPY_DEVICE_TO_HOST 2->0",
                                       "MEMORY_COPY_DEVICE_TO_HOST 1->0", "MEMORY_COPY_HOST_TO_HOST 0->0"};
    CHECK(kinds == want);

    // Markers: six thread ranges, one process range started on thread 0 and stopped on the other, two marks.
    std::multiset<std::string> markers;
    for (const Value* m : of_type(r, "marker")) {
        CHECK_EQ(str_of(*m, "domain"), std::string("MARKER_CORE_RANGE_API"));
        std::string op = str_of(*m, "op");
        markers.insert(op + ":" + str_of(*m, "message"));
        if (op == "roctxMarkA") CHECK_EQ(num(*m, "start"), num(*m, "end"));
        if (op == "roctxProcessRangeA") CHECK_EQ(num(*m, "thread_id"), main_tid);
        CHECK(by_corr.find(num(*m, "correlation_id")) == by_corr.end());  // one counter for all
    }
    std::multiset<std::string> want_markers = {
        "roctxThreadRangeA:setup", "roctxThreadRangeA:compute", "roctxThreadRangeA:iteration 0",
        "roctxThreadRangeA:iteration 1", "roctxThreadRangeA:thread 1", "roctxThreadRangeA:kernel on device 1",
        "roctxProcessRangeA:handed to thread 1", "roctxMarkA:device 0 done", "roctxMarkA:thread 1 done"};
    CHECK(markers == want_markers);
}

// Without trace_domains the app's calls leave no trace line and no CPU agent.
TEST_CASE(e2e_trace_off_writes_no_trace_lines) {
    PlanSpec p;
    Run r = run_app(make_plan(p), {SIM_TRACE});
    CHECK(exited_ok(r));
    CHECK(of_type(r, "api").empty());
    CHECK(of_type(r, "copy").empty());
    CHECK(of_type(r, "marker").empty());
    CHECK_EQ(of_type(r, "agent").size(), size_t{2});
    for (const Value* d : of_type(r, "dispatch")) CHECK(num(*d, "correlation_id") == num(*d, "dispatch_id"));
}
