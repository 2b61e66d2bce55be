// Kernel launches: a launch's ENTER opens its dispatch (filters, window lock, drain, snapshot, pass 0
// armed), its EXIT runs the replay service's passes. Graph kernel nodes take the same path
// (graph_launch.cpp, through dispatch_path.hpp).
#include "backend_state.hpp"
#include "check.hpp"
#include "core.hpp"
#include "dispatch_path.hpp"
#include "phase_stats.hpp"
#include "replay_service.hpp"
#include "tracing.hpp"

#include <atomic>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::cuda {

using core::Core;
using replay::ReplayService;

const CUpti_CallbackId kLaunchIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};
const size_t kLaunchIdCount = std::size(kLaunchIds);

const CUpti_CallbackId kCaptureIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture,        CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2,     CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph, CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture,          CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz,
};
const size_t kCaptureIdCount = std::size(kCaptureIds);

namespace {

// The launch in flight on this thread between its ENTER and EXIT callbacks (launches do not nest
// within one thread: the tool's own relaunches run under the guard).
thread_local Launch t_launch;
thread_local bool t_launch_active = false;
thread_local std::unique_lock<std::mutex> t_window;
thread_local core::DispatchFacts t_facts;
thread_local uint64_t t_dispatch_id = 0;
// Captures that may be under way in the process (on_capture_call): counted high, never low.
std::atomic<int> g_captures{0};

// Grid, block, dynamic shared memory and stream: the parameter structs of cuLaunchKernel and
// cuLaunchCooperativeKernel and cuLaunchKernelEx's CUlaunchConfig name them alike.
template <typename D>
CUstream take_dims(const D& d, Launch* l) {
    l->grid[0] = d.gridDimX, l->grid[1] = d.gridDimY, l->grid[2] = d.gridDimZ;
    l->block[0] = d.blockDimX, l->block[1] = d.blockDimY, l->block[2] = d.blockDimZ;
    l->shared_bytes = d.sharedMemBytes;
    return d.hStream;
}

bool decode_launch(CUpti_CallbackId cbid, const void* params, Launch* l) {
    CUstream stream = nullptr;
    bool per_thread = false;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        per_thread = true;
        [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
        auto* p = static_cast<const cuLaunchKernel_params*>(params);
        l->api = LaunchApi::Kernel;
        l->f = p->f;
        stream = take_dims(*p, l);
        l->params = p->kernelParams;
        l->extra = p->extra;
        l->config = nullptr;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        per_thread = true;
        [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
        auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        l->api = LaunchApi::Cooperative;
        l->f = p->f;
        stream = take_dims(*p, l);
        l->params = p->kernelParams;
        l->extra = nullptr;
        l->config = nullptr;
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        per_thread = true;
        [[fallthrough]];
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
        auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        if (!p->config) return false;
        l->api = LaunchApi::KernelEx;
        l->f = p->f;
        stream = take_dims(*p->config, l);
        l->params = p->kernelParams;
        l->extra = p->extra;
        l->config = p->config;
        break;
    }
    default:
        return false;
    }
    l->stream = (per_thread && stream == nullptr) ? CU_STREAM_PER_THREAD : stream;
    return l->f != nullptr;
}

// Why this dispatch must run once and never be waited for, empty when it may be replayed:
// - a communication kernel: replaying it alone would wait for peers that do not run it again, and waiting for
//   it could wait for a peer this thread has yet to launch;
// - any kernel of a context whose earlier run the timeout guard left unfinished;
// - in a process driving several devices, any kernel of a context with a communication kernel in flight: its
//   drain would wait for the collective, whose peer on another device this thread may launch only later.
std::string unwatched_reason(ContextState& cs, const KernelEntry& k) {
    Backend& b = backend();
    if (!k.communication.empty())
        return k.communication + ": it runs once and is not waited for (replaying it alone would wait for peers "
                                 "that do not run it again)";
    if (!b.port.recovered(cs))
        return k.name + " runs once and is not waited for: " + cs.unfinished +
               "'s run on this device, left by the timeout guard, has not completed";
    if (b.several_devices.load(std::memory_order_relaxed) && cs.comm_pending) {
        // Not through cu() first: "not ready" is the answer, not a failure.
        const CUresult r = cuEventQuery(cs.ev_comm);
        if (r == CUDA_ERROR_NOT_READY)
            return k.name + " runs once and is not waited for: a communication kernel is in flight on device " +
                   std::to_string(cs.ordinal) + ", and in a process driving several devices its peer may be launched "
                   "only after this launch";
        cs.comm_pending = false;
        if (r != CUDA_SUCCESS) b.port.report_note("the end of a communication kernel is not known: " + cu(r, "cuEventQuery").message());
    }
    return {};
}

// A dispatch that runs once and is never waited for: no drain, snapshot or counters; the service declines its
// replay with the reason (a decline record per dispatch), the user hears it once.
void open_unwatched(Launch& l, std::string reason, bool communication) {
    l.unwatched = std::move(reason);
    l.communication = communication;
    l.snapshot_planned = false;
    l.early_snapshot_status = PortStatus::failure("replay", l.unwatched);
    backend().port.report_note(l.unwatched);
    l.app_issue_ns = core::now_ns();
}

void end_window() {
    t_launch_active = false;
    if (t_window.owns_lock()) t_window.unlock();
    t_window = std::unique_lock<std::mutex>();
}

}  // namespace

Launch& current_launch() { return t_launch; }

// Where the application can observe device results or hand the device other work (README.md, "Windows
// across dispatches"); memory calls and kernels that are no dispatch close the window in memory_calls.cpp.
const CUpti_CallbackId kObserveIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize,         CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,            CUPTI_DRIVER_TRACE_CBID_cuStreamQuery_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuEventQuery,             CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,    CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback,
    CUPTI_DRIVER_TRACE_CBID_cuStreamAddCallback_ptsz, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    // Not observing, but a window whose launches run again when it closes must close while their code is
    // loaded.
    CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,           CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload,
};
const size_t kObserveIdCount = std::size(kObserveIds);

bool observes_device(CUpti_CallbackId cbid) {
    for (CUpti_CallbackId id : kObserveIds)
        if (id == cbid) return true;
    return false;
}

void close_lasting_windows_of(int ordinal) {
    Backend& b = backend();
    std::vector<ContextState*> open;
    {
        // A context erased after this list is made is released only once its device's window lock is free
        // (on_context_destroy), which the caller holds.
        std::lock_guard<std::mutex> lock(b.mu);
        for (auto& [ctx, cs] : b.contexts)
            if (cs->ordinal == ordinal && cs->lasting.open()) open.push_back(cs.get());
    }
    Guard g;
    for (ContextState* cs : open) b.port.close_lasting(*cs);
}

void close_lasting_windows() {
    Backend& b = backend();
    for (int d = 0; d < b.windows.devices(); ++d) {
        std::unique_lock<std::mutex> hold = b.windows.hold(d);
        close_lasting_windows_of(d);
    }
}

void on_capture_call(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    const bool ends = cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture || cbid == CUPTI_DRIVER_TRACE_CBID_cuStreamEndCapture_ptsz;
    if (cb->callbackSite == CUPTI_API_ENTER) {
        if (!ends) g_captures.fetch_add(1, std::memory_order_acq_rel);  // before the stream captures
        return;
    }
    const CUresult r = *static_cast<const CUresult*>(cb->functionReturnValue);
    if (!ends) {
        if (r != CUDA_SUCCESS) g_captures.fetch_sub(1, std::memory_order_acq_rel);
        return;
    }
    // The capture ended, invalidated or not; any other error ended none.
    if (r != CUDA_SUCCESS && r != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) return;
    int n = g_captures.load(std::memory_order_acquire);
    while (n > 0 && !g_captures.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel)) {
    }
}

bool capturing(CUstream stream) {
    if (g_captures.load(std::memory_order_acquire) == 0) return false;  // no capture anywhere: no need to ask
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    // A stream the driver cannot ask about is not capturing (the launch on it then fails on its own).
    return cu(cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing").ok && capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool open_dispatch(CUcontext ctx, const char* symbol, uint32_t correlation) {
    Launch& l = t_launch;
    register_agents();
    PortStatus st;
    ContextState* cs = context_state(ctx, &st);
    if (!cs) {
        Core::instance().warn("launch of " + std::string(symbol ? symbol : "?") + " not profiled: " + st.message());
        return false;
    }
    const KernelEntry* k = kernel_entry(*cs, l.f, symbol, l.app_launch_pending);
    l.param_slots = k->params_known ? &k->params : nullptr;
    l.module = k->module;
    return open_dispatch_of(*cs, *k, correlation);
}

bool open_dispatch_of(ContextState& context, const KernelEntry& k, uint32_t correlation) {
    Backend& b = backend();
    Core& core = Core::instance();
    Launch& l = t_launch;
    PortStatus st;
    ContextState* cs = &context;
    l.cs = cs;
    l.agent_index = cs->ordinal;
    l.kernel_name = k.name.c_str();
    uint64_t id = ReplayService::instance().reserve_dispatch_id();
    if (!core.select(k.ref)) return false;

    core::DispatchFacts& f = t_facts;
    f = core::DispatchFacts{};
    // A dispatch in a window across dispatches is recorded when the window closes, at another dispatch's
    // select: its rotation pass must travel with its facts (kNotReplayed outside rotation).
    f.rotation_pass = core.selected_rotation_pass();
    f.info.size = sizeof(f.info);
    f.info.agent_id.handle = cs->agent_id;
    uint32_t stream_id = 0;
    st = cupti(cuptiGetStreamIdEx(cs->ctx, l.stream == CU_STREAM_PER_THREAD ? nullptr : l.stream,
                                  l.stream == CU_STREAM_PER_THREAD ? 1 : 0, &stream_id),
               "cuptiGetStreamIdEx");
    if (!st.ok) b.port.report_note("a dispatch's stream id is not known (0 is reported): " + st.message());
    f.info.queue_id.handle = stream_id;
    f.info.kernel_id = k.ref.kernel_id;
    f.info.dispatch_id = id;
    f.info.private_segment_size = static_cast<uint32_t>(k.local_bytes);
    f.info.group_segment_size = static_cast<uint32_t>(k.static_shared + l.shared_bytes);
    f.info.workgroup_size = {l.block[0], l.block[1], l.block[2]};
    // Grid in work-items, as rocprofv3 counts it: blocks times threads per block.
    f.info.grid_size = {l.grid[0] * l.block[0], l.grid[1] * l.block[1], l.grid[2] * l.block[2]};
    f.correlation_id = tracing::dispatch_correlation(correlation);
    f.stream_id = stream_id;
    f.thread_id = gettid_u64();
    f.agent_index = cs->ordinal;
    t_dispatch_id = id;
    // No counters: the kernel's activity record brings its times (kernel trace) or nothing is recorded; the
    // launch stays asynchronous (no window, no drain, no wait). A graph's kernel node is the tool's launch: the
    // usual path.
    if (l.app_launch_pending && tracing::launches_not_waited()) {
        tracing::defer_dispatch(f, correlation);
        return false;
    }

    // From here to EXIT this launch owns the device: no other thread's kernel or memory call
    // (memory_calls.cpp) may land between the snapshot and the last pass.
    if (cs->ordinal < static_cast<int>(b.devices.size())) t_window = b.windows.hold(cs->ordinal);
    t_launch_active = true;
    std::string why = unwatched_reason(*cs, k);
    const auto& passes = core.passes_for_agent(cs->ordinal);
    l.snapshot_planned = why.empty() && core.config().replay_mode == core::ReplayMode::Kernel && passes.size() > 1 &&
                         ReplayService::instance().enabled();
    if (l.snapshot_planned) b.port.plan_shared(l);
    // A dispatch that does not join the lasting window ends it before any of its own work (drain, reach scan,
    // snapshot, timing run, its launch) reaches the device.
    if (!b.port.may_join_lasting(l, why.empty(), l.snapshot_planned)) b.port.close_lasting(*cs);
    if (!why.empty()) {
        open_unwatched(l, std::move(why), !k.communication.empty());
        return true;
    }
    {
        PhaseTimer timer(Phase::EnterSync);
        st = cu(cuCtxSynchronize(), "cuCtxSynchronize");
    }
    if (!st.ok) {
        l.early_snapshot_status = st;
        l.snapshot_planned = false;
    } else if (l.snapshot_planned) {
        // Union runs: a dispatch of one hardware pass runs its kernel once and needs no snapshot; in a window
        // across dispatches of several, the window's snapshot serves (prepare_lasting).
        bool copies = !l.shared || l.hw_passes > 1;
        if (l.shared && l.hw_passes > 1 && l.lasting_planned) {
            copies = !b.port.prepare_lasting(l);
            if (copies) {
                l.lasting_planned = false;  // its own snapshot, outside any lasting window
                b.port.close_lasting(*cs);
            }
        }
        if (copies) {
            l.early_snapshot_status = b.port.take_snapshot(l, &l.early_snapshot);
            b.port.time_unprofiled(l);
        } else {
            l.no_copies.cs = cs;
            l.no_copies.copies = false;
            l.early_snapshot = &l.no_copies;
        }
    }
    // The application's own launch is pass 0; a graph's kernel node has none (every pass is the tool's).
    if (l.app_launch_pending && l.unwatched.empty()) b.port.arm_app_launch(l);
    else if (l.app_launch_pending) l.app_issue_ns = core::now_ns();  // its timing run timed out
    return true;
}

void close_dispatch(uint32_t correlation) {
    Backend& b = backend();
    Core& core = Core::instance();
    Launch& l = t_launch;
    replay::Dispatch d;
    d.info = t_facts.info;
    d.correlation.internal = tracing::dispatch_correlation(correlation);
    d.backend_dispatch = &l;
    if (l.lasting) {
        // Its one pass is a range of the lasting window: the records are written when the window is decoded.
        b.port.end_lasting(l, t_facts, ReplayService::instance().execute(b.port, d));
    } else {
        core.begin_dispatch(t_facts);
        replay::Outcome outcome = ReplayService::instance().execute(b.port, d);
        core.end_dispatch(outcome);
    }
    if (l.early_snapshot) b.port.release(l.early_snapshot);  // the service did not replay
    l.early_snapshot = nullptr;
    end_window();
}

void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    Launch& l = t_launch;
    l = Launch{};
    if (!decode_launch(cbid, cb->functionParams, &l)) return;
    Guard g;
    if (capturing(l.stream)) return;  // recorded into a graph, not executed now: the graph's launch runs it
    // A launch that is no dispatch (the filters leave it out) is still another thread's work on the device:
    // like a memory call it is queued only when no window is open (held until its EXIT).
    if (!open_dispatch(cb->context, cb->symbolName, cb->correlationId)) on_memory_call_enter(cb);
}

bool on_launch_deferred(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    if (cb->callbackSite != CUPTI_API_ENTER) {
        if (t_launch_active) return false;  // its ENTER took the usual path to a dispatch of its own
        if (*static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS) tracing::cancel_dispatch(cb->correlationId);
        return true;
    }
    if (g_captures.load(std::memory_order_acquire) != 0) return false;
    ContextState* cs = known_context_state(cb->context);
    if (cs == nullptr) return false;
    Launch& l = t_launch;
    l = Launch{};
    if (!decode_launch(cbid, cb->functionParams, &l)) return true;  // as on_launch_enter: not a dispatch
    const KernelEntry* k = known_kernel_entry(*cs, l.f);
    if (k == nullptr) return false;
    Guard g;
    l.param_slots = k->params_known ? &k->params : nullptr;
    l.module = k->module;
    // Deferred, or not selected: either way no window and no hold, which guard nothing without counters.
    open_dispatch_of(*cs, *k, cb->correlationId);
    return true;
}

void on_launch_exit(const CUpti_CallbackData* cb) {
    if (!t_launch_active) {
        if (*static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS) tracing::cancel_dispatch(cb->correlationId);
        on_memory_call_exit();  // the hold of a launch that is no dispatch, if it took one
        return;
    }
    Backend& b = backend();
    Launch& l = t_launch;
    Guard g;
    CUresult launched = *static_cast<const CUresult*>(cb->functionReturnValue);
    if (launched != CUDA_SUCCESS) {
        // Nothing ran: no pass to record. Stop the counters armed for it and let the app see its error.
        b.port.launch_failed(l);
        if (l.early_snapshot) b.port.release(l.early_snapshot);
        l.early_snapshot = nullptr;
        end_window();
        return;
    }
    const PortStatus ended = cu(cuEventRecord(l.cs->ev_end, l.stream), "cuEventRecord");
    if (!ended.ok) b.port.report_note("an application launch's end is not recorded on the GPU (pass 0's duration is not right): " + ended.message());
    close_dispatch(cb->correlationId);
}

}  // namespace gorocprof::cuda
