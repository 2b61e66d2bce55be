// The CUDA backend's entry point and CUPTI callbacks. The driver loads this library through
// CUDA_INJECTION64_PATH and calls InitializeInjection(); from then on every launch, allocation, memory
// call and module load of the process passes through on_callback(), which hands it to the file of its
// kind (backend_state.hpp): contexts.cpp, kernels.cpp, launches.cpp, graph_launch.cpp, memory_calls.cpp.
#include "backend_state.hpp"
#include "check.hpp"
#include "core.hpp"
#include "dispatch_path.hpp"
#include "options.hpp"
#include "phase_stats.hpp"
#include "tracing.hpp"
#include "window_lock.hpp"

#include <cupti.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <mutex>
#include <string>

namespace gorocprof::cuda {

thread_local int t_guard = 0;

Backend& backend() {
    static Backend* b = new Backend;  // never destroyed: callbacks may arrive during exit
    return *b;
}

uint64_t gettid_u64() {
    static thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return tid;
}

namespace {

// What the tool does with each driver callback id, looked up once per call: with the whole driver domain
// traced every driver call arrives, and most (cuCtxGetDevice, cuDeviceGetAttribute, ...) are no business of
// the tool's. Filled by subscribe() from the lists each file enables.
enum : uint8_t { kToolCall = 1, kLaunchCall = 2, kGraphCall = 4, kMemoryCallBit = 8, kObserveCall = 16, kCaptureCall = 32 };
std::array<uint8_t, CUPTI_DRIVER_TRACE_CBID_SIZE> g_driver_class{};

uint8_t driver_class(CUpti_CallbackId cbid) {
    return cbid < g_driver_class.size() ? g_driver_class[cbid] : uint8_t{kToolCall};  // a newer id: the full path
}

void classify_driver_ids() {
    auto mark = [](const CUpti_CallbackId* ids, size_t n, uint8_t bits) {
        for (size_t i = 0; i < n; ++i)
            if (ids[i] < g_driver_class.size()) g_driver_class[ids[i]] |= kToolCall | bits;
    };
    mark(kLaunchIds, kLaunchIdCount, kLaunchCall);
    mark(kGraphIds, kGraphIdCount, kGraphCall);
    mark(kMemoryCallIds, kMemoryCallIdCount, kMemoryCallBit);
    mark(kObserveIds, kObserveIdCount, kObserveCall);
    mark(kAllocIds, kAllocIdCount, 0);
    mark(kCaptureIds, kCaptureIdCount, kCaptureCall);
    const CUpti_CallbackId unload = CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload;
    mark(&unload, 1, 0);
}

// Without counters (tracing::launches_not_waited) no window or lasting window is ever open, so a launch whose
// lookups are made and a memory or allocation call need no driver call of the tool's: handled here, with no
// mark on the tool's calls (ToolCalls, two CUPTI calls). False: the usual path runs.
bool handled_without_tool_calls(uint8_t c, CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    if (c & kLaunchCall) return on_launch_deferred(cbid, cb);
    if (c & kGraphCall) return false;
    // Their callbacks ask the driver for the library's module.
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload || cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryGetGlobal) return false;
    if (cb->callbackSite != CUPTI_API_ENTER) on_allocation_exit(cbid, cb);
    return true;
}

// One driver call of the application (the tool's guard down): handed to the file of its kind.
void on_driver_call(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    const uint8_t c = driver_class(cbid);
    if (!(c & kToolCall)) return;
    if (c & kCaptureCall) on_capture_call(cbid, cb);
    if (tracing::launches_not_waited() && handled_without_tool_calls(c, cbid, cb)) return;
    const tracing::ToolCalls own;  // the driver calls made below are the tool's
    if (cb->callbackSite == CUPTI_API_ENTER && (c & kObserveCall)) close_lasting_windows();
    if (c & kLaunchCall) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            on_launch_enter(cbid, cb);
        else
            on_launch_exit(cb);
    } else if (c & kGraphCall) {
        on_graph_callback(cbid, cb);
    } else {
        const bool memory = (c & kMemoryCallBit) != 0;
        if (cb->callbackSite == CUPTI_API_ENTER) {
            if (memory) on_memory_call_enter(cb);
            if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload) on_library_unload_enter(cb);
        } else {
            on_allocation_exit(cbid, cb);
            if (memory) on_memory_call_exit();
        }
    }
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    // Modules loaded while the tool resolves a kernel are still the application's.
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        const tracing::ToolCalls own;  // device queries, module and context bookkeeping
        auto* rd = static_cast<const CUpti_ResourceData*>(data);
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
            on_module_loaded(static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor));
        else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
            on_context_destroy(rd->context);
        else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
            on_context_created(rd->context);
        return;
    }
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {  // enabled only when the plan traces it (tracing.cpp)
        if (t_guard > 0) return;
        if (cb->callbackSite == CUPTI_API_ENTER)
            tracing::on_api_enter(domain, cbid, cb);
        else
            tracing::on_api_exit(domain);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    if (graph_probe_callback(cbid, cb) || t_guard > 0) return;
    // The traced call opens before the tool's work on it and closes after it: a launch's dispatch, and
    // the passes the tool replays inside the call, take its correlation id.
    const bool enter = cb->callbackSite == CUPTI_API_ENTER;
    if (enter) tracing::on_api_enter(domain, cbid, cb);
    on_driver_call(cbid, cb);
    if (!enter) tracing::on_api_exit(domain);
}

PortStatus subscribe() {
    Backend& b = backend();
    classify_driver_ids();
    CUptiResult r = cuptiSubscribe(&b.subscriber, on_callback, nullptr);
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        return PortStatus::failure("cuptiSubscribe",
                                   "another tool already holds CUPTI in this process (Nsight Compute, Nsight Systems, "
                                   "a debugger or another profiler); only one CUPTI subscriber is allowed: the "
                                   "application runs unprofiled");
    PortStatus st = cupti(r, "cuptiSubscribe");
    if (!st.ok) return st;
    const CUpti_CallbackId resources[] = {CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
                                          CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING};
    for (CUpti_CallbackId id : resources)
        if (!(st = cupti(cuptiEnableCallback(1, b.subscriber, CUPTI_CB_DOMAIN_RESOURCE, id), "cuptiEnableCallback")).ok)
            return st;
    auto enable_driver = [&](const CUpti_CallbackId* ids, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            PortStatus s = cupti(cuptiEnableCallback(1, b.subscriber, CUPTI_CB_DOMAIN_DRIVER_API, ids[i]),
                                 "cuptiEnableCallback");
            if (!s.ok) return s;
        }
        return PortStatus::success();
    };
    if (!(st = enable_driver(kLaunchIds, kLaunchIdCount)).ok) return st;
    if (!(st = enable_driver(kGraphIds, kGraphIdCount)).ok) return st;
    if (!(st = enable_driver(kMemoryCallIds, kMemoryCallIdCount)).ok) return st;
    if (!(st = enable_driver(kObserveIds, kObserveIdCount)).ok) return st;
    if (!(st = enable_driver(kAllocIds, kAllocIdCount)).ok) return st;
    if (!(st = enable_driver(kCaptureIds, kCaptureIdCount)).ok) return st;
    // The plan's trace domains (docs/tracing.md): more callback domains, the copies' activity buffers. A
    // domain that cannot be traced costs its lines, not the counters.
    const PortStatus traced = tracing::start(b.subscriber);
    if (!traced.ok) gorocprof::core::Core::instance().warn("tracing: " + traced.message() + ": the plan's trace domains are not all traced");
    return PortStatus::success();
}

}  // namespace
}  // namespace gorocprof::cuda

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    using namespace gorocprof::cuda;
    Backend& b = backend();
    std::lock_guard<std::mutex> lock(b.init_mu);
    if (b.initialized) return 1;
    b.initialized = true;
    if (!gorocprof::core::Core::initialize("cuda")) return 1;  // core said why; the app runs unprofiled
    const Options& opts = options();  // the environment, read once
    for (const std::string& problem : opts.problems) gorocprof::core::Core::instance().warn(problem);
    PhaseStats::instance();  // GOROCPROF_CUDA_TIMING=1: per-phase totals on stderr at exit
    b.port.set_cache_control(opts.cache_control);
    // Registered after the core's exit flush, so it runs first: the open windows' records precede the end
    // record (a context destroyed earlier at exit closed its own).
    std::atexit([] {
        tracing::flush();  // the copies CUPTI still holds, before core's end record
        const tracing::ToolCalls own;  // the open windows' decoding makes driver calls
        close_lasting_windows();
    });
    // The first stack walk loads the unwinder (dlopen): here, not inside a launch callback of the driver.
    launching_communication_library();
    PortStatus st = subscribe();
    if (!st.ok) {
        if (b.subscriber) {
            const PortStatus undone = cupti(cuptiUnsubscribe(b.subscriber), "cuptiUnsubscribe");
            if (!undone.ok) st.reason += "; " + undone.message();
        }
        b.subscriber = nullptr;
        gorocprof::core::Core::instance().fatal(st.message());
    }
    return 1;
}

