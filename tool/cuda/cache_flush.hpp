// `--cache-control all|none` (GOROCPROF_CACHE_CONTROL), ncu's meaning: under `all`, the default, the L2 is
// emptied of the application's lines before every pass (pass 0 included), so that cache-sensitive counters
// (dram__bytes_read.sum, lts__t_sectors_op_read.sum) read the same on every pass and as ncu's do. The driver
// has no public call that invalidates the L2, so a kernel of the tool reads a buffer of twice the L2's size
// (clean lines in, the application's out, its dirty lines written back before the pass starts). That kernel
// runs after the pass's counters are armed, just before the pass's own kernel: it is a range of its own, and
// RangeCounters skips it (set_kernels_per_pass(2)). See README.md, "Cache control".
#pragma once

#include "check.hpp"

#include <string>

namespace gorocprof::cuda {

enum class CacheControl { All, None };

// Whether a metric's value can depend on what the caches hold when its kernel starts. Counts of the
// instructions, warps, threads and blocks a kernel launches or executes (sm__ and smsp__ units, a plain .sum,
// .avg, .min or .max) cannot: they are the program's own. Every other metric (memory traffic, hit rates,
// times, cycles, stalls, any rate or ratio) is taken as cache-sensitive. A context whose passes measure no
// cache-sensitive counter runs no flush (README.md, "Cache control").
bool cache_sensitive(const std::string& metric);

// One context's flush: its kernel, its buffer (twice the device's L2, zeroed) and a word the kernel
// writes only if the buffer's contents hash to a value they never do (so that no load is dropped).
class CacheFlush {
public:
    // Loads the kernel and allocates the buffer for device `ordinal` (the context current).
    PortStatus prepare(int ordinal);
    // Queues the flush on `stream`.
    PortStatus run(CUstream stream) const;
    // Frees the buffers; the first failure, if any.
    PortStatus release();
    bool ready() const { return fn_ != nullptr && buffer_ != 0; }
    size_t bytes() const { return bytes_; }

private:
    CUmodule module_ = nullptr;
    CUfunction fn_ = nullptr;
    CUdeviceptr buffer_ = 0;
    CUdeviceptr sink_ = 0;
    size_t bytes_ = 0;
};

}  // namespace gorocprof::cuda
