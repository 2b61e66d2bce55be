// Communication kernels (NCCL's and RCCL's collectives and peer-to-peer kernels): never replayed, because a
// collective run again alone on one rank waits for peers that do not run it again (README.md,
// "Communication kernels"). Known by the kernel's name and by the library that launched it.
#pragma once

#include <cuda.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace gorocprof::cuda {

// True for NCCL's (and RCCL's) kernel names, mangled or not: ncclDevKernel_* (NCCL 2.19 and later, RCCL),
// ncclDevKernelDebug_*, ncclKernel_* (earlier NCCL).
bool communication_kernel_name(std::string_view name);

// True when `path` (a shared object's file name, as dladdr gives it) is NCCL's or RCCL's library:
// libnccl*.so* or librccl*.so*.
bool communication_library(std::string_view path);

// The first communication library among the return addresses `frames` (innermost first), as named by
// `library_of` (null where an address is in no known object); empty when none is.
std::string communication_caller(const void* const* frames, int count,
                                 const std::function<const char*(const void*)>& library_of);

// The communication library on the calling thread's stack (backtrace and dladdr), empty when none is. Called
// once per kernel, at its first launch by the application: a launch from NCCL passes through it.
std::string launching_communication_library();

// Which kernels are communication kernels: by name, or because they come from a module a kernel of which was
// launched from a communication library (the module's other kernels are NCCL's too, however they are launched
// later, e.g. as nodes of a graph the application captured).
class CommunicationKernels {
public:
    // Why the kernel `name` of `module` is a communication kernel, empty when it is not. `caller` is
    // launching_communication_library() at the kernel's launch (empty when not known, e.g. a graph node).
    std::string classify(std::string_view name, CUmodule module, const std::string& caller);
    // A module unloaded: its handle may be reused by another module.
    void forget(CUmodule module);

private:
    std::mutex mu_;
    std::map<CUmodule, std::string> modules_;  // module -> the communication library that launched its kernels
};

}  // namespace gorocprof::cuda
