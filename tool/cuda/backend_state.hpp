// What the CUDA backend's callback files share: the backend's one state object and the callbacks that
// injection.cpp's dispatcher hands on (contexts.cpp, kernels.cpp, launches.cpp, memory_calls.cpp).
#pragma once

#include "allocations.hpp"
#include "comm_kernels.hpp"
#include "cuda_port.hpp"
#include "device_info.hpp"
#include "window_lock.hpp"

#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gorocprof::cuda {

struct KernelEntry {
    core::KernelRef ref;
    int64_t static_shared = 0;
    int64_t local_bytes = 0;
    std::vector<ParamSlot> params;
    bool params_known = false;  // the driver listed every parameter (cuFuncGetParamInfo)
    CUmodule module = nullptr;  // the kernel's module: its globals are reachable by name
    std::string name;  // mangled
    // Why the kernel is never replayed (a communication kernel, comm_kernels.hpp); empty for every other.
    std::string communication;
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
    CommunicationKernels comm;  // NCCL's modules, flagged at their kernels' first launch

    std::once_flag agents_once;
    std::vector<DeviceInfo> devices;
    DeviceWindows windows;
    // Contexts on more than one device have been made: one process drives several GPUs (launches.cpp).
    std::atomic<bool> several_devices{false};  // per device: a replayed dispatch's ENTER to its last pass (window_lock.hpp)

    std::mutex mu;  // guards everything below
    std::map<CUcontext, std::unique_ptr<ContextState>> contexts;
    // Per context and handle: the runtime may launch one context-independent CUkernel on several devices, and
    // each device's kernel has its own module (globals), agent and kernel id.
    std::map<std::pair<CUcontext, CUfunction>, KernelEntry> kernels;
    std::vector<CubinRecord> cubins;
    std::unordered_map<std::string, std::vector<size_t>> cubins_by_function;
    std::set<CUmodule> modules_resolved;
    bool managed_warned = false;
};

// The process's one backend, never destroyed: callbacks may arrive during exit.
Backend& backend();
uint64_t gettid_u64();

// contexts.cpp: the Range Profiler on at a context's creation; a context's state released at its end.
void on_context_created(CUcontext ctx);
void on_context_destroy(CUcontext ctx);

// kernels.cpp: the __device__ variables of loaded cubins, and each kernel described once.
void on_module_loaded(const CUpti_ModuleResourceData* m);
// The driver allocation that holds a module global (its base), 0 when the driver does not say.
CUdeviceptr driver_extent(CUdeviceptr p);
// `app_launch`: the application's own launch is in flight on this thread (not a graph node the tool runs), so
// the launching stack tells whether NCCL launched the kernel.
const KernelEntry* kernel_entry(ContextState& cs, CUfunction f, const char* symbol_name, bool app_launch);
// The entry of `f` in `cs` when kernel_entry made it before, else null: no driver call.
const KernelEntry* known_kernel_entry(const ContextState& cs, CUfunction f);

// launches.cpp: a kernel launch's ENTER (open the dispatch) and EXIT (replay it).
extern const CUpti_CallbackId kLaunchIds[];
extern const size_t kLaunchIdCount;
void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void on_launch_exit(const CUpti_CallbackData* cb);
// A launch's ENTER or EXIT when no launch is waited for (tracing::launches_not_waited): its dispatch deferred
// to the kernel's activity record through lookups made before, with no driver call. False when the usual
// callbacks must run instead (a context or kernel not seen before, a stream capture under way somewhere).
bool on_launch_deferred(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

// Stream captures (a launch into a capturing stream is recorded, not run): counted process-wide from their
// begin's ENTER to their end's EXIT, so a launch asks the driver about its stream only while one may be on.
extern const CUpti_CallbackId kCaptureIds[];
extern const size_t kCaptureIdCount;
void on_capture_call(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);

// Lasting counter windows (lasting_window.hpp) end where the application can observe device results: at the
// ENTER of the calls observes_device() names (synchronisations, queries, host callbacks, graph launches), of
// every memory call and of every kernel launch that is no dispatch, when a context ends, and at exit.
extern const CUpti_CallbackId kObserveIds[];
extern const size_t kObserveIdCount;
bool observes_device(CUpti_CallbackId cbid);
// Decodes the lasting windows of device `ordinal`'s contexts; the caller holds that device's window lock.
void close_lasting_windows_of(int ordinal);
// The same for every device, taking each device's window lock in turn.
void close_lasting_windows();

// memory_calls.cpp: allocations tracked at their EXIT; other threads' memory calls held back by a window.
extern const CUpti_CallbackId kAllocIds[];
extern const size_t kAllocIdCount;
void on_allocation_exit(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void on_library_unload_enter(const CUpti_CallbackData* cb);
// ENTER: waits for the device's open window and holds it; EXIT: lets it go (after on_allocation_exit). Also
// taken by a kernel launch that is no dispatch (launches.cpp), from its ENTER to its EXIT.
void on_memory_call_enter(const CUpti_CallbackData* cb);
void on_memory_call_exit();

}  // namespace gorocprof::cuda
