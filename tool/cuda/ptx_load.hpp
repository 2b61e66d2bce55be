// The tool's own kernels are PTX in the library (no device compiler needed to build it): loaded once per
// context by the driver's JIT.
#pragma once

#include "check.hpp"

namespace gorocprof::cuda {

// Loads `ptx` into the current context and looks up `entry`; a JIT failure carries the driver's log.
PortStatus load_ptx_kernel(const char* ptx, const char* entry, CUmodule* module, CUfunction* fn);

}  // namespace gorocprof::cuda
