// What the CUDA backend's callback files share: the backend's one state object and the callbacks that
// injection.cpp's dispatcher hands on (contexts.cpp, kernels.cpp, launches.cpp, memory_calls.cpp).
#pragma once

#include "allocations.hpp"
#include "cuda_port.hpp"
#include "device_info.hpp"
#include "window_lock.hpp"

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace gorocprof::cuda {

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
    DeviceWindows windows;  // per device: a replayed dispatch's ENTER to its last pass (window_lock.hpp)

    std::mutex mu;  // guards everything below
    std::map<CUcontext, std::unique_ptr<ContextState>> contexts;
    std::unordered_map<CUfunction, KernelEntry> kernels;
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
const KernelEntry* kernel_entry(ContextState& cs, CUfunction f, const char* symbol_name);

// launches.cpp: a kernel launch's ENTER (open the dispatch) and EXIT (replay it).
extern const CUpti_CallbackId kLaunchIds[];
extern const size_t kLaunchIdCount;
void on_launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void on_launch_exit(const CUpti_CallbackData* cb);

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
