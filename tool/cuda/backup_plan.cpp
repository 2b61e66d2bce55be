#include "backup_plan.hpp"

#include <algorithm>

namespace gorocprof::cuda {

namespace {
size_t aligned(size_t n) { return (n + kBackupAlign - 1) / kBackupAlign * kBackupAlign; }
}  // namespace

size_t plan_backup(const std::vector<Allocation>& allocs, std::vector<SavedRange>* out) {
    out->clear();
    size_t total = 0;
    CUdeviceptr open_extent = 0;  // the driver allocation of the last saved module global
    for (const Allocation& a : allocs) {
        if (a.kind == AllocKind::Global && a.extent != 0 && a.extent == open_extent) {
            // Globals of one driver allocation (sorted by address, so nothing else lies between them):
            // one copy from the first to the last, the bytes between included.
            SavedRange& prev = out->back();
            total -= aligned(prev.size);
            prev.size = std::max(prev.base + prev.size, a.base + a.size) - prev.base;
            total += aligned(prev.size);
            ++prev.allocations;
            prev.alloc_bytes += a.size;
            continue;
        }
        open_extent = a.kind == AllocKind::Global ? a.extent : 0;
        out->push_back({a.base, a.size, a.serial, total, a.kind, 1, a.size});
        total += aligned(a.size);
    }
    return total;
}

}  // namespace gorocprof::cuda
