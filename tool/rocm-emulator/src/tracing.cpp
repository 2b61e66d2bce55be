// API, marker and memory copy tracing of the emulated SDK, made from the sim runtime's tracing hooks.
// The sim runtime has HIP-like calls and no HSA layer: each sim call is reported as the HIP call it
// stands for, under the SDK's operation number for that name, and, where a HIP runtime would make one,
// as the HSA call nested in it (tool/rocm-emulator/README.md, "What it emulates", lists both). One
// counter numbers every traced call, marker and untraced dispatch, as the SDK's correlation ids.
#include "emulator.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gorocprof::rocmemu::tracing {
namespace {

// One sim call: the HIP call it stands for and the HSA call a HIP runtime makes inside that (none:
// hsa_name nullptr). Operation numbers are the SDK's for these names (public tree, ROCm/rocm-systems
// 1b1610fc with the HIP headers of ROCm/HIP c5e11fc and ROCm/clr): the ABI test's partner,
// rocm_emulator.tracing_operations_by_name, pins them.
struct OpDef {
    const char* sim;
    int kind;  // HIP_RUNTIME_API or HIP_COMPILER_API (buffer kind numbers)
    int op;
    const char* name;
    int hsa_kind;
    int hsa_op;
    const char* hsa_name;
};

constexpr int kHip = ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, kHipCompiler = ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API,
              kHsaCore = ROCPROFILER_BUFFER_TRACING_HSA_CORE_API, kHsaAmd = ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API;

const OpDef kOps[] = {
    {"simGetDeviceCount", kHip, 103, "hipGetDeviceCount", kHsaCore, 5, "hsa_iterate_agents"},
    {"simSetDevice", kHip, 327, "hipSetDevice", 0, 0, nullptr},
    {"simGetDevice", kHip, 102, "hipGetDevice", 0, 0, nullptr},
    {"simMemGetInfo", kHip, 236, "hipMemGetInfo", kHsaCore, 6, "hsa_agent_get_info"},
    {"simMalloc", kHip, 215, "hipMalloc", kHsaAmd, 13, "hsa_amd_memory_pool_allocate"},
    {"simFree", kHip, 90, "hipFree", kHsaAmd, 14, "hsa_amd_memory_pool_free"},
    {"simMemcpy", kHip, 259, "hipMemcpy", kHsaAmd, 15, "hsa_amd_memory_async_copy"},
    {"simMemset", kHip, 288, "hipMemset", kHsaAmd, 24, "hsa_amd_memory_fill"},
    {"simMemcpyAsync", kHip, 268, "hipMemcpyAsync", kHsaAmd, 15, "hsa_amd_memory_async_copy"},
    {"simMemsetAsync", kHip, 293, "hipMemsetAsync", kHsaAmd, 24, "hsa_amd_memory_fill"},
    {"simStreamCreate", kHip, 334, "hipStreamCreate", kHsaCore, 7, "hsa_queue_create"},
    {"simStreamDestroy", kHip, 337, "hipStreamDestroy", kHsaCore, 9, "hsa_queue_destroy"},
    {"simStreamSynchronize", kHip, 346, "hipStreamSynchronize", kHsaCore, 44, "hsa_signal_wait_scacquire"},
    {"simDeviceSynchronize", kHip, 66, "hipDeviceSynchronize", kHsaCore, 44, "hsa_signal_wait_scacquire"},
    {"simStreamCompletedLaunches", kHip, 345, "hipStreamQuery", 0, 0, nullptr},
    {"simLaunchKernel", kHip, 214, "hipLaunchKernel", kHsaCore, 42, "hsa_signal_store_screlease"},
    {"simRegisterKernel", kHipCompiler, 3, "__hipRegisterFunction", 0, 0, nullptr},
    {"simModuleGlobal", kHipCompiler, 7, "__hipRegisterVar", 0, 0, nullptr},
};

const char* const kCopyOps[] = {nullptr, "MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE",
                                "MEMORY_COPY_DEVICE_TO_HOST", "MEMORY_COPY_DEVICE_TO_DEVICE"};
static_assert(sizeof kCopyOps / sizeof kCopyOps[0] == ROCPROFILER_MEMORY_COPY_LAST, "one name per copy operation");

const char* const kMarkerCoreOps[] = {"roctxMarkA", "roctxRangePushA", "roctxRangePop", "roctxRangeStartA", "roctxRangeStop",
                                      "roctxGetThreadId"};
static_assert(sizeof kMarkerCoreOps / sizeof kMarkerCoreOps[0] == ROCPROFILER_MARKER_CORE_API_ID_LAST,
              "one name per marker call");

const char* const kMarkerRangeOps[] = {"roctxMarkA", "roctxThreadRangeA", "roctxProcessRangeA", "roctxGetThreadId"};
static_assert(sizeof kMarkerRangeOps / sizeof kMarkerRangeOps[0] == ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST,
              "one name per marker range operation");

const OpDef* op_by_sim_name(std::string_view sim) {
    static const auto* by_name = [] {
        auto* m = new std::unordered_map<std::string_view, const OpDef*>;  // never freed: used at exit
        for (const OpDef& d : kOps) m->emplace(d.sim, &d);
        return m;
    }();
    auto it = by_name->find(sim);
    return it == by_name->end() ? nullptr : it->second;
}

std::atomic<uint64_t> g_correlation{0};
uint64_t next_correlation() { return g_correlation.fetch_add(1, std::memory_order_relaxed) + 1; }

uint64_t os_thread_id() {
    thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return tid;
}

uint64_t now() { return static_cast<uint64_t>(simToolClockNs()); }

// The value the runtime keeps for the work a call enqueues (a copy finishing on a stream's worker, a
// launch): the call's correlation id, 0 when it is not traced, kInternal for the SDK's own calls.
constexpr uint64_t kInternal = UINT64_MAX;

// A sim call open on this thread: its HIP record and the HSA record nested in it, each taken only when
// a buffer traces its kind and operation.
struct Frame {
    const OpDef* def = nullptr;
    uint64_t hip_correlation = 0, hsa_correlation = 0;
    uint64_t hip_start = 0, hsa_start = 0;
    bool internal = false;
    uint64_t work() const { return hip_correlation != 0 ? hip_correlation : hsa_correlation; }
};

struct ThreadState {
    std::vector<Frame> frames;
    int internal = 0;
};
thread_local ThreadState t_state;

void api_record(int kind, int op, uint64_t correlation, uint64_t ancestor, uint64_t start, uint64_t end) {
    BufferedRecord r{};
    r.kind = static_cast<uint32_t>(kind);
    // The HIP and HSA records share one layout (buffer_tracing.h).
    rocprofiler_buffer_tracing_hip_api_record_t& h = r.u.hip;
    h.size = sizeof h;
    h.kind = static_cast<rocprofiler_buffer_tracing_kind_t>(kind);
    h.operation = op;
    h.correlation_id.internal = correlation;
    h.correlation_id.ancestor = ancestor;
    h.start_timestamp = start;
    h.end_timestamp = end;
    h.thread_id = os_thread_id();
    buffer_record(op, r);
}

}  // namespace

// ---- API calls -----------------------------------------------------------------------------------

uint64_t api_enter(const char* sim_name) {
    ThreadState& t = t_state;
    Frame f;
    f.def = sim_name != nullptr ? op_by_sim_name(sim_name) : nullptr;
    f.internal = t.internal > 0;
    if (!f.internal && f.def != nullptr) {
        if (buffer_traced(f.def->kind, f.def->op)) {
            f.hip_correlation = next_correlation();
            f.hip_start = now();
        }
        if (f.def->hsa_name != nullptr && buffer_traced(f.def->hsa_kind, f.def->hsa_op)) {
            f.hsa_correlation = next_correlation();
            f.hsa_start = now();
        }
    }
    t.frames.push_back(f);
    return f.internal ? kInternal : f.work();
}

void api_exit() {
    ThreadState& t = t_state;
    if (t.frames.empty()) return;
    Frame f = t.frames.back();
    t.frames.pop_back();
    if (f.hsa_correlation != 0) api_record(f.def->hsa_kind, f.def->hsa_op, f.hsa_correlation, f.hip_correlation, f.hsa_start, now());
    if (f.hip_correlation != 0) api_record(f.def->kind, f.def->op, f.hip_correlation, 0, f.hip_start, now());
}

uint64_t launch_correlation(uint64_t api_value, uint64_t dispatch_id) {
    return api_value != 0 && api_value != kInternal ? api_value : dispatch_id;
}

Internal::Internal() { ++t_state.internal; }
Internal::~Internal() { --t_state.internal; }

// ---- Memory copies -------------------------------------------------------------------------------

void copy_done(int op, int src_device, int dst_device, uint64_t bytes, uint64_t src, uint64_t dst, int64_t start, int64_t end,
               uint64_t work, uint64_t thread_id) {
    if (work == kInternal || op <= ROCPROFILER_MEMORY_COPY_NONE || op >= ROCPROFILER_MEMORY_COPY_LAST) return;
    if (!buffer_traced(ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, op)) return;
    const Agent* s = agent_by_sim_index(src_device < 0 ? -1 : src_device);
    const Agent* d = agent_by_sim_index(dst_device < 0 ? -1 : dst_device);
    BufferedRecord r{};
    r.kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
    rocprofiler_buffer_tracing_memory_copy_record_t& c = r.u.copy;
    c.size = sizeof c;
    c.kind = ROCPROFILER_BUFFER_TRACING_MEMORY_COPY;
    c.operation = static_cast<rocprofiler_memory_copy_operation_t>(op);
    c.correlation_id.internal = work;
    c.thread_id = thread_id;
    c.start_timestamp = static_cast<uint64_t>(start);
    c.end_timestamp = static_cast<uint64_t>(end);
    c.src_agent_id = s != nullptr ? s->info.id : rocprofiler_agent_id_t{0};
    c.dst_agent_id = d != nullptr ? d->info.id : rocprofiler_agent_id_t{0};
    c.bytes = bytes;
    c.src_address.value = src;
    c.dst_address.value = dst;
    buffer_record(op, r);
}

// ---- Kernel dispatches ---------------------------------------------------------------------------

bool dispatches_traced() {
    return buffer_traced(ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH, ROCPROFILER_KERNEL_DISPATCH_COMPLETE);
}

void dispatch_done(const rocprofiler_kernel_dispatch_info_t& info, uint64_t correlation, uint64_t thread_id,
                   const simExecResult& result) {
    if (!dispatches_traced()) return;
    BufferedRecord r{};
    r.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
    rocprofiler_buffer_tracing_kernel_dispatch_record_t& d = r.u.dispatch;
    d.size = sizeof d;
    d.kind = ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH;
    d.operation = ROCPROFILER_KERNEL_DISPATCH_COMPLETE;
    d.correlation_id.internal = correlation;
    d.thread_id = thread_id;
    d.start_timestamp = static_cast<uint64_t>(result.start_ns);
    d.end_timestamp = static_cast<uint64_t>(result.end_ns);
    d.dispatch_info = info;
    buffer_record(ROCPROFILER_KERNEL_DISPATCH_COMPLETE, r);
}

// ---- Markers -------------------------------------------------------------------------------------
// MARKER_CORE_RANGE_API as the SDK delivers it: a push is roctxThreadRangeA ENTER and its pop the EXIT,
// a start is roctxProcessRangeA ENTER and its stop the EXIT (on any thread), each pair with one
// correlation id and, per context, the user_data its ENTER left; a mark is roctxMarkA ENTER and EXIT.

namespace {

struct OpenRange {
    int op = 0;
    std::string message;
    rocprofiler_correlation_id_t correlation{};
    rocprofiler_user_data_t user_data[kMaxContexts] = {};
};

thread_local std::vector<OpenRange> t_ranges;  // pushed on this thread
thread_local OpenRange t_starting;             // a start whose id comes at the call's exit
thread_local bool t_starting_open = false;
std::mutex g_process_mu;
std::unordered_map<uint64_t, OpenRange>* g_process_ranges = new std::unordered_map<uint64_t, OpenRange>;  // never freed

bool markers_traced(int op) { return callback_traced(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, op); }

void deliver(OpenRange& r, rocprofiler_callback_phase_t phase, int32_t retval) {
    rocprofiler_callback_tracing_marker_api_data_t p{};
    p.size = sizeof p;
    // roctxMarkA, roctxThreadRangeA and roctxProcessRangeA all carry the message first.
    p.args.roctxThreadRangeA.message = r.message.c_str();
    p.retval.int32_t_retval = retval;
    trace(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API, r.op, phase, &p, nullptr, r.correlation, r.user_data);
}

OpenRange open_range(int op, const char* message) {
    OpenRange r;
    r.op = op;
    r.message = message != nullptr ? message : "";
    r.correlation.internal = next_correlation();
    return r;
}

thread_local OpenRange t_mark;  // a mark between its call's ENTER and EXIT
thread_local bool t_mark_open = false;

void marker_mark_enter(const char* message) {
    if (t_state.internal > 0 || !markers_traced(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA)) return;
    t_mark = open_range(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA, message);
    t_mark_open = true;
    deliver(t_mark, ROCPROFILER_CALLBACK_PHASE_ENTER, 0);
}

void marker_mark_exit() {
    if (!t_mark_open) return;
    t_mark_open = false;
    deliver(t_mark, ROCPROFILER_CALLBACK_PHASE_EXIT, 0);
}

void marker_push(const char* message) {
    if (t_state.internal > 0 || !markers_traced(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA)) return;
    t_ranges.push_back(open_range(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA, message));
    deliver(t_ranges.back(), ROCPROFILER_CALLBACK_PHASE_ENTER, 0);
}

void marker_pop(int depth) {
    if (t_ranges.empty()) return;  // a pop without a push: nothing to end
    OpenRange r = std::move(t_ranges.back());
    t_ranges.pop_back();
    deliver(r, ROCPROFILER_CALLBACK_PHASE_EXIT, depth);
}

void marker_start(const char* message) {
    if (t_state.internal > 0 || !markers_traced(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA)) return;
    t_starting = open_range(ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA, message);
    t_starting_open = true;
    deliver(t_starting, ROCPROFILER_CALLBACK_PHASE_ENTER, 0);
}

void marker_started(uint64_t id) {
    if (!t_starting_open) return;
    t_starting_open = false;
    std::lock_guard<std::mutex> lock(g_process_mu);
    (*g_process_ranges)[id] = std::move(t_starting);
}

void marker_stop(uint64_t id) {
    OpenRange r;
    {
        std::lock_guard<std::mutex> lock(g_process_mu);
        auto it = g_process_ranges->find(id);
        if (it == g_process_ranges->end()) return;  // unknown or already stopped
        r = std::move(it->second);
        g_process_ranges->erase(it);
    }
    deliver(r, ROCPROFILER_CALLBACK_PHASE_EXIT, 0);
}

// MARKER_CORE_API: each roctx call as the application made it, ENTER and EXIT with its arguments and,
// at EXIT, its return value. Marker calls do not nest, so one open call per thread is enough.
struct CoreCall {
    bool open = false;
    int op = 0;
    std::string message;
    rocprofiler_correlation_id_t correlation{};
    rocprofiler_callback_tracing_marker_api_data_t payload{};
    rocprofiler_user_data_t user_data[kMaxContexts] = {};
};
thread_local CoreCall t_core;

int core_op(simToolApiId id) {
    switch (id) {
        case SIM_API_ID_simMarkA: return ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA;
        case SIM_API_ID_simRangePushA: return ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA;
        case SIM_API_ID_simRangePop: return ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop;
        case SIM_API_ID_simRangeStartA: return ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA;
        case SIM_API_ID_simRangeStop: return ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop;
        default: return ROCPROFILER_MARKER_CORE_API_ID_NONE;
    }
}

void core_enter(const simToolApiCall& c) {
    int op = core_op(c.id);
    CoreCall& k = t_core;
    if (op < 0 || t_state.internal > 0 || !callback_traced(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, op)) return;
    k = CoreCall{};
    k.open = true;
    k.op = op;
    k.message = c.message != nullptr ? c.message : "";
    k.correlation.internal = next_correlation();
    k.payload.size = sizeof k.payload;
    if (op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop)
        k.payload.args.roctxRangeStop.id = c.range_id;
    else if (op != ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop)
        k.payload.args.roctxMarkA.message = k.message.c_str();  // MarkA, RangePushA, RangeStartA: the message
    trace(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, op, ROCPROFILER_CALLBACK_PHASE_ENTER, &k.payload, nullptr, k.correlation,
          k.user_data);
}

void core_exit(const simToolApiCall& c) {
    CoreCall& k = t_core;
    if (!k.open) return;
    k.open = false;
    if (k.op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA || k.op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop)
        k.payload.retval.int32_t_retval = c.depth;
    else if (k.op == ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA)
        k.payload.retval.roctx_range_id_t_retval = c.range_id;
    trace(ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API, k.op, ROCPROFILER_CALLBACK_PHASE_EXIT, &k.payload, nullptr, k.correlation,
          k.user_data);
}

}  // namespace

// ---- Names ---------------------------------------------------------------------------------------

const char* operation_name(int kind, int op) {
    if (kind == ROCPROFILER_BUFFER_TRACING_MEMORY_COPY)
        return op > ROCPROFILER_MEMORY_COPY_NONE && op < ROCPROFILER_MEMORY_COPY_LAST ? kCopyOps[op] : nullptr;
    if (kind == ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH)
        return op == ROCPROFILER_KERNEL_DISPATCH_ENQUEUE    ? "KERNEL_DISPATCH_ENQUEUE"
               : op == ROCPROFILER_KERNEL_DISPATCH_COMPLETE ? "KERNEL_DISPATCH_COMPLETE"
                                                            : nullptr;
    for (const OpDef& d : kOps) {
        if (d.kind == kind && d.op == op) return d.name;
        if (d.hsa_name != nullptr && d.hsa_kind == kind && d.hsa_op == op) return d.hsa_name;
    }
    return nullptr;
}

const char* marker_operation_name(int kind, int op) {
    if (kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API && op >= 0 && op < ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST)
        return kMarkerRangeOps[op];
    if (kind == ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API && op >= 0 && op < ROCPROFILER_MARKER_CORE_API_ID_LAST)
        return kMarkerCoreOps[op];
    return nullptr;
}

// ---- The sim runtime's hooks ---------------------------------------------------------------------

namespace {

void on_range(const simToolApiCall& c);

// The raw call (MARKER_CORE_API) encloses what it does to a range (MARKER_CORE_RANGE_API).
void on_marker(const simToolApiCall& c) {
    bool enter = c.phase == SIM_API_PHASE_ENTER;
    if (enter) core_enter(c);
    on_range(c);
    if (!enter) core_exit(c);
}

void on_range(const simToolApiCall& c) {
    bool enter = c.phase == SIM_API_PHASE_ENTER;
    switch (c.id) {
        case SIM_API_ID_simMarkA: return enter ? marker_mark_enter(c.message) : marker_mark_exit();
        case SIM_API_ID_simRangePushA: return enter ? marker_push(c.message) : void();
        case SIM_API_ID_simRangePop: return enter ? void() : marker_pop(c.depth);
        case SIM_API_ID_simRangeStartA: return enter ? marker_start(c.message) : marker_started(c.range_id);
        case SIM_API_ID_simRangeStop: return enter ? marker_stop(c.range_id) : void();
        default: return;
    }
}

uint64_t on_api(const simToolApiCall* call, void*) {
    if (call == nullptr) return 0;
    if (call->domain == SIM_API_DOMAIN_MARKER) {
        on_marker(*call);
        return 0;
    }
    if (call->phase == SIM_API_PHASE_ENTER) return api_enter(call->name);
    api_exit();
    return 0;
}

void on_copy(const simToolCopy* c, void*) {
    if (c == nullptr) return;
    // The sim numbers copy kinds from 0 in the SDK's order; the SDK's operations start at 1 (0 is NONE).
    copy_done(static_cast<int>(c->kind) + 1, c->src_device, c->dst_device, c->bytes, reinterpret_cast<uint64_t>(c->src),
              reinterpret_cast<uint64_t>(c->dst), c->start_ns, c->end_ns, c->api_value, c->thread_id);
}

// Whether any context configured a service these hooks feed (the configuration is locked by now).
bool any_tracing_configured() {
    State& s = state();
    for (int i = 0; i < kMaxContexts; ++i) {
        const Context& c = s.contexts[i];
        if (!c.created) continue;
        if (!c.buffer_tracing.empty()) return true;
        for (const TracingService& t : c.tracing)
            if (marker_operation_name(t.kind, 0) != nullptr) return true;  // a marker kind
    }
    return false;
}

}  // namespace

bool install(std::string* error) {
    if (!any_tracing_configured()) return true;
    if (simToolSetApiCallback(on_api, nullptr) != simSuccess || simToolSetCopyCallback(on_copy, nullptr) != simSuccess) {
        *error = std::string("installing the sim runtime's tracing hooks: ") + simGetLastErrorMessage();
        simToolSetApiCallback(nullptr, nullptr);
        return false;
    }
    return true;
}

}  // namespace gorocprof::rocmemu::tracing
