// The sim runtime's kernels as core knows them: one KernelRef per (kernel, agent), found by the
// kernel's serial with two atomic loads on every launch.
#pragma once

#include "core.hpp"

#include <gorocprof/sim_tool.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace gorocprof::sim {

class KernelTable {
public:
    explicit KernelTable(int agents);
    KernelTable(const KernelTable&) = delete;
    KernelTable& operator=(const KernelTable&) = delete;

    // Registers the kernel with core on every agent (its kernel records), once per serial.
    void add(uint64_t serial, const char* mangled_name, const simKernelAttrs& attrs);

    // The kernel's ref on the agent, registering it first when the runtime's callback has not.
    const core::KernelRef& get(uint64_t serial, const char* mangled_name, const simKernelAttrs& attrs, int agent);

private:
    static constexpr size_t kChunk = 256;
    static constexpr size_t kChunks = 4096;  // serials up to 1M in the table; later ones in `overflow_`
    struct Entry {
        std::atomic<core::KernelRef*> refs{nullptr};  // one per agent; set once, never freed
    };

    std::atomic<core::KernelRef*>* slot_locked(uint64_t serial);
    core::KernelRef* make_refs(const char* mangled_name, const simKernelAttrs& attrs) const;

    int agents_;
    std::mutex mu_;
    std::unique_ptr<std::atomic<Entry*>[]> chunks_;
    std::map<uint64_t, std::atomic<core::KernelRef*>> overflow_;
};

}  // namespace gorocprof::sim
