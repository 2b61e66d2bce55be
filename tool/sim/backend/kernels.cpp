#include "kernels.hpp"

namespace gorocprof::sim {

KernelTable::KernelTable(int agents) : agents_(agents), chunks_(new std::atomic<Entry*>[kChunks]) {
    for (size_t i = 0; i < kChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
}

core::KernelRef* KernelTable::make_refs(const char* mangled_name, const simKernelAttrs& attrs) const {
    auto* refs = new core::KernelRef[static_cast<size_t>(agents_)];
    for (int a = 0; a < agents_; ++a) {
        core::KernelDesc d;
        d.mangled_name = mangled_name != nullptr ? mangled_name : "";
        d.agent_id = static_cast<uint64_t>(a + 1);
        d.kernarg_size = attrs.kernarg_size;
        d.group_segment_size = attrs.lds_bytes;
        d.private_segment_size = attrs.scratch_bytes;
        d.sgpr = attrs.sgpr;
        d.vgpr = attrs.vgpr;
        d.accum_vgpr = attrs.accum_vgpr;
        refs[a] = core::Core::instance().register_kernel(d);
    }
    return refs;
}

std::atomic<core::KernelRef*>* KernelTable::slot_locked(uint64_t serial) {
    uint64_t index = serial - 1;
    if (serial == 0 || index / kChunk >= kChunks) return &overflow_[serial];
    Entry* chunk = chunks_[index / kChunk].load(std::memory_order_relaxed);
    if (chunk == nullptr) {
        chunk = new Entry[kChunk];
        chunks_[index / kChunk].store(chunk, std::memory_order_release);
    }
    return &chunk[index % kChunk].refs;
}

void KernelTable::add(uint64_t serial, const char* mangled_name, const simKernelAttrs& attrs) {
    std::lock_guard<std::mutex> lock(mu_);
    std::atomic<core::KernelRef*>* slot = slot_locked(serial);
    if (slot->load(std::memory_order_relaxed) == nullptr)
        slot->store(make_refs(mangled_name, attrs), std::memory_order_release);
}

const core::KernelRef& KernelTable::get(uint64_t serial, const char* mangled_name, const simKernelAttrs& attrs,
                                        int agent) {
    if (agent < 0 || agent >= agents_) agent = 0;
    uint64_t index = serial - 1;
    if (serial != 0 && index / kChunk < kChunks) {
        Entry* chunk = chunks_[index / kChunk].load(std::memory_order_acquire);
        core::KernelRef* refs = chunk != nullptr ? chunk[index % kChunk].refs.load(std::memory_order_acquire) : nullptr;
        if (refs != nullptr) return refs[agent];
    }
    add(serial, mangled_name, attrs);
    std::lock_guard<std::mutex> lock(mu_);
    return slot_locked(serial)->load(std::memory_order_relaxed)[agent];
}

}  // namespace gorocprof::sim
