// Device memory the application owns, as seen through the driver's allocation calls: what a
// snapshot must copy and what a restore may write. Every allocation carries a serial so that a
// restore never writes a range that was freed and handed out again since the snapshot.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::cuda {

enum class AllocKind { Device, Pitch, Async, Vmm, Global, Managed };
const char* kind_name(AllocKind k);

struct Allocation {
    CUdeviceptr base = 0;
    size_t size = 0;
    uint64_t serial = 0;
    AllocKind kind = AllocKind::Device;
    CUcontext ctx = nullptr;  // nullptr: not bound to one context (VMM mappings)
    // Module globals: base of the driver allocation that holds the variable (cuMemGetAddressRange),
    // 0 when unknown. Globals of one such allocation may be saved as one range.
    CUdeviceptr extent = 0;
    // Module globals: the module that defines the variable (its kernels use it by name), null when
    // unknown.
    CUmodule owner = nullptr;
};

class AllocationTracker {
public:
    void add(CUcontext ctx, CUdeviceptr base, size_t size, AllocKind kind, CUdeviceptr extent = 0,
             CUmodule owner = nullptr);
    void remove(CUdeviceptr base);
    // Drops every allocation that lies inside [base, base+size) (an unmapped VMM range).
    void remove_range(CUdeviceptr base, size_t size);
    // Forgets the globals of a module that is being unloaded.
    void remove_owner(CUmodule module);
    // Forgets what a destroyed context owned.
    void remove_context(CUcontext ctx);

    // What a snapshot of `ctx` must save (managed memory excluded: it is reported, not restored), into
    // `out` (cleared first, its capacity reused from one dispatch to the next); in the same walk, the
    // bytes of managed memory (visible to every context) into `managed` when given.
    void restorable(CUcontext ctx, std::vector<Allocation>* out, size_t* managed = nullptr) const;
    // True while the allocation that had this serial is still live at `base`.
    bool live(CUdeviceptr base, uint64_t serial) const;

    // VMM: physical allocation sizes by handle (cuMemCreate), used to describe mappings.
    void add_handle(CUmemGenericAllocationHandle h, size_t size);
    void remove_handle(CUmemGenericAllocationHandle h);

private:
    mutable std::mutex mu_;
    std::map<CUdeviceptr, Allocation> by_base_;
    std::map<CUmemGenericAllocationHandle, size_t> handles_;
    uint64_t next_serial_ = 1;
};

// Module-scope variables (__device__ globals) of a loaded cubin, found in its ELF symbol table, so
// that they are saved even when the host never asks the driver for their address.
struct CubinGlobal {
    std::string name;
    size_t size = 0;
    uint32_t section = 0;  // ELF section index (.nv.global or .nv.global.init)
    uint64_t offset = 0;   // st_value: the variable's offset inside its section
};

struct CubinSymbols {
    std::vector<CubinGlobal> globals;                     // writable device variables
    std::vector<std::string> functions;                   // kernel entry points
};

// Reads the symbol table of a cubin (ELF64). Returns false when the image is not an ELF cubin.
bool read_cubin_symbols(const void* image, size_t size, CubinSymbols* out);

// A module global the driver resolved: the cubin's description and the address it was loaded at.
struct ResolvedGlobal {
    const CubinGlobal* sym;
    CUdeviceptr ptr;
    size_t bytes;
};

// The ranges a snapshot should copy for the resolved globals of one module: one span per ELF section
// whose variables all sit at (load base + their ELF offset) with their ELF sizes, which proves the
// section was loaded as one block, so the span between its first and last variable is that section's
// memory; every variable of a section that does not prove it stays its own range. Sorted by address.
std::vector<std::pair<CUdeviceptr, size_t>> global_spans(std::vector<ResolvedGlobal> globals);

}  // namespace gorocprof::cuda
