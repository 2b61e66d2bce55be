// The fake CUDA driver behind fake/cuda.h: device memory is host memory (a CUdeviceptr is a host
// address), copies are memcpy, and the tool library's kernels are run on the host with the same rule as their
// PTX: the reach scan reads its list of word ranges from device memory and, for each word, marks the allocation
// whose base is the largest one not above it when the word lies inside [lo, hi) and below that allocation's end.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace fakecuda {

constexpr size_t kNever = static_cast<size_t>(-1);

struct State {
    bool load_fails = false;            // cuModuleLoadDataEx answers CUDA_ERROR_INVALID_PTX
    std::set<CUdeviceptr> unreadable;   // cuMemGetAccess says no access at these addresses
    size_t launches = 0;                // scan kernels run
    std::vector<uint32_t> scan_ranges;  // the ranges of each scan kernel's list, in launch order
    size_t mem_allocs = 0;              // cuMemAlloc calls
    std::map<CUdeviceptr, size_t> blocks;  // live cuMemAlloc blocks and their sizes
    size_t syncs = 0;                   // cuStreamSynchronize calls (one per scan round)
    size_t memsets = 0;                 // cuMemsetD*Async calls
    int l2_bytes = 1 << 20;             // cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
    size_t flushes = 0;                 // cache flush kernels run
    size_t flush_bytes = 0;             // what the last one read
    size_t copies = 0;                  // cuMemcpy3DAsync calls
    // cuEventQuery: an event not listed has completed; a listed one answers CUDA_ERROR_NOT_READY that many
    // more times (kNever: a kernel that never completes), then completes.
    std::map<CUevent, size_t> queries_until_ready;
    size_t event_queries = 0;
    // Application kernels: a launch of one of these functions runs its body on the host with the launch's
    // parameters, then on_kernel (a test's fake CUPTI range); app_launches counts them, ex_launches those
    // through cuLaunchKernelEx.
    std::map<CUfunction, std::function<void(void** params)>> kernels;
    std::function<void(CUfunction)> on_kernel;
    size_t app_launches = 0, ex_launches = 0;
    std::vector<std::string> stream_ops;  // what graph steps queued, in order ("record 0x..", "wait", "host")
};

// A graph node of a kind the tool does not run node by node (a memory allocation node).
CUgraphNode add_alloc_node(CUgraph graph, const CUgraphNode* deps, size_t n);
// Graphs still alive (created or cloned, not destroyed).
size_t live_graphs();

State& state();
void reset();

// Whether `bytes` from p stay inside the live cuMemAlloc block that p lies in (true when p lies in none: the
// tests' own host buffers stand in for the application's memory).
bool fits_its_block(CUdeviceptr p, size_t bytes);
// Whether `bytes` from p lie inside one live cuMemAlloc block.
bool in_a_block(CUdeviceptr p, size_t bytes);

}  // namespace fakecuda
