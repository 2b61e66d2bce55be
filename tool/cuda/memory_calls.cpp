// Memory callbacks: allocations, frees, VMM mappings and module globals tracked at their EXIT (what a
// snapshot can copy), module and library unloads forgotten, and other threads' memory calls held back by
// a replay window (window_lock.hpp).
#include "backend_state.hpp"
#include "check.hpp"
#include "core.hpp"
#include "dispatch_path.hpp"
#include "options.hpp"
#include "tracing.hpp"

#include <iterator>
#include <mutex>
#include <string>

namespace gorocprof::cuda {

using core::Core;

namespace {

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

// A module going away takes its variables with it: forget them (a snapshot copy or a reach scan of them
// would touch unmapped memory), and let a module or function loaded later under the same handle be
// resolved again.
void forget_module(CUmodule mod) {
    if (!mod) return;
    Backend& b = backend();
    b.tracker.remove_owner(mod);
    b.comm.forget(mod);
    std::lock_guard<std::mutex> lock(b.mu);
    b.modules_resolved.erase(mod);
    // Its functions' handles may come back for another module's kernels: describe those afresh. (Only the
    // launching thread uses an entry, between its launch's ENTER and EXIT; unloading the module of a
    // launch in flight is the application's error.)
    for (auto it = b.kernels.begin(); it != b.kernels.end();)
        it = it->second.module == mod ? b.kernels.erase(it) : std::next(it);
}

}  // namespace

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
        // No module known: a launch counts the global as reached.
        if (!cu(cuLibraryGetModule(&owner, a->library), "cuLibraryGetModule").ok) owner = nullptr;
        if (a->dptr && a->bytes)
            t.add(ctx, *a->dptr, *a->bytes, AllocKind::Global, driver_extent(*a->dptr), owner);
        break;
    }
    default:
        break;
    }
}


void on_library_unload_enter(const CUpti_CallbackData* cb) {
    auto* a = static_cast<const cuLibraryUnload_params*>(cb->functionParams);
    // No module known: nothing to forget (the library's globals stay tracked until their context goes).
    if (!cu(cuLibraryGetModule(&t_unloading, a->library), "cuLibraryGetModule").ok) t_unloading = nullptr;
}

namespace {

thread_local MemoryCallHold t_memory_call;  // this thread's memory call in flight

}  // namespace

void on_memory_call_enter(const CUpti_CallbackData* cb) {
    Backend& b = backend();
    if (b.windows.devices() == 0 || !cb->context) return;  // no agent registered yet: no window can be open
    if (!options().hold_other_threads) return;             // the test-only negative control
    // No counters: no snapshot or pass that another thread's call could land between.
    if (tracing::launches_not_waited()) return;
    // The call's context is current on this thread (CUPTI names it), so its device is the current one.
    int ordinal = -1;
    {
        Guard g;
        CUdevice dev = 0;
        if (cu(cuCtxGetDevice(&dev), "cuCtxGetDevice").ok) ordinal = static_cast<int>(dev);  // else: no device to wait for
    }
    t_memory_call.enter(b.windows, ordinal);
    // The call's work (a copy or memset the driver may run as a kernel, a kernel that is no dispatch) must not
    // become a range of a lasting window, and a copy may let the application see results.
    if (t_memory_call.holding()) close_lasting_windows_of(ordinal);
}

void on_memory_call_exit() { t_memory_call.exit(); }

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
const size_t kAllocIdCount = std::size(kAllocIds);

}  // namespace gorocprof::cuda
