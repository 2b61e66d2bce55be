// The fake CUDA driver behind fake/cuda.h: device memory is host memory (a CUdeviceptr is a host
// address), copies are memcpy, and the one kernel the tool library launches, the reach scan, is run on
// the host with the same rule as its PTX (an 8-byte word inside [lo, hi) marks the allocation whose
// base is the largest one not above it, when the word lies below that allocation's end).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <set>

namespace fakecuda {

struct State {
    bool load_fails = false;            // cuModuleLoadDataEx answers CUDA_ERROR_INVALID_PTX
    std::set<CUdeviceptr> unreadable;   // cuMemGetAccess says no access at these addresses
    size_t launches = 0;                // scan kernels run
    size_t syncs = 0;                   // cuStreamSynchronize calls (one per scan round)
};

State& state();
void reset();

}  // namespace fakecuda
