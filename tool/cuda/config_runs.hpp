// Which counter configuration a replay pass measures when the union of a device's counter groups does
// not fit one hardware pass. Every pass i must measure (at least) group i in one hardware pass, and on
// CUDA 13 changing the Range Profiler's configuration means re-creating its object (the dearest step of a
// pass, docs/perf.md), so a configuration should serve as many consecutive passes as it can. Passes come in the same
// order for every dispatch of a device (0..P-1, then the next dispatch's 0..P-1), so the sequence is
// cyclic: a configuration chosen at pass s covers groups s, s+1, ... wrapping past the last group into
// the next dispatch's first ones, as long as their counters fit one hardware pass together. Keeping a
// configuration while it covers the next pass and otherwise taking the longest run that starts there is
// the greedy cover of the sequence, which needs the fewest switches.
#pragma once

#include <cstddef>
#include <functional>

namespace gorocprof::cuda {

// Length (1..count) of the longest run of groups start, start+1, ... (indices modulo count) for which
// fits(start, length) holds; fits is asked for lengths 2, 3, ... in turn and not again after it first
// fails. A run of one group is always taken (a group that needs several hardware passes stands alone).
size_t longest_run(size_t start, size_t count, const std::function<bool(size_t start, size_t length)>& fits);

// Index (modulo count) of the run's k-th group.
inline size_t run_member(size_t start, size_t k, size_t count) { return count ? (start + k) % count : 0; }

}  // namespace gorocprof::cuda
