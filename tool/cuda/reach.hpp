// Which tracked allocations a launch can reach, so that a snapshot copies those and not the whole
// footprint (docs/perf.md, workload 3). Reachable: every allocation that holds an address found in
// the launch's argument bytes, every module global, and, transitively, every allocation whose address
// is stored in reachable memory (pointer tables, structs in device memory): a small kernel of the tool
// scans reachable memory for 8-byte words that fall inside a tracked allocation, until nothing new
// turns up. What stays out: addresses the kernel computes from integers or hides (tagged pointers,
// offsets from another allocation), pointer tables in host memory. GOROCPROF_CUDA_RESTORE=all copies
// the whole footprint instead.
#pragma once

#include "allocations.hpp"
#include "check.hpp"

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gorocprof::cuda {

// One kernel parameter: where it sits in the argument buffer and how many bytes it has.
struct ParamSlot {
    size_t offset = 0;
    size_t size = 0;
};

// Marks in `reached` (one flag per allocation of `allocs`, sorted by base) every allocation that
// contains one of the 8-byte words at 8-byte steps of [bytes, bytes + n). Returns how many it marked
// newly.
size_t mark_words(const std::vector<Allocation>& allocs, const void* bytes, size_t n, std::vector<char>* reached);

// Marks the module globals a kernel of `module` names without an address: its own module's. A global
// whose module is not known, or a kernel whose module is not, counts as reached. Returns how many it
// marked newly.
size_t mark_module_globals(const std::vector<Allocation>& allocs, CUmodule module, std::vector<char>* reached);

// Marks what a launch's arguments point into: `params` (the launch API's array of pointers to each
// argument, laid out by `slots`) or, when null, the packed buffer that `extra` passes. Returns false
// when the arguments cannot be read (the caller then copies everything).
bool mark_arguments(const std::vector<Allocation>& allocs, void** params, void** extra,
                    const std::vector<ParamSlot>& slots, std::vector<char>* reached);

// One kernel of a workload of several (a graph launched as one dispatch): its module and its arguments as
// mark_arguments reads them; slots null when the driver did not give its parameter layout.
struct KernelReach {
    CUmodule module = nullptr;
    void** params = nullptr;
    void** extra = nullptr;
    const std::vector<ParamSlot>* slots = nullptr;
};

// Marks what a workload of several kernels reaches before the scan closes it: each kernel's own module
// globals and arguments, and the allocations holding the addresses in `written` (what its memsets and copies
// write). False when a kernel's arguments cannot be read (the caller then copies everything).
bool mark_workload(const std::vector<Allocation>& allocs, const std::vector<KernelReach>& kernels,
                   const std::vector<CUdeviceptr>& written, std::vector<char>* reached);

// The device half, one per context: the scan kernel (PTX the driver compiles once per context), its table
// of allocations and its table of the ranges one round scans (one launch per round).
class ReachScanner {
public:
    // Closes `reached` over the addresses stored in reached memory, scanning on `stream` (idle, the
    // context drained) of the context on device `device`. `bytes_scanned` adds what was read. On
    // failure `reached` is left as it was. A VMM mapping this device may not read is not scanned.
    PortStatus close(const std::vector<Allocation>& allocs, std::vector<char>* reached, CUstream stream, int device,
                     uint64_t* bytes_scanned);
    // Frees the table (the module goes with its context).
    PortStatus release();

private:
    PortStatus load();
    // Queues one round of the scan on `stream`: the list of the frontier's readable allocations (their whole
    // aligned words), uploaded once, and one launch over all of it.
    PortStatus scan_round(const std::vector<Allocation>& allocs, CUstream stream, int device, uint64_t lo, uint64_t hi,
                          uint64_t* bytes_scanned);
    CUmodule module_ = nullptr;
    CUfunction scan_ = nullptr;
    CUdeviceptr table_ = 0;   // bases[n] | ends[n] | hits[n] (u32)
    size_t table_cap_ = 0;    // allocations the table holds
    CUdeviceptr ranges_ = 0;  // the round's list: {first word's address, words before it} per range
    size_t ranges_cap_ = 0;   // ranges the list's table holds
    std::vector<uint64_t> host_;
    std::vector<uint64_t> list_;  // the round's list as uploaded
    std::vector<uint32_t> hits_;
    std::vector<size_t> frontier_;
    std::vector<char> seen_;
};

}  // namespace gorocprof::cuda
