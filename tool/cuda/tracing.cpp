// Tracing on CUDA (tracing.hpp): API calls from CUPTI's callbacks, copies and memsets from its activity
// buffers, the CPU agent the copies' host side names.
#include "tracing.hpp"

#include "copy_calls.hpp"
#include "core.hpp"
#include "options.hpp"
#include "trace_facts.hpp"
#include "trace.hpp"
#include "window_lock.hpp"

#include <cupti.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gorocprof::cuda::tracing {

namespace trace = core::trace;
using core::Core;

namespace {

// The CPU agent's record id: the host side of every copy (GPU agents are their ordinal + 1, contexts.cpp).
constexpr uint64_t kCpuAgentId = 0;
// CUPTI's activity buffers: large enough that a step of a training loop fills few, small enough to be
// delivered within the flush period.
constexpr size_t kBufferBytes = 4 << 20;
// Buffers are delivered at least this often (milliseconds), so a crash loses at most about this much.
constexpr uint32_t kFlushPeriodMs = 100;
// Nesting of traced calls on one thread (a runtime call and the driver calls it makes, callbacks inside).
constexpr int kDepth = 16;

bool g_runtime = false;      // CUDA_RUNTIME_API traced: its callback domain is enabled
bool g_driver = false;       // CUDA_DRIVER_API traced: the whole driver domain is enabled
bool g_copies = false;       // MEMORY_COPY traced: the activity kinds are enabled
bool g_kernels = false;      // deferred kernel trace: CONCURRENT_KERNEL is enabled
bool g_no_waits = false;     // no counters: no launch is waited for (deferred kernel trace or none)
// API calls from CUPTI's RUNTIME and DRIVER activity records instead of a callback per call (the default;
// GOROCPROF_CUDA_API_ACTIVITY=0 keeps the callbacks): CUPTI times each call and the lines are written from
// its buffers, on its thread. Lines then carry CUPTI's correlation ids.
bool g_api_activity = false;
int64_t g_clock_offset = 0;  // added to activity timestamps when CUPTI would not take our clock

// ---- API calls ----------------------------------------------------------------------------------

// One name per callback id, as the runtime spells the function: CUPTI's name less a runtime version tag
// ("cudaMemcpy_v3020" -> "cudaMemcpy"); driver names keep their symbol's suffix ("cuMemAlloc_v2").
std::array<std::atomic<const char*>, CUPTI_RUNTIME_TRACE_CBID_SIZE> g_runtime_names{};
std::array<std::atomic<const char*>, CUPTI_DRIVER_TRACE_CBID_SIZE> g_driver_names{};

// `cupti_name` is the callback's functionName; null (an activity record) asks CUPTI for the id's name.
template <size_t N>
const char* api_name(std::array<std::atomic<const char*>, N>& table, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                     const char* cupti_name) {
    if (cbid < N)
        if (const char* n = table[cbid].load(std::memory_order_acquire)) return n;
    if (cupti_name == nullptr && cuptiGetCallbackName(domain, cbid, &cupti_name) != CUPTI_SUCCESS) cupti_name = nullptr;
    if (cupti_name == nullptr) return "unknown";
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (cbid >= N) return cupti_name;
        table[cbid].store(cupti_name, std::memory_order_release);  // CUPTI's own string, static
        return cupti_name;
    }
    if (cbid >= N) return cupti_name;
    // Kept for the process's life: lines refer to it until they are written.
    const char* kept = (new std::string(runtime_api_name(cupti_name)))->c_str();
    const char* expected = nullptr;
    if (!table[cbid].compare_exchange_strong(expected, kept, std::memory_order_acq_rel)) return expected;
    return kept;
}
const char* runtime_name(CUpti_CallbackId cbid, const char* cupti_name) {
    return api_name(g_runtime_names, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, cupti_name);
}
const char* driver_name(CUpti_CallbackId cbid, const char* cupti_name) {
    return api_name(g_driver_names, CUPTI_CB_DOMAIN_DRIVER_API, cbid, cupti_name);
}

struct ApiStack {
    std::optional<trace::ApiCall> calls[kDepth];
    uint32_t runtime_ids[kDepth] = {};  // CUPTI's correlation id of each open runtime call, 0 for a driver call
    int depth = 0;
};
thread_local ApiStack t_api;

// CUPTI's correlation id of the innermost open runtime call on this thread whose callback is enabled, 0 when none is.
uint32_t innermost_runtime_call() {
    const ApiStack& s = t_api;
    for (int i = std::min(s.depth, kDepth) - 1; i >= 0; --i)
        if (s.runtime_ids[i] != 0) return s.runtime_ids[i];
    return 0;
}

// The correlation id a dispatch or copy of the driver call `driver_id` records: the innermost traced API call's.
// From activity records: a driver call made inside a runtime call has that call's CUPTI id, so `driver_id` names
// the runtime call when there is one and the application's own driver call otherwise.
uint64_t innermost_traced(uint32_t driver_id) {
    if (!g_api_activity) return trace::current_correlation_id();
    if (g_driver) return driver_id;
    if (g_runtime) return innermost_runtime_call();
    return 0;
}

// ---- API calls from activity records --------------------------------------------------------------

// The tool's own calls (its callbacks' work and its guard, tool_calls_begin) carry this external correlation
// id: CUPTI writes an EXTERNAL_CORRELATION record before each of their API records. A call the tool makes
// inside a callback has the CUPTI correlation id of the application's call it is nested in, so the two are
// told apart by that record alone: each one announces one API record of its id to drop, the next to come.
constexpr CUpti_ExternalCorrelationKind kToolKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2;
constexpr uint64_t kToolWork = 1;
std::mutex g_tool_ids_mu;
std::unordered_map<uint32_t, uint32_t> g_tool_ids;  // CUPTI id -> the tool's API records of it still to come
std::atomic<bool> g_reported_marking{false};

void note_tool_call(const CUpti_ActivityExternalCorrelation* e) {
    if (e->externalKind != kToolKind) return;
    std::lock_guard<std::mutex> lock(g_tool_ids_mu);
    ++g_tool_ids[e->correlationId];
}

bool tool_call(uint32_t cupti_id) {
    std::lock_guard<std::mutex> lock(g_tool_ids_mu);
    auto it = g_tool_ids.find(cupti_id);
    if (it == g_tool_ids.end()) return false;
    if (--it->second == 0) g_tool_ids.erase(it);
    return true;
}

void api_record(const CUpti_ActivityAPI* a) {
    if (tool_call(a->correlationId)) return;
    const bool runtime = a->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
    trace::record_api(runtime ? trace::Domain::CudaRuntime : trace::Domain::CudaDriver,
                      runtime ? runtime_name(a->cbid, nullptr) : driver_name(a->cbid, nullptr), a->correlationId,
                      a->threadId, static_cast<int64_t>(a->start) + g_clock_offset,
                      static_cast<int64_t>(a->end) + g_clock_offset);
}

// ---- copies -------------------------------------------------------------------------------------

// What the application's memory call told its driver ENTER: the copy's record takes it from here.
struct PendingCopy {
    uint64_t correlation_id = 0;
    uint64_t thread_id = 0;
    uint64_t src = 0;
    uint64_t dst = 0;
};
std::mutex g_pending_mu;
std::unordered_map<uint32_t, PendingCopy> g_pending;  // by CUPTI's correlation id of the driver call

// The driver calls that copy or set memory (is_copy_call's answers), by callback id: filled once at start.
std::array<bool, CUPTI_DRIVER_TRACE_CBID_SIZE> g_copy_calls{};

bool copy_call_of_list(CUpti_CallbackId cbid) {
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        return false;
    default:
        return memory_call(cbid) != MemoryCall::None;
    }
}

bool is_copy_call(CUpti_CallbackId cbid) { return cbid < g_copy_calls.size() && g_copy_calls[cbid]; }

void register_copy(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    PendingCopy p;
    p.correlation_id = innermost_traced(cb->correlationId);
    p.thread_id = trace::thread_id();
    copy_addresses(cbid, cb->functionParams, &p.src, &p.dst);
    std::lock_guard<std::mutex> lock(g_pending_mu);
    g_pending[cb->correlationId] = p;
}

// The application's copy CUPTI correlates with `cupti_id`; false for the tool's own (never registered).
bool take_pending(uint32_t cupti_id, PendingCopy* out) {
    std::lock_guard<std::mutex> lock(g_pending_mu);
    auto it = g_pending.find(cupti_id);
    if (it == g_pending.end()) return false;
    *out = it->second;
    g_pending.erase(it);
    return true;
}

uint64_t gpu_agent(uint32_t device_ordinal) { return static_cast<uint64_t>(device_ordinal) + 1; }

void copy_record(const CUpti_Activity* r) {
    trace::Copy c;
    PendingCopy p;
    switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
        if (!take_pending(m->correlationId, &p)) return;
        const uint64_t gpu = gpu_agent(m->deviceId);
        switch (m->copyKind) {
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
            c.op = "MEMORY_COPY_HOST_TO_DEVICE", c.src_agent_id = kCpuAgentId, c.dst_agent_id = gpu;
            break;
        case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
        case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
            c.op = "MEMORY_COPY_DEVICE_TO_HOST", c.src_agent_id = gpu, c.dst_agent_id = kCpuAgentId;
            break;
        case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
            c.op = "MEMORY_COPY_HOST_TO_HOST", c.src_agent_id = kCpuAgentId, c.dst_agent_id = kCpuAgentId;
            break;
        default:  // DTOD, DTOA, ATOD, ATOA (peer copies come as MEMCPY2)
            c.op = "MEMORY_COPY_DEVICE_TO_DEVICE", c.src_agent_id = gpu, c.dst_agent_id = gpu;
            break;
        }
        c.size = m->bytes, c.start = static_cast<int64_t>(m->start), c.end = static_cast<int64_t>(m->end);
        c.queue_id = c.stream_id = m->streamId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(r);
        if (!take_pending(m->correlationId, &p)) return;
        c.op = "MEMORY_COPY_DEVICE_TO_DEVICE";
        c.src_agent_id = gpu_agent(m->srcDeviceId), c.dst_agent_id = gpu_agent(m->dstDeviceId);
        c.size = m->bytes, c.start = static_cast<int64_t>(m->start), c.end = static_cast<int64_t>(m->end);
        c.queue_id = c.stream_id = m->streamId;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
        if (!take_pending(m->correlationId, &p)) return;
        c.op = "MEMORY_SET";
        c.src_agent_id = c.dst_agent_id = gpu_agent(m->deviceId);
        c.size = m->bytes, c.start = static_cast<int64_t>(m->start), c.end = static_cast<int64_t>(m->end);
        c.queue_id = c.stream_id = m->streamId;
        p.src = p.dst;
        break;
    }
    default:
        return;
    }
    c.correlation_id = p.correlation_id;
    c.thread_id = p.thread_id;
    c.src_address = p.src, c.dst_address = p.dst;
    c.start += g_clock_offset, c.end += g_clock_offset;
    trace::record_copy(c);
}

// ---- deferred kernel trace ----------------------------------------------------------------------

// A launch's dispatch waiting for its kernel's activity record. CUPTI gives a kernel the correlation id of
// the runtime call that launched it, or of the driver call when the app called the driver: both are keys.
struct Deferred {
    core::DispatchFacts facts;
    uint32_t keys[2] = {0, 0};
};
std::mutex g_deferred_mu;
std::unordered_map<uint64_t, Deferred> g_deferred;      // by dispatch id
std::unordered_map<uint32_t, uint64_t> g_deferred_key;  // CUPTI correlation id -> dispatch id

bool take_deferred(uint32_t cupti_id, core::DispatchFacts* out) {
    std::lock_guard<std::mutex> lock(g_deferred_mu);
    auto k = g_deferred_key.find(cupti_id);
    if (k == g_deferred_key.end()) return false;
    auto it = g_deferred.find(k->second);
    if (it == g_deferred.end()) return false;
    *out = it->second.facts;
    for (uint32_t key : it->second.keys)
        if (key != 0) g_deferred_key.erase(key);
    g_deferred.erase(it);
    return true;
}

void kernel_record(const CUpti_ActivityKernel10* k) {
    core::DispatchFacts f;
    if (!take_deferred(k->correlationId, &f)) return;  // a launch of the tool's, or one traced the other way
    Core& core = Core::instance();
    core.begin_dispatch(f);
    core::PassRecord rec;
    rec.pass = 0;
    rec.passes = 1;
    rec.start_ns = static_cast<int64_t>(k->start) + g_clock_offset;
    rec.end_ns = static_cast<int64_t>(k->end) + g_clock_offset;
    core.record_pass(std::move(rec));
    core.end_dispatch();
}

std::atomic<bool> g_reported_read{false};
std::atomic<bool> g_reported_dropped{false};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer != nullptr ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* r = nullptr;
    for (;;) {
        const CUptiResult st = cuptiActivityGetNextRecord(buffer, valid, &r);
        if (st == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the buffer's end
        if (st != CUPTI_SUCCESS) {
            if (!g_reported_read.exchange(true))
                Core::instance().warn("trace: the rest of an activity buffer is lost: " +
                                      cupti(st, "cuptiActivityGetNextRecord").message());
            break;
        }
        if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            kernel_record(reinterpret_cast<const CUpti_ActivityKernel10*>(r));
        else if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME || r->kind == CUPTI_ACTIVITY_KIND_DRIVER)
            api_record(reinterpret_cast<const CUpti_ActivityAPI*>(r));
        else if (r->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
            note_tool_call(reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r));
        else
            copy_record(r);
    }
    std::free(buffer);
    size_t dropped = 0;
    const PortStatus st = cupti(cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped), "cuptiActivityGetNumDroppedRecords");
    if (!st.ok && !g_reported_dropped.exchange(true)) Core::instance().warn("trace: " + st.message());
    if (st.ok && dropped > 0)
        Core::instance().warn("trace: CUPTI dropped " + std::to_string(dropped) +
                              " activity records (its buffers were full): those calls, copies or kernels are missing");
}

uint64_t CUPTIAPI records_clock() { return static_cast<uint64_t>(core::now_ns()); }

// ---- the CPU agent ------------------------------------------------------------------------------

// The host as one CPU agent (node 0): what /proc/cpuinfo and sysconf say of it.
void describe_cpu() {
    std::ifstream in("/proc/cpuinfo");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    core::AgentInfo c;
    c.id = kCpuAgentId;
    c.index = -1;
    c.type = "CPU";
    c.name = cpuinfo_field(text, "model name");
    c.product_name = c.name;
    c.vendor = cpuinfo_field(text, "vendor_id");
    c.props.emplace_back("node_id", 0);
    const long cores = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0) c.props.emplace_back("cpu_cores_count", cores);
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) c.props.emplace_back("local_mem_size", static_cast<int64_t>(pages) * page);
    c.strings = {{"model_name", c.name}};
    Core::instance().describe_agent(c);
}

// NVTX loads its injection from NVTX_INJECTION64_PATH at the application's first NVTX call: name this
// library there when the front end did not (an NVTX call made before CUDA starts is then not traced).
void point_nvtx_here() {
    if (!options().nvtx_injection_path.empty()) return;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&point_nvtx_here), &info) == 0 || info.dli_fname == nullptr) {
        Core::instance().warn("marker trace: this library's path is not known (dladdr), so NVTX_INJECTION64_PATH "
                              "is not set: NVTX ranges and marks are traced only when it names this library");
        return;
    }
    if (::setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0) != 0)
        Core::instance().warn("marker trace: NVTX_INJECTION64_PATH could not be set: NVTX ranges and marks are not traced");
}

// The activity API's clock and buffers, once for copies and kernels.
PortStatus start_activity() {
    static bool started = false;
    if (started) return PortStatus::success();
    started = true;
    // Our clock for the activity timestamps; where CUPTI refuses, its clock's offset to ours, read once.
    const PortStatus clock = cupti(cuptiActivityRegisterTimestampCallback(records_clock),
                                   "cuptiActivityRegisterTimestampCallback");
    if (!clock.ok) {
        uint64_t t = 0;
        PortStatus st = cupti(cuptiGetTimestamp(&t), "cuptiGetTimestamp");
        if (!st.ok) return st;
        g_clock_offset = core::now_ns() - static_cast<int64_t>(t);
    }
    PortStatus st = cupti(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                          "cuptiActivityRegisterCallbacks");
    if (!st.ok) return st;
    return cupti(cuptiActivityFlushPeriod(kFlushPeriodMs), "cuptiActivityFlushPeriod");
}

// Enables the runtime callbacks of the functions whose names start with one of `prefixes`: their ENTER pushes
// the call's CUPTI id on the thread's stack (innermost_runtime_call), so a dispatch or copy made inside can be
// linked to it when the runtime domain's own records do not say so.
PortStatus enable_runtime_callbacks(CUpti_SubscriberHandle subscriber, std::initializer_list<std::string_view> prefixes) {
    for (CUpti_CallbackId id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++id) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, id, &name) != CUPTI_SUCCESS || name == nullptr) continue;
        const std::string_view n(name);
        bool link = false;
        for (std::string_view prefix : prefixes) link = link || n.substr(0, prefix.size()) == prefix;
        if (!link) continue;
        const PortStatus st = cupti(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id), "cuptiEnableCallback");
        if (!st.ok) return st;
    }
    return PortStatus::success();
}

// The traced API domains from CUPTI's activity records: no callback per call.
PortStatus start_api_activity(CUpti_SubscriberHandle subscriber) {
    // The records' thread ids as core's (gettid), not pthread_self's.
    PortStatus st = cupti(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "cuptiSetThreadIdType");
    if (!st.ok || !(st = start_activity()).ok) return st;
    // The runtime domain without the driver's: its launch and copy calls link the dispatches and copies.
    if (g_runtime && !g_driver &&
        !(st = enable_runtime_callbacks(subscriber, {"cudaLaunch", "cudaGraphLaunch", "cudaMemcpy", "cudaMemset"})).ok)
        return st;
    if (!(st = cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), "cuptiActivityEnable")).ok) return st;
    if (g_runtime && !(st = cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "cuptiActivityEnable")).ok) return st;
    if (g_driver && !(st = cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "cuptiActivityEnable")).ok) return st;
    return st;
}

PortStatus start_copies() {
    PortStatus st = start_activity();
    if (!st.ok) return st;
    for (CUpti_ActivityKind k : {CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET})
        if (!(st = cupti(cuptiActivityEnable(k), "cuptiActivityEnable")).ok) return st;
    return st;
}

bool plan_has_counters() {
    for (const core::PlanAgent& a : Core::instance().config().agents)
        if (!a.passes.empty()) return true;
    return false;
}

PortStatus start_kernels(CUpti_SubscriberHandle subscriber) {
    PortStatus st;
    // A runtime launch's driver call has the runtime call's CUPTI id; with the callbacks and no runtime
    // domain, the runtime's launch callbacks note it too (defer_dispatch's second key).
    if (!g_runtime && !g_api_activity && !(st = enable_runtime_callbacks(subscriber, {"cudaLaunch"})).ok) return st;
    if (!(st = start_activity()).ok) return st;
    return cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
}

}  // namespace

bool api_ids_from_cupti() { return trace::any_api_enabled() && options().api_activity; }

void keep_core_ids_apart() {
    if (api_ids_from_cupti()) trace::reserve_correlation_ids(uint64_t{1} << 32);
}

PortStatus start(CUpti_SubscriberHandle subscriber) {
    g_runtime = trace::enabled(trace::Domain::CudaRuntime);
    g_driver = trace::enabled(trace::Domain::CudaDriver);
    const bool copies = trace::enabled(trace::Domain::MemoryCopy);
    PortStatus st;
    if (api_ids_from_cupti()) {
        keep_core_ids_apart();
        g_api_activity = true;  // before the first record can be delivered
        if (!(st = start_api_activity(subscriber)).ok) {
            g_api_activity = false;
            return st;
        }
    } else {
        if (g_runtime &&
            !(st = cupti(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain")).ok)
            return st;
        if (g_driver &&
            !(st = cupti(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "cuptiEnableDomain")).ok)
            return st;
    }
    if (copies) {
        for (size_t i = 0; i < kMemoryCallIdCount; ++i)
            if (kMemoryCallIds[i] < g_copy_calls.size()) g_copy_calls[kMemoryCallIds[i]] = copy_call_of_list(kMemoryCallIds[i]);
        describe_cpu();
        if (!(st = start_copies()).ok) return st;
        g_copies = true;
    }
    if (trace::enabled(trace::Domain::Marker)) point_nvtx_here();
    g_no_waits = !plan_has_counters() && options().async_kernel_trace;
    if (g_no_waits && Core::instance().config().kernel_trace) {
        if (!(st = start_kernels(subscriber)).ok) return st;
        g_kernels = true;
    }
    return PortStatus::success();
}

bool launches_not_waited() { return g_no_waits; }

void defer_dispatch(const core::DispatchFacts& facts, uint32_t cupti_id) {
    if (!g_kernels) return;  // no kernel trace: the launch is no dispatch
    const uint32_t runtime_id = innermost_runtime_call();
    Deferred d;
    d.facts = facts;
    d.keys[0] = cupti_id;
    d.keys[1] = runtime_id;
    const uint64_t id = facts.info.dispatch_id;
    std::lock_guard<std::mutex> lock(g_deferred_mu);
    g_deferred[id] = d;
    g_deferred_key[cupti_id] = id;
    if (runtime_id != 0) g_deferred_key[runtime_id] = id;
}

void cancel_dispatch(uint32_t cupti_id) {
    std::lock_guard<std::mutex> lock(g_deferred_mu);
    auto k = g_deferred_key.find(cupti_id);
    if (k == g_deferred_key.end()) return;
    auto it = g_deferred.find(k->second);
    if (it != g_deferred.end()) {
        for (uint32_t key : it->second.keys)
            if (key != 0 && key != cupti_id) g_deferred_key.erase(key);
        g_deferred.erase(it);
    }
    g_deferred_key.erase(k);
}

bool driver_domain_traced() { return g_driver && !g_api_activity; }

bool tool_calls_begin() {
    if (!g_api_activity) return false;
    const PortStatus st = cupti(cuptiActivityPushExternalCorrelationId(kToolKind, kToolWork),
                                "cuptiActivityPushExternalCorrelationId");
    if (!st.ok && !g_reported_marking.exchange(true))
        Core::instance().warn("API trace: the tool's own calls may appear as the application's: " + st.message());
    return st.ok;
}

void tool_calls_end(bool pushed) {
    if (!pushed) return;
    uint64_t id = 0;
    const PortStatus st = cupti(cuptiActivityPopExternalCorrelationId(kToolKind, &id),
                                "cuptiActivityPopExternalCorrelationId");
    if (!st.ok && !g_reported_marking.exchange(true))
        Core::instance().warn("API trace: the tool's own calls may appear as the application's: " + st.message());
}

void on_api_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    ApiStack& s = t_api;
    const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    if (s.depth < kDepth) s.runtime_ids[s.depth] = runtime ? cb->correlationId : 0;
    if (s.depth < kDepth && !g_api_activity && (runtime ? g_runtime : g_driver)) {
        if (runtime)
            s.calls[s.depth].emplace(trace::Domain::CudaRuntime, runtime_name(cbid, cb->functionName));
        else
            s.calls[s.depth].emplace(trace::Domain::CudaDriver, cb->functionName != nullptr ? cb->functionName : "unknown");
    }
    ++s.depth;
    if (!runtime && g_copies && is_copy_call(cbid)) register_copy(cbid, cb);
}

void on_api_exit(CUpti_CallbackDomain) {
    ApiStack& s = t_api;
    if (s.depth == 0) return;  // an EXIT whose ENTER came before tracing started
    --s.depth;
    if (s.depth < kDepth) s.calls[s.depth].reset();
}

uint64_t dispatch_correlation(uint32_t cupti_id) {
    return trace::any_api_enabled() ? innermost_traced(cupti_id) : cupti_id;
}

void flush() {
    if (!g_copies && !g_kernels && !g_api_activity) return;
    const PortStatus st = cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    if (!st.ok) Core::instance().warn("trace: the last API calls, copies and kernels may be missing: " + st.message());
    size_t left = 0;
    {
        std::lock_guard<std::mutex> lock(g_deferred_mu);
        left = g_deferred.size();
        g_deferred.clear();
        g_deferred_key.clear();
    }
    if (left > 0)
        Core::instance().warn("kernel trace: " + std::to_string(left) +
                              " dispatches have no record: CUPTI delivered no activity record of their kernels");
    // Copy calls whose activity record never came (a failed call, a zero-byte copy, a record CUPTI
    // dropped): nothing will claim them now.
    {
        std::lock_guard<std::mutex> lock(g_pending_mu);
        g_pending.clear();
    }
    std::lock_guard<std::mutex> lock(g_tool_ids_mu);
    g_tool_ids.clear();
}

}  // namespace gorocprof::cuda::tracing
