// Tracing end to end through the rocprofiler-sdk emulator: sim-trace (two threads, nested and
// cross-thread ranges, marks, copies of every kind, kernels) with the emulator as its injection and
// libgorocprof_tool_rocm.so as the SDK's tool, the plan's trace_domains set, the record file read back.
#include "app_run.hpp"
#include "check.hpp"

#include <map>
#include <set>
#include <tuple>

using check::AppRun;
using check::num;
using check::of_type;
using gorocprof::json::Value;

namespace {

const char* kAllDomains =
    R"(["HIP_COMPILER_API","HIP_RUNTIME_API","HSA_AMD_EXT_API","HSA_CORE_API","HSA_FINALIZE_EXT_API","HSA_IMAGE_EXT_API","MARKER_CORE_RANGE_API","MEMORY_COPY"])";

// groups: counter groups per agent (1: no replay, 2: every dispatch replayed twice).
std::string plan(int groups, const std::string& domains) {
    const char* group[] = {R"({"group":0,"counters":[{"name":"SQ_WAVES","block":"SQ","event":0}]})",
                           R"({"group":1,"counters":[{"name":"SQ_INSTS_VALU","block":"SQ","event":0}]})"};
    std::string passes = group[0];
    if (groups > 1) passes += std::string(",") + group[1];
    return std::string(R"({"version":1,"backend":"rocm","replay_mode":"kernel","application_pass":-1,"kernel_trace":true,)") +
           R"("trace_domains":)" + domains +
           R"(,"filters":{"include_regex":"","exclude_regex":"","iteration_ranges":[]},"agents":[)" +
           R"({"index":0,"name":"gfx90a","passes":[)" + passes + R"(]},{"index":1,"name":"gfx942","passes":[)" + passes + "]}]}";
}

AppRun run_trace(int groups, const std::string& domains, const char* app = SIM_TRACE) {
    return check::run_app(plan(groups, domains), {app},
                          {std::string("GOROCPROF_SIM_INJECTION_PATH=") + ROCM_EMULATOR,
                           std::string("ROCP_TOOL_LIBRARIES=") + ROCM_TOOL, "GOROCPROF_SIM_AGENTS=gfx90a,gfx942"});
}

std::string str(const Value& v, const char* key) {
    const Value* f = v.find(key);
    return f != nullptr ? f->as_string() : std::string();
}

// What the application did, as the trace lines say it, without ids and times: equal between runs.
std::multiset<std::string> what_was_traced(const AppRun& r) {
    std::multiset<std::string> out;
    for (const Value* v : of_type(r, "api")) out.insert("api " + str(*v, "domain") + " " + str(*v, "op"));
    for (const Value* v : of_type(r, "marker")) out.insert("marker " + str(*v, "op") + " " + str(*v, "message"));
    for (const Value* v : of_type(r, "copy"))
        out.insert("copy " + str(*v, "op") + " " + std::to_string(num(*v, "size")) + " " +
                   std::to_string(num(*v, "src_agent_id")) + "->" + std::to_string(num(*v, "dst_agent_id")));
    return out;
}

std::set<std::string> values(const AppRun& r, const char* type, const char* key) {
    std::set<std::string> out;
    for (const Value* v : of_type(r, type)) out.insert(str(*v, key));
    return out;
}

std::map<int64_t, const Value*> api_by_correlation(const AppRun& r) {
    std::map<int64_t, const Value*> out;
    for (const Value* v : of_type(r, "api")) out[num(*v, "correlation_id")] = v;
    return out;
}

bool app_passed(const AppRun& r) { return check::exited_ok(r) && r.out.find("sim-trace: PASS") != std::string::npos; }

}  // namespace

TEST_CASE(trace_every_domain_once_under_kernel_replay) {
    AppRun once = run_trace(1, kAllDomains), replayed = run_trace(2, kAllDomains);
    CHECK(app_passed(once));
    CHECK(app_passed(replayed));  // memory restored between the passes: the app's own check
    CHECK(of_type(replayed, "fatal").empty());
    // Every domain the emulator feeds has lines (images and finalizers: no sim call stands for one).
    std::set<std::string> domains = values(replayed, "api", "domain");
    for (const char* d : {"HIP_RUNTIME_API", "HIP_COMPILER_API", "HSA_CORE_API", "HSA_AMD_EXT_API"})
        CHECK(domains.count(d) == 1);
    std::set<std::string> ops = values(replayed, "api", "op");
    for (const char* op : {"hipMemcpy", "hipMemcpyAsync", "hipLaunchKernel", "__hipRegisterFunction", "hsa_amd_memory_async_copy",
                           "hsa_signal_store_screlease"})
        CHECK(ops.count(op) == 1);
    std::set<std::string> markers = values(replayed, "marker", "op");
    for (const char* op : {"roctxThreadRangeA", "roctxProcessRangeA", "roctxMarkA"}) CHECK(markers.count(op) == 1);
    std::set<std::string> copies = values(replayed, "copy", "op");
    for (const char* op : {"MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
                           "MEMORY_COPY_DEVICE_TO_DEVICE"})
        CHECK(copies.count(op) == 1);
    // Two passes per dispatch, and still each call, marker and copy of the application once.
    for (const Value* d : of_type(replayed, "dispatch")) CHECK_EQ(num(*d, "passes"), int64_t{2});
    CHECK(!of_type(replayed, "dispatch").empty());
    CHECK(what_was_traced(once) == what_was_traced(replayed));
    CHECK(!what_was_traced(once).empty());
    // One counter for every call and marker: no id twice.
    std::set<int64_t> ids;
    for (const char* t : {"api", "marker"})
        for (const Value* v : of_type(replayed, t)) CHECK(ids.insert(num(*v, "correlation_id")).second);
}

TEST_CASE(trace_dispatches_and_copies_carry_their_calls_correlation) {
    AppRun r = run_trace(2, kAllDomains);
    CHECK(app_passed(r));
    std::map<int64_t, const Value*> calls = api_by_correlation(r);
    for (const Value* d : of_type(r, "dispatch")) {
        auto call = calls.find(num(*d, "correlation_id"));
        CHECK(call != calls.end());
        if (call == calls.end()) continue;
        CHECK_EQ(str(*call->second, "op"), std::string("hipLaunchKernel"));
        CHECK_EQ(num(*call->second, "thread_id"), num(*d, "thread_id"));
    }
    std::set<int64_t> cpus, gpus;
    for (const Value* a : of_type(r, "agent")) (str(*a, "type") == "CPU" ? cpus : gpus).insert(num(*a, "id"));
    CHECK(!cpus.empty());
    for (const Value* c : of_type(r, "copy")) {
        auto call = calls.find(num(*c, "correlation_id"));
        CHECK(call != calls.end());
        if (call == calls.end()) continue;
        std::string op = str(*call->second, "op");
        CHECK(op == "hipMemcpy" || op == "hipMemcpyAsync");
        CHECK_EQ(num(*call->second, "thread_id"), num(*c, "thread_id"));
        // The copy's own time lies within the call that issued it only when the call waited for it.
        if (op == "hipMemcpy") CHECK(num(*c, "start") >= num(*call->second, "start") && num(*c, "end") <= num(*call->second, "end"));
        std::string kind = str(*c, "op");
        bool host_src = kind == "MEMORY_COPY_HOST_TO_HOST" || kind == "MEMORY_COPY_HOST_TO_DEVICE";
        bool host_dst = kind == "MEMORY_COPY_HOST_TO_HOST" || kind == "MEMORY_COPY_DEVICE_TO_HOST";
        CHECK((host_src ? cpus : gpus).count(num(*c, "src_agent_id")) == 1);
        CHECK((host_dst ? cpus : gpus).count(num(*c, "dst_agent_id")) == 1);
    }
    // An HSA call lies inside the HIP call it stands in, on its thread.
    for (const Value* h : of_type(r, "api")) {
        if (str(*h, "domain").rfind("HSA_", 0) != 0) continue;
        bool inside = false;
        for (const Value* p : of_type(r, "api"))
            inside = inside || (str(*p, "domain") == "HIP_RUNTIME_API" && num(*p, "thread_id") == num(*h, "thread_id") &&
                                num(*p, "start") <= num(*h, "start") && num(*h, "end") <= num(*p, "end"));
        CHECK(inside);
    }
}

TEST_CASE(trace_markers_only) {
    AppRun r = run_trace(2, R"(["MARKER_CORE_RANGE_API"])");
    CHECK(app_passed(r));
    CHECK(of_type(r, "api").empty());
    CHECK(of_type(r, "copy").empty());
    std::vector<const Value*> ms = of_type(r, "marker");
    CHECK(!ms.empty());
    for (const Value* m : ms) {
        CHECK_EQ(str(*m, "domain"), std::string("MARKER_CORE_RANGE_API"));
        CHECK(num(*m, "end") >= num(*m, "start"));
        if (str(*m, "op") == "roctxMarkA") CHECK_EQ(num(*m, "start"), num(*m, "end"));
    }
    // Without an API domain a dispatch keeps the SDK's own numbering.
    for (const Value* d : of_type(r, "dispatch")) CHECK_EQ(num(*d, "correlation_id"), num(*d, "dispatch_id"));
}

TEST_CASE(trace_open_ranges_at_exit) {
    // The SDK never ends a range the application leaves open: the tool writes it at exit, once.
    AppRun r = run_trace(1, R"(["MARKER_CORE_RANGE_API"])", OPEN_RANGES_APP);
    CHECK(check::exited_ok(r) && r.out.find("open-ranges: PASS") != std::string::npos);
    std::map<std::string, const Value*> by_message;
    for (const Value* m : of_type(r, "marker")) CHECK(by_message.emplace(str(*m, "message"), m).second);
    CHECK_EQ(by_message.size(), size_t{3});
    for (const char* m : {"closed", "left open", "never stopped"}) CHECK(by_message.count(m) == 1);
    if (by_message.size() != 3) return;
    CHECK_EQ(str(*by_message["left open"], "op"), std::string("roctxThreadRangeA"));
    CHECK_EQ(str(*by_message["never stopped"], "op"), std::string("roctxProcessRangeA"));
    // Written with the exit's time: after the closed range ended.
    CHECK(num(*by_message["left open"], "end") >= num(*by_message["closed"], "end"));
    CHECK(num(*by_message["never stopped"], "end") >= num(*by_message["never stopped"], "start"));
    bool warned = false;
    for (const Value* w : of_type(r, "warning"))
        warned = warned || str(*w, "message").find("2 marker range(s) were still open") == 0;
    CHECK(warned);
}

TEST_CASE(trace_every_record_of_a_long_run) {
    // More records than one buffer's watermark: the SDK hands them over in batches while the app runs,
    // and the tool flushes the rest before `end`; none is lost or written twice.
    AppRun r = run_trace(1, R"(["HIP_RUNTIME_API","HSA_CORE_API"])", MANY_CALLS_APP);
    CHECK(check::exited_ok(r) && r.out.find("many-calls: PASS") != std::string::npos);
    std::set<int64_t> ids;
    size_t calls = 0;
    for (const Value* a : of_type(r, "api")) {
        CHECK(ids.insert(num(*a, "correlation_id")).second);
        if (str(*a, "op") == "hipGetDevice") ++calls;
    }
    CHECK_EQ(calls, size_t{50000});
}
