// The sim backend's tracing (docs/tracing.md, the sim column): the runtime's API and copy callbacks
// (sim_tool.h) turned into core::trace lines. Runtime calls are HIP_RUNTIME_API lines, registration
// calls HIP_COMPILER_API lines, markers roctx ranges and marks, copies copy lines whose host side is
// the CPU agent (id 0, node 0) described here.
#pragma once

#include <gorocprof/sim_tool.h>

#include <cstdint>

namespace gorocprof::sim {

// The agent id of the host side of copies: KFD's CPU node 0 (the GPUs are nodes 1, 2, ...).
constexpr uint64_t kCpuAgentId = 0;

// Installs the callbacks when the plan traces any sim domain (core must be initialised) and
// describes the CPU agent when memory copies are traced. False (after core.fatal) when the runtime
// refuses a callback.
bool install_tracing();

// The correlation id a dispatch line of launch l carries when API tracing is on (the id of the
// simLaunchKernel that issued it; 0 when that call was not traced), else `dispatch_id`.
uint64_t dispatch_correlation(const simLaunch* l, uint64_t dispatch_id);

}  // namespace gorocprof::sim
