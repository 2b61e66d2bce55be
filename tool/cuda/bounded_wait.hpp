// The timeout guard of replayed runs: how long the tool waits for a kernel it launched again (or for the
// application's launch of a dispatch it replays) before it stops replaying the dispatch (README.md, "Timeout
// guard"), and a wait for an event with that bound that sleeps between queries instead of spinning a core.
#pragma once

#include "check.hpp"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace gorocprof::cuda {

// The bound of a run whose kernel takes `kernel_ns` unprofiled (-1: not measured yet, as for the timing run
// itself): `configured_ns` when set (GOROCPROF_CUDA_REPLAY_TIMEOUT, > 0), else max(1 s, 100 x kernel_ns),
// and kUntimedBoundNs for a kernel not timed yet.
constexpr int64_t kMinBoundNs = 1000000000;       // 1 s
constexpr int64_t kUntimedBoundNs = 10000000000;  // 10 s: the timing run, before any time is known
constexpr int64_t kBoundFactor = 100;
int64_t replay_bound_ns(int64_t configured_ns, int64_t kernel_ns);

// Waits until `ev` completes or `bound_ns` passes: cuEventQuery, polled for the first 100 us (yielding), then
// sleeping between queries (from 20 us, doubling to 1 ms), so that a long kernel costs no core and a short
// one no sleep's latency. A driver error
// other than "not ready" is returned; `*timed_out` says whether the bound passed first.
PortStatus wait_bounded(CUevent ev, int64_t bound_ns, bool* timed_out);

// "1.5 s", "250 ms": a bound as a sentence says it.
std::string describe_bound(int64_t ns);

}  // namespace gorocprof::cuda
