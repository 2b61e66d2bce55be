// The sim backend's tracing in-process: core initialised with a plan that traces every sim domain,
// the runtime's callbacks installed by install_tracing(), and the calls made here. What runs under
// core::trace::Quiet (the tool's own work) leaves no line, on the calling thread and on the stream
// worker that finishes its copy; a range started under Quiet is not ended by a later traced stop.
#include "core_fixture.hpp"

#include "tracing.hpp"

#include <trace.hpp>

#include <gorocprof/sim_marker.h>
#include <gorocprof/sim_tool.h>

using namespace core_fixture;
namespace trace = gorocprof::core::trace;

namespace {

const char* kTracedPlan = R"({"version": 1, "backend": "sim", "replay_mode": "none", "application_pass": -1,
 "kernel_trace": false, "filters": {"include_regex": "", "iteration_ranges": []},
 "trace_domains": ["HIP_COMPILER_API", "HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY"], "agents": []})";

std::string str_of(const Value& v, const char* key) {
    const Value* f = v.find(key);
    return f != nullptr ? f->as_string() : std::string();
}

}  // namespace

TEST_CASE(tracing_quiet_work_leaves_no_line) {
    CHECK(start(Setup{}, kTracedPlan));
    CHECK(gorocprof::sim::install_tracing());
    std::vector<uint32_t> host(1024, 3), back(1024, 0);
    void* dev = nullptr;
    simRangeId_t quiet_range = 0;
    {
        trace::Quiet quiet;
        CHECK_EQ(simMalloc(&dev, 4096), simSuccess);
        CHECK_EQ(simMemcpy(dev, host.data(), 4096), simSuccess);
        simStream_t s = nullptr;
        CHECK_EQ(simStreamCreate(&s), simSuccess);
        CHECK_EQ(simMemcpyAsync(back.data(), dev, 4096, s), simSuccess);  // finishes on the worker
        CHECK_EQ(simStreamSynchronize(s), simSuccess);
        CHECK_EQ(simStreamDestroy(s), simSuccess);
        simRangePushA("quiet");
        simMarkA("quiet");
        simRangePop();
        quiet_range = simRangeStartA("quiet");
    }
    CHECK(back == host);
    simRangeStop(quiet_range);  // its start was not traced: nothing to end
    CHECK_EQ(simMemcpy(back.data(), dev, 16), simSuccess);
    Core::instance().finish();

    std::vector<Value> recs = read_records();
    std::vector<Value> api = of_type(recs, "api");
    CHECK_EQ(api.size(), size_t{1});
    std::vector<Value> copies = of_type(recs, "copy");
    CHECK_EQ(copies.size(), size_t{1});
    CHECK(of_type(recs, "marker").empty());
    if (api.size() != 1 || copies.size() != 1) return;
    CHECK_EQ(str_of(api[0], "op"), std::string("simMemcpy"));
    CHECK_EQ(str_of(copies[0], "op"), std::string("MEMORY_COPY_DEVICE_TO_HOST"));
    CHECK_EQ(num(copies[0], "correlation_id"), num(api[0], "correlation_id"));
    CHECK_EQ(num(copies[0], "src_agent_id"), int64_t{1});
    CHECK_EQ(num(copies[0], "dst_agent_id"), int64_t(gorocprof::sim::kCpuAgentId));
    CHECK_EQ(num(api[0], "correlation_id"), int64_t{1});  // the quiet calls took no id
}

// Copies traced without any API domain: the copy lines come, with correlation id 0.
TEST_CASE(tracing_copies_without_api_domains) {
    std::string plan = replace(kTracedPlan, R"("HIP_COMPILER_API", "HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", )", "");
    CHECK(start(Setup{}, plan.c_str()));
    CHECK(gorocprof::sim::install_tracing());
    std::vector<uint32_t> host(1024, 3);
    void* dev = nullptr;
    CHECK_EQ(simMalloc(&dev, 4096), simSuccess);
    CHECK_EQ(simMemcpy(dev, host.data(), 4096), simSuccess);
    simMarkA("not traced");
    Core::instance().finish();
    std::vector<Value> recs = read_records();
    CHECK(of_type(recs, "api").empty());
    CHECK(of_type(recs, "marker").empty());
    std::vector<Value> copies = of_type(recs, "copy");
    CHECK_EQ(copies.size(), size_t{1});
    if (copies.size() == 1) {
        CHECK_EQ(str_of(copies[0], "op"), std::string("MEMORY_COPY_HOST_TO_DEVICE"));
        CHECK_EQ(num(copies[0], "correlation_id"), int64_t{0});
    }
    std::vector<Value> agents = of_type(recs, "agent");
    CHECK_EQ(agents.size(), size_t{1});  // the CPU: this test registers no GPU
    if (!agents.empty()) CHECK_EQ(str_of(agents[0], "type"), std::string("CPU"));
}
