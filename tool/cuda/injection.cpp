// The CUDA backend's entry point and CUPTI callbacks. The driver loads this library through
// CUDA_INJECTION64_PATH and calls InitializeInjection(); from then on every launch, allocation and
// module load of the process passes through on_callback(). Callbacks are thin: they decode CUPTI's
// data and hand it to a function that says what it does.
#include "allocations.hpp"
#include "check.hpp"
#include "core.hpp"
#include "cuda_port.hpp"
#include "device_info.hpp"
#include "dispatch_path.hpp"
#include "phase_stats.hpp"
#include "replay_service.hpp"

#include <cupti.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace gorocprof::cuda {

thread_local int t_guard = 0;

namespace {

using core::Core;
using replay::ReplayService;

struct KernelEntry {
    core::KernelRef ref;
    int64_t static_shared = 0;
    int64_t local_bytes = 0;
    std::vector<ParamSlot> params;
    bool params_known = false;  // the driver listed every parameter (cuFuncGetParamInfo)
    CUmodule module = nullptr;  // the kernel's module: its globals are reachable by name
};

struct CubinRecord {
    CubinSymbols symbols;
};

struct Backend {
    std::mutex init_mu;
    bool initialized = false;
    CUpti_SubscriberHandle subscriber = nullptr;

    AllocationTracker tracker;
    CudaPort port{tracker};

    std::once_flag agents_once;
    std::vector<DeviceInfo> devices;
    std::unique_ptr<std::mutex[]> windows;  // per device: a profiled launch's ENTER..EXIT

    std::mutex mu;  // guards everything below
    std::map<CUcontext, std::unique_ptr<ContextState>> contexts;
    std::unordered_map<CUfunction, KernelEntry> kernels;
    std::vector<CubinRecord> cubins;
    std::unordered_map<std::string, std::vector<size_t>> cubins_by_function;
    std::set<CUmodule> modules_resolved;
    bool managed_warned = false;
};

Backend& backend() {
    static Backend* b = new Backend;  // never destroyed: callbacks may arrive during exit
    return *b;
}

uint64_t gettid_u64() {
    static thread_local uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
    return tid;
}

void warn_once_managed(size_t bytes) {
    Backend& b = backend();
    {
        std::lock_guard<std::mutex> lock(b.mu);
        if (b.managed_warned) return;
        b.managed_warned = true;
    }
    Core::instance().warn("managed memory (cuMemAllocManaged, " + std::to_string(bytes) +
                          " bytes in the first allocation) is not saved or restored between replay passes: kernels "
                          "that write it see the writes of every pass");
}

// ---- agents and contexts ---------------------------------------------------------------------

}  // namespace

void register_agents() {
    Backend& b = backend();
    std::call_once(b.agents_once, [&b] {
        int count = 0;
        PortStatus st = cu(cuDeviceGetCount(&count), "cuDeviceGetCount");
        if (!st.ok) {
            Core::instance().fatal("agents: " + st.message());
            count = 0;
        }
        b.windows.reset(new std::mutex[count > 0 ? count : 1]);
        for (int i = 0; i < count; ++i) {
            DeviceInfo d;
            st = describe_device(i, &d);
            if (!st.ok) {
                Core::instance().warn("agent " + std::to_string(i) + ": " + st.message());
                d.ordinal = i;
                d.id = static_cast<uint64_t>(i) + 1;
            }
            core::AgentInfo a;
            a.id = d.id;
            a.index = d.ordinal;
            a.name = d.name;
            a.product_name = d.name;
            a.vendor = "NVIDIA";
            a.props = d.props;
            a.strings = d.strings;
            Core::instance().register_agent(a);
            b.devices.push_back(std::move(d));
        }
    });
}

namespace {

// --cache-control all on a device the plan collects counters on: the flush kernel runs before every pass,
// inside its counter configuration, so the counters skip one range per pass. Without the flush (it could
// not be set up) the context's counters are taken as they come, and the user hears why.
void prepare_cache_flush(ContextState& cs) {
    if (backend().port.cache_control() != CacheControl::All) return;
    bool counters = false;
    for (const auto& pass : Core::instance().passes_for_agent(cs.ordinal))
        if (!pass.counters.empty()) counters = true;
    if (!counters) return;
    const PortStatus st = cs.flush.prepare(cs.ordinal);
    if (st.ok) {
        cs.counters->set_kernels_per_pass(2);
        return;
    }
    cs.flush.release();
    backend().port.report_note("--cache-control all: the L2 is not flushed before passes on device " +
                               std::to_string(cs.ordinal) + " (" + st.message() +
                               "); cache-sensitive counters may differ from ncu's");
}

}  // namespace

// The state of `ctx`, created on its first profiled launch (the calling thread has it current).
ContextState* context_state(CUcontext ctx, PortStatus* st) {
    Backend& b = backend();
    {
        std::lock_guard<std::mutex> lock(b.mu);
        auto it = b.contexts.find(ctx);
        if (it != b.contexts.end()) return it->second.get();
    }
    auto cs = std::make_unique<ContextState>();
    cs->ctx = ctx;
    CUdevice dev = 0;
    if (!(*st = cu(cuCtxGetDevice(&dev), "cuCtxGetDevice")).ok) return nullptr;
    cs->ordinal = static_cast<int>(dev);
    cs->agent_id = static_cast<uint64_t>(dev) + 1;
    if (!(*st = cu(cuStreamCreate(&cs->copy_stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")).ok) return nullptr;
    if (!(*st = cu(cuEventCreate(&cs->ev_start, CU_EVENT_DEFAULT), "cuEventCreate")).ok) return nullptr;
    if (!(*st = cu(cuEventCreate(&cs->ev_end, CU_EVENT_DEFAULT), "cuEventCreate")).ok) return nullptr;
    std::string chip;
    if (cs->ordinal < static_cast<int>(b.devices.size())) chip = b.devices[cs->ordinal].chip;
    cs->counters = std::make_unique<RangeCounters>(ctx, chip);
    // Under application replay this process runs one pass of the plan: its group alone decides the
    // configuration (a run of groups would only make every Start dearer, 32 ms instead of 6-16 ms for L2/DRAM
    // counters on the H200).
    const core::Config& config = Core::instance().config();
    const bool one_pass = config.replay_mode == core::ReplayMode::Application && config.application_pass >= 0;
    cs->counters->plan_passes(Core::instance().passes_for_agent(cs->ordinal),
                              one_pass ? static_cast<size_t>(config.application_pass) : RangeCounters::kAllPasses);
    prepare_cache_flush(*cs);
    std::lock_guard<std::mutex> lock(b.mu);
    auto& slot = b.contexts[ctx];
    if (!slot) slot = std::move(cs);
    return slot.get();
}

namespace {

// Turns the Range Profiler on as soon as the context exists when the plan collects counters on its
// device, so that it is on before the application loads any module.
void on_context_created(CUcontext ctx) {
    const char* eager = std::getenv("GOROCPROF_CUDA_EAGER_PROFILER");
    if (eager && *eager == '0') return;
    Guard g;
    if (cuCtxPushCurrent(ctx) != CUDA_SUCCESS) return;
    register_agents();
    CUdevice dev = 0;
    bool wanted = false;
    if (cuCtxGetDevice(&dev) == CUDA_SUCCESS)
        for (const auto& pass : Core::instance().passes_for_agent(static_cast<int>(dev)))
            if (!pass.counters.empty()) wanted = true;
    if (wanted) {
        PortStatus st;
        ContextState* cs = context_state(ctx, &st);
        if (!cs) Core::instance().warn("context setup: " + st.message());
        else if (cs->counters && backend().port.counters_usable() && !(st = cs->counters->enable_now()).ok)
            backend().port.report_counter_problem(st);
    }
    CUcontext popped = nullptr;
    cuCtxPopCurrent(&popped);
}

void on_context_destroy(CUcontext ctx) {
    Backend& b = backend();
    std::unique_ptr<ContextState> cs;
    {
        std::lock_guard<std::mutex> lock(b.mu);
        auto it = b.contexts.find(ctx);
        if (it != b.contexts.end()) {
            cs = std::move(it->second);
            b.contexts.erase(it);
        }
        b.kernels.clear();  // function handles of a destroyed context may be reused
        b.modules_resolved.clear();
    }
    b.tracker.remove_context(ctx);
    if (!cs) return;
    Guard g;
    forget_graph_context(ctx);
    cs->flush.release();
    if (cs->counters) cs->counters->disable();
    if (cs->device_backup) cuMemFree(cs->device_backup);
    cs->reach.release();
    if (cs->host_backup) cuMemFreeHost(cs->host_backup);
    if (cs->ev_start) cuEventDestroy(cs->ev_start);
    if (cs->ev_end) cuEventDestroy(cs->ev_end);
    if (cs->copy_stream) cuStreamDestroy(cs->copy_stream);
}

// ---- kernels and module globals --------------------------------------------------------------

void on_module_loaded(const CUpti_ModuleResourceData* m) {
    if (!m || !m->pCubin) return;
    CubinRecord rec;
    if (!read_cubin_symbols(m->pCubin, m->cubinSize, &rec.symbols) || rec.symbols.globals.empty()) return;
    Backend& b = backend();
    std::lock_guard<std::mutex> lock(b.mu);
    size_t idx = b.cubins.size();
    for (const std::string& f : rec.symbols.functions) b.cubins_by_function[f].push_back(idx);
    b.cubins.push_back(std::move(rec));
}

// The driver allocation that holds a module global (its base), 0 when the driver does not say: globals
// of one allocation are saved as one range (PyTorch: about 870 variables, each a copy call of ~5 us).
CUdeviceptr driver_extent(CUdeviceptr p) {
    CUdeviceptr base = 0;
    size_t size = 0;
    return cuMemGetAddressRange(&base, &size, p) == CUDA_SUCCESS && size ? base : 0;
}

// Saves the __device__ variables of the kernel's module even when the host never looked them up:
// the module's cubin (seen at load time) names them, the driver gives their addresses.
void resolve_module_globals(CUcontext ctx, CUmodule mod, const std::string& symbol) {
    Backend& b = backend();
    if (!mod) return;
    // The cubins that name this kernel; each keeps its own sections (their indices are per cubin).
    std::vector<std::vector<CubinGlobal>> candidates;
    {
        std::lock_guard<std::mutex> lock(b.mu);
        if (b.modules_resolved.count(mod)) return;
        auto it = b.cubins_by_function.find(symbol);
        if (it == b.cubins_by_function.end()) return;  // no globals known for this kernel's cubin (yet)
        for (size_t idx : it->second) candidates.push_back(b.cubins[idx].symbols.globals);
    }
    for (const std::vector<CubinGlobal>& cubin : candidates) {
        std::vector<ResolvedGlobal> found;
        for (const CubinGlobal& g : cubin) {
            CUdeviceptr ptr = 0;
            size_t bytes = 0;
            if (cuModuleGetGlobal(&ptr, &bytes, mod, g.name.c_str()) == CUDA_SUCCESS && ptr && bytes)
                found.push_back({&g, ptr, bytes});
        }
        // A module section saved as one range instead of one per variable (PyTorch: about 870 ranges
        // per snapshot before, each a driver copy call of about 5 us).
        for (const auto& [base, size] : global_spans(std::move(found)))
            b.tracker.add(ctx, base, size, AllocKind::Global, driver_extent(base), mod);
    }
    std::lock_guard<std::mutex> lock(b.mu);
    b.modules_resolved.insert(mod);
}

const KernelEntry* kernel_entry(ContextState& cs, CUfunction f, const char* symbol_name) {
    Backend& b = backend();
    const CUfunction key = f;
    {
        std::lock_guard<std::mutex> lock(b.mu);
        auto it = b.kernels.find(key);
        if (it != b.kernels.end()) return &it->second;
    }
    core::KernelDesc desc;
    if (symbol_name && *symbol_name) {
        desc.mangled_name = symbol_name;
    } else {
        const char* n = nullptr;
        desc.mangled_name = (cuFuncGetName(&n, f) == CUDA_SUCCESS && n) ? n : "unknown_kernel";
    }
    desc.agent_id = cs.agent_id;
    // The runtime may pass a context-independent CUkernel where a CUfunction is expected; the
    // attribute and module queries need the context's function.
    int regs = 0;
    if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f) != CUDA_SUCCESS) {
        CUfunction real = nullptr;
        if (cuKernelGetFunction(&real, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && real) f = real;
    }
    KernelEntry e;
    size_t end = 0;
    for (size_t i = 0;; ++i) {
        size_t off = 0, sz = 0;
        const CUresult r = cuFuncGetParamInfo(f, i, &off, &sz);
        if (r != CUDA_SUCCESS) {
            // An index past the last parameter is an invalid value; anything else (an old driver) means
            // the list is not known, and snapshots of this kernel copy everything.
            e.params_known = r == CUDA_ERROR_INVALID_VALUE;
            break;
        }
        e.params.push_back({off, sz});
        end = off + sz;
    }
    desc.kernarg_size = static_cast<int64_t>(end);
    int v = 0;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS) e.static_shared = v;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f) == CUDA_SUCCESS) e.local_bytes = v;
    desc.group_segment_size = e.static_shared;
    desc.private_segment_size = e.local_bytes;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS) desc.vgpr = v;
    if (cuFuncGetModule(&e.module, f) != CUDA_SUCCESS) e.module = nullptr;
    resolve_module_globals(cs.ctx, e.module, desc.mangled_name);
    e.ref = Core::instance().register_kernel(desc);
    std::lock_guard<std::mutex> lock(b.mu);
    return &b.kernels.emplace(key, std::move(e)).first->second;
}

// ---- launches --------------------------------------------------------------------------------

// The launch in flight on this thread between its ENTER and EXIT callbacks (launches do not nest
// within one thread: the tool's own relaunches run under the guard).
thread_local Launch t_launch;
thread_local bool t_launch_active = false;
thread_local std::unique_lock<std::mutex> t_window;
thread_local core::DispatchFacts t_facts;
thread_local uint64_t t_dispatch_id = 0;

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

void end_window() {
    t_launch_active = false;
    if (t_window.owns_lock()) t_window.unlock();
    t_window = std::unique_lock<std::mutex>();
}

}  // namespace

Launch& current_launch() { return t_launch; }

bool capturing(CUstream stream) {
    CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
    return cuStreamIsCapturing(stream, &capture) == CUDA_SUCCESS && capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool open_dispatch(CUcontext ctx, const char* symbol, uint32_t correlation) {
    Backend& b = backend();
    Core& core = Core::instance();
    Launch& l = t_launch;
    register_agents();
    PortStatus st;
    ContextState* cs = context_state(ctx, &st);
    if (!cs) {
        core.warn("launch of " + std::string(symbol ? symbol : "?") + " not profiled: " + st.message());
        return false;
    }
    l.cs = cs;
    l.agent_index = cs->ordinal;
    const KernelEntry* k = kernel_entry(*cs, l.f, symbol);
    l.param_slots = k->params_known ? &k->params : nullptr;
    l.module = k->module;
    uint64_t id = ReplayService::instance().reserve_dispatch_id();
    if (!core.select(k->ref)) return false;

    core::DispatchFacts& f = t_facts;
    f = core::DispatchFacts{};
    f.info.size = sizeof(f.info);
    f.info.agent_id.handle = cs->agent_id;
    uint32_t stream_id = 0;
    cuptiGetStreamIdEx(ctx, l.stream == CU_STREAM_PER_THREAD ? nullptr : l.stream,
                       l.stream == CU_STREAM_PER_THREAD ? 1 : 0, &stream_id);
    f.info.queue_id.handle = stream_id;
    f.info.kernel_id = k->ref.kernel_id;
    f.info.dispatch_id = id;
    f.info.private_segment_size = static_cast<uint32_t>(k->local_bytes);
    f.info.group_segment_size = static_cast<uint32_t>(k->static_shared + l.shared_bytes);
    f.info.workgroup_size = {l.block[0], l.block[1], l.block[2]};
    // Grid in work-items, as rocprofv3 counts it: blocks times threads per block.
    f.info.grid_size = {l.grid[0] * l.block[0], l.grid[1] * l.block[1], l.grid[2] * l.block[2]};
    f.correlation_id = correlation;
    f.stream_id = stream_id;
    f.thread_id = gettid_u64();
    f.agent_index = cs->ordinal;
    t_dispatch_id = id;

    // From here to EXIT this launch owns the device: no other thread's kernel may land between the
    // snapshot and the last pass.
    if (b.windows && cs->ordinal < static_cast<int>(b.devices.size()))
        t_window = std::unique_lock<std::mutex>(b.windows[cs->ordinal]);
    t_launch_active = true;

    const auto& passes = core.passes_for_agent(cs->ordinal);
    l.snapshot_planned = core.config().replay_mode == core::ReplayMode::Kernel && passes.size() > 1 &&
                         ReplayService::instance().enabled();
    {
        PhaseTimer timer(Phase::EnterSync);
        st = cu(cuCtxSynchronize(), "cuCtxSynchronize");
    }
    if (!st.ok) {
        l.early_snapshot_status = st;
        l.snapshot_planned = false;
    } else if (l.snapshot_planned) {
        l.early_snapshot_status = b.port.take_snapshot(l, &l.early_snapshot);
        b.port.time_unprofiled(l);
    }
    // The application's own launch is pass 0; a graph's kernel node has none (every pass is the tool's).
    if (l.app_launch_pending) b.port.arm_app_launch(l);
    return true;
}

void close_dispatch(uint32_t correlation) {
    Backend& b = backend();
    Core& core = Core::instance();
    Launch& l = t_launch;
    replay::Dispatch d;
    d.info = t_facts.info;
    d.correlation.internal = correlation;
    d.backend_dispatch = &l;
    core.begin_dispatch(t_facts);
    replay::Outcome outcome = ReplayService::instance().execute(b.port, d);
    core.end_dispatch(outcome);
    if (l.early_snapshot) b.port.release(l.early_snapshot);  // the service did not replay
    l.early_snapshot = nullptr;
    end_window();
}

namespace {

void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    Launch& l = t_launch;
    l = Launch{};
    if (!decode_launch(cbid, cb->functionParams, &l)) return;
    Guard g;
    if (capturing(l.stream)) return;  // recorded into a graph, not executed now: the graph's launch runs it
    open_dispatch(cb->context, cb->symbolName, cb->correlationId);
}

void on_launch_exit(const CUpti_CallbackData* cb) {
    if (!t_launch_active) return;
    Backend& b = backend();
    Launch& l = t_launch;
    Guard g;
    CUresult launched = *static_cast<const CUresult*>(cb->functionReturnValue);
    if (launched != CUDA_SUCCESS) {
        // Nothing ran: no pass to record. Stop the counters armed for it and let the app see its error.
        if (l.cs->counters && l.cs->counters->armed()) {
            std::vector<core::CounterSample> discard;
            l.cs->counters->collect(&discard);
        }
        if (l.early_snapshot) b.port.release(l.early_snapshot);
        l.early_snapshot = nullptr;
        end_window();
        return;
    }
    cuEventRecord(l.cs->ev_end, l.stream);
    close_dispatch(cb->correlationId);
}

// ---- allocations -----------------------------------------------------------------------------

// A module going away takes its variables with it: forget them (a snapshot copy or a reach scan of them
// would touch unmapped memory), and let a module or function loaded later under the same handle be
// resolved again.
void forget_module(CUmodule mod) {
    if (!mod) return;
    Backend& b = backend();
    b.tracker.remove_owner(mod);
    std::lock_guard<std::mutex> lock(b.mu);
    b.modules_resolved.erase(mod);
    // Its functions' handles may come back for another module's kernels: describe those afresh. (Only the
    // launching thread uses an entry, between its launch's ENTER and EXIT; unloading the module of a
    // launch in flight is the application's error.)
    for (auto it = b.kernels.begin(); it != b.kernels.end();)
        it = it->second.module == mod ? b.kernels.erase(it) : std::next(it);
}

// The module of the library this thread is unloading (known only before the unload), forgotten when the
// unload succeeded.
thread_local CUmodule t_unloading = nullptr;

void on_allocation_exit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    if (*static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS) return;
    AllocationTracker& t = backend().tracker;
    const void* p = cb->functionParams;
    CUcontext ctx = cb->context;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        auto* a = static_cast<const cuMemAlloc_v2_params*>(p);
        if (a->dptr) t.add(ctx, *a->dptr, a->bytesize, AllocKind::Device);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        auto* a = static_cast<const cuMemAllocPitch_v2_params*>(p);
        if (a->dptr && a->pPitch) t.add(ctx, *a->dptr, *a->pPitch * a->Height, AllocKind::Pitch);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        t.remove(static_cast<const cuMemFree_v2_params*>(p)->dptr);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        auto* a = static_cast<const cuMemAllocManaged_params*>(p);
        if (a->dptr) {
            t.add(ctx, *a->dptr, a->bytesize, AllocKind::Managed);
            warn_once_managed(a->bytesize);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        auto* a = static_cast<const cuMemAllocAsync_params*>(p);
        if (a->dptr) t.add(ctx, *a->dptr, a->bytesize, AllocKind::Async);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        auto* a = static_cast<const cuMemAllocFromPoolAsync_params*>(p);
        if (a->dptr) t.add(ctx, *a->dptr, a->bytesize, AllocKind::Async);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        t.remove(static_cast<const cuMemFreeAsync_params*>(p)->dptr);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
        auto* a = static_cast<const cuMemCreate_params*>(p);
        if (a->handle) t.add_handle(*a->handle, a->size);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemRelease:
        t.remove_handle(static_cast<const cuMemRelease_params*>(p)->handle);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
        auto* a = static_cast<const cuMemMap_params*>(p);
        t.add(ctx, a->ptr, a->size, AllocKind::Vmm);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
        auto* a = static_cast<const cuMemUnmap_params*>(p);
        t.remove_range(a->ptr, a->size);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleGetGlobal_v2: {
        auto* a = static_cast<const cuModuleGetGlobal_v2_params*>(p);
        if (a->dptr && a->bytes)
            t.add(ctx, *a->dptr, *a->bytes, AllocKind::Global, driver_extent(*a->dptr), a->hmod);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuModuleUnload:
        forget_module(static_cast<const cuModuleUnload_params*>(p)->hmod);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload:
        forget_module(t_unloading);
        t_unloading = nullptr;
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLibraryGetGlobal: {
        auto* a = static_cast<const cuLibraryGetGlobal_params*>(p);
        // The library's module in this context is what its kernels' cuFuncGetModule names.
        CUmodule owner = nullptr;
        if (cuLibraryGetModule(&owner, a->library) != CUDA_SUCCESS) owner = nullptr;
        if (a->dptr && a->bytes)
            t.add(ctx, *a->dptr, *a->bytes, AllocKind::Global, driver_extent(*a->dptr), owner);
        break;
    }
    default:
        break;
    }
}

const CUpti_CallbackId kLaunchIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,           CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,         CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};
const CUpti_CallbackId kAllocIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemCreate,
    CUPTI_DRIVER_TRACE_CBID_cuMemRelease,
    CUPTI_DRIVER_TRACE_CBID_cuMemMap,
    CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuModuleGetGlobal_v2,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryGetGlobal,
    CUPTI_DRIVER_TRACE_CBID_cuModuleUnload,
    CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload,
};

bool contains(const CUpti_CallbackId* ids, size_t n, CUpti_CallbackId id) {
    for (size_t i = 0; i < n; ++i)
        if (ids[i] == id) return true;
    return false;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    // Modules loaded while the tool resolves a kernel are still the application's.
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        auto* rd = static_cast<const CUpti_ResourceData*>(data);
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
            on_module_loaded(static_cast<const CUpti_ModuleResourceData*>(rd->resourceDescriptor));
        else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
            on_context_destroy(rd->context);
        else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED)
            on_context_created(rd->context);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    auto* cb = static_cast<const CUpti_CallbackData*>(data);
    if (graph_probe_callback(cbid, cb) || t_guard > 0) return;
    if (contains(kLaunchIds, std::size(kLaunchIds), cbid)) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            on_launch_enter(cbid, cb);
        else
            on_launch_exit(cb);
    } else if (contains(kGraphIds, kGraphIdCount, cbid)) {
        on_graph_callback(cbid, cb);
    } else if (cb->callbackSite == CUPTI_API_EXIT) {
        on_allocation_exit(cbid, cb);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLibraryUnload) {
        auto* a = static_cast<const cuLibraryUnload_params*>(cb->functionParams);
        if (cuLibraryGetModule(&t_unloading, a->library) != CUDA_SUCCESS) t_unloading = nullptr;
    }
}

PortStatus subscribe() {
    Backend& b = backend();
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
    if (!(st = enable_driver(kLaunchIds, std::size(kLaunchIds))).ok) return st;
    if (!(st = enable_driver(kGraphIds, kGraphIdCount)).ok) return st;
    return enable_driver(kAllocIds, std::size(kAllocIds));
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
    PhaseStats::instance();  // GOROCPROF_CUDA_TIMING=1: per-phase totals on stderr at exit
    std::string problem;
    b.port.set_cache_control(parse_cache_control(std::getenv("GOROCPROF_CACHE_CONTROL"), &problem));
    if (!problem.empty()) gorocprof::core::Core::instance().warn(problem);
    PortStatus st = subscribe();
    if (!st.ok) {
        if (b.subscriber) cuptiUnsubscribe(b.subscriber);
        b.subscriber = nullptr;
        gorocprof::core::Core::instance().fatal(st.message());
    }
    return 1;
}
