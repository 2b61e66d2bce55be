// Tracing over the runtime's hooks. The value an ENTER returns to the runtime is kAppCall | the
// call's correlation id (0 when its domain is not traced): the bit says the call is the
// application's, made outside a core::trace::Quiet, so that a copy finishing on a stream's worker,
// where the issuing thread's Quiet is not visible, is recorded only when its call was the app's.
#include "tracing.hpp"

#include "core.hpp"
#include "trace.hpp"

#include <unistd.h>

#include <fstream>
#include <mutex>
#include <string>
#include <unordered_map>

namespace gorocprof::sim {
namespace {

namespace trace = core::trace;

constexpr uint64_t kAppCall = uint64_t{1} << 63;

bool g_api_traced = false;  // any API domain, fixed at install (before the first traced call)

// simRangeStartA's ids (the runtime's) -> core's range ids. Start and stop may be on two threads.
std::mutex g_ranges_mu;
std::unordered_map<uint64_t, uint64_t> g_ranges;

bool api_domain(simToolApiDomain d, trace::Domain* out) {
    switch (d) {
    case SIM_API_DOMAIN_RUNTIME: *out = trace::Domain::HipRuntime; return true;
    case SIM_API_DOMAIN_COMPILER: *out = trace::Domain::HipCompiler; return true;
    case SIM_API_DOMAIN_MARKER: return false;
    }
    return false;
}

const char* message_of(const simToolApiCall* c) { return c->message != nullptr ? c->message : ""; }

// Markers: rocprofv3's names for what roctx's calls make (docs/tracing.md, record lines).
void on_marker_enter(const simToolApiCall* c) {
    switch (c->id) {
    case SIM_API_ID_simMarkA: trace::marker_mark("roctxMarkA", message_of(c)); break;
    case SIM_API_ID_simRangePushA: trace::marker_push("roctxThreadRangeA", message_of(c)); break;
    case SIM_API_ID_simRangePop: trace::marker_pop(); break;
    case SIM_API_ID_simRangeStop: {
        uint64_t id = 0;
        {
            std::lock_guard<std::mutex> lock(g_ranges_mu);
            auto it = g_ranges.find(c->range_id);
            if (it == g_ranges.end()) return;
            id = it->second;
            g_ranges.erase(it);
        }
        trace::marker_stop(id);
        break;
    }
    default: break;
    }
}

// The new range's id is the runtime's answer, known at EXIT.
void on_marker_exit(const simToolApiCall* c) {
    if (c->id != SIM_API_ID_simRangeStartA) return;
    uint64_t id = trace::marker_start("roctxProcessRangeA", message_of(c));
    if (id == 0) return;
    std::lock_guard<std::mutex> lock(g_ranges_mu);
    g_ranges[c->range_id] = id;
}

uint64_t on_api(const simToolApiCall* c, void*) {
    if (c->phase == SIM_API_PHASE_ENTER) {
        if (trace::quiet()) return 0;
        trace::Domain d;
        if (!api_domain(c->domain, &d)) {
            on_marker_enter(c);
            return kAppCall;
        }
        return kAppCall | (trace::enabled(d) ? trace::next_correlation_id() : 0);
    }
    if ((c->enter_value & kAppCall) == 0) return 0;
    trace::Domain d;
    if (!api_domain(c->domain, &d)) {
        on_marker_exit(c);
        return 0;
    }
    uint64_t correlation_id = c->enter_value & ~kAppCall;
    if (correlation_id != 0) trace::record_api(d, c->name, correlation_id, c->thread_id, c->enter_ns, c->timestamp_ns);
    return 0;
}

const char* copy_op(simToolCopyKind k) {
    switch (k) {
    case SIM_COPY_HOST_TO_HOST: return "MEMORY_COPY_HOST_TO_HOST";
    case SIM_COPY_HOST_TO_DEVICE: return "MEMORY_COPY_HOST_TO_DEVICE";
    case SIM_COPY_DEVICE_TO_HOST: return "MEMORY_COPY_DEVICE_TO_HOST";
    case SIM_COPY_DEVICE_TO_DEVICE: return "MEMORY_COPY_DEVICE_TO_DEVICE";
    }
    return nullptr;
}

uint64_t agent_id_of(int device) { return device < 0 ? kCpuAgentId : static_cast<uint64_t>(device) + 1; }

// On the issuing thread (simMemcpy) or the stream's worker (simMemcpyAsync).
void on_copy(const simToolCopy* c, void*) {
    if ((c->api_value & kAppCall) == 0 || !trace::enabled(trace::Domain::MemoryCopy)) return;
    const char* op = copy_op(c->kind);
    if (op == nullptr) return;
    trace::Copy t;
    t.op = op;
    t.correlation_id = c->api_value & ~kAppCall;
    t.thread_id = c->thread_id;
    t.src_agent_id = agent_id_of(c->src_device);
    t.dst_agent_id = agent_id_of(c->dst_device);
    t.queue_id = c->stream_id;
    t.stream_id = c->stream_id;
    t.size = c->bytes;
    t.src_address = reinterpret_cast<uintptr_t>(c->src);
    t.dst_address = reinterpret_cast<uintptr_t>(c->dst);
    t.start = c->start_ns;
    t.end = c->end_ns;
    trace::record_copy(t);
}

// /proc/cpuinfo's first "model name"; "" when it cannot be read (not every architecture has one).
std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.compare(0, 10, "model name") != 0) continue;
        size_t colon = line.find(':');
        if (colon == std::string::npos) return "";
        size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
    }
    return "";
}

// The host as agent_info lists a CPU: what this machine says of itself, nothing made up.
void describe_cpu() {
    core::AgentInfo a;
    a.id = kCpuAgentId;
    a.index = -1;
    a.type = "CPU";
    a.name = cpu_model_name();
    a.product_name = a.name;
    a.props = {{"node_id", 0}, {"logical_node_id", 0}, {"logical_node_type_id", 0}};
    long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 0) a.props.emplace_back("cpu_cores_count", cpus);
    a.strings = {{"model_name", a.name}};
    core::Core::instance().describe_agent(a);
}

}  // namespace

bool install_tracing() {
    // Read outside any Quiet: initialisation runs on the application's first call.
    const bool api = trace::enabled(trace::Domain::HipRuntime) || trace::enabled(trace::Domain::HipCompiler);
    const bool markers = trace::enabled(trace::Domain::Marker);
    const bool copies = trace::enabled(trace::Domain::MemoryCopy);
    g_api_traced = trace::any_api_enabled();
    if (!api && !markers && !copies) return true;
    core::Core& core = core::Core::instance();
    if (copies) describe_cpu();
    if (simToolSetApiCallback(on_api, nullptr) != simSuccess ||
        (copies && simToolSetCopyCallback(on_copy, nullptr) != simSuccess)) {
        core.fatal(std::string("installing the sim trace callbacks: ") + simGetLastErrorMessage() +
                   "; the application runs unprofiled");
        simToolSetApiCallback(nullptr, nullptr);
        simToolSetCopyCallback(nullptr, nullptr);
        return false;
    }
    return true;
}

uint64_t dispatch_correlation(const simLaunch* l, uint64_t dispatch_id) {
    if (!g_api_traced) return dispatch_id;
    return (l->api_value & kAppCall) != 0 ? l->api_value & ~kAppCall : 0;
}

}  // namespace gorocprof::sim
