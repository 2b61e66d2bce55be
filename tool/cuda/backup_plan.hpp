// How a snapshot lays out what it copies: one range per allocation, except that module globals inside
// one driver allocation (Allocation::extent) become one range from the first to the last, and every range
// starts at an aligned offset of the context's backup buffer.
#pragma once

#include "allocations.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gorocprof::cuda {

// One copy of a snapshot: device range, the serial of its first allocation (a restore skips it once
// that allocation is freed or handed out again), and where it sits in the backup.
struct SavedRange {
    CUdeviceptr base = 0;
    size_t size = 0;
    uint64_t serial = 0;
    size_t offset = 0;
    AllocKind kind = AllocKind::Device;
    size_t allocations = 0;    // how many tracked allocations this copy covers
    uint64_t alloc_bytes = 0;  // their own bytes (without what lies between merged globals)
};

constexpr size_t kBackupAlign = 256;

// Fills `out` (cleared first) for `allocs`, sorted by base as the tracker lists them; returns the
// backup size the ranges need.
size_t plan_backup(const std::vector<Allocation>& allocs, std::vector<SavedRange>* out);

}  // namespace gorocprof::cuda
