#include "allocations.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <iterator>

namespace gorocprof::cuda {

const char* kind_name(AllocKind k) {
    switch (k) {
    case AllocKind::Device: return "cuMemAlloc";
    case AllocKind::Pitch: return "cuMemAllocPitch";
    case AllocKind::Async: return "cuMemAllocAsync";
    case AllocKind::Vmm: return "cuMemMap";
    case AllocKind::Global: return "module global";
    case AllocKind::Managed: return "cuMemAllocManaged";
    }
    return "allocation";
}

void AllocationTracker::add(CUcontext ctx, CUdeviceptr base, size_t size, AllocKind kind, CUdeviceptr extent,
                            CUmodule owner) {
    if (base == 0 || size == 0) return;
    std::lock_guard<std::mutex> lock(mu_);
    const bool global = kind == AllocKind::Global;
    if (global) {
        // A global already inside a saved global range (looked up twice, or part of a module section
        // saved as one span) is saved already: keep that range and its serial. A span replaces the
        // single variables it covers.
        auto it = by_base_.upper_bound(base);
        if (it != by_base_.begin()) {
            const Allocation& prev = std::prev(it)->second;
            if (prev.kind == AllocKind::Global && base + size <= prev.base + prev.size) return;
        }
        it = by_base_.lower_bound(base);
        while (it != by_base_.end() && it->first < base + size && it->second.kind == AllocKind::Global &&
               it->first + it->second.size <= base + size)
            it = by_base_.erase(it);
    }
    by_base_[base] = Allocation{base, size, next_serial_++, kind, ctx, global ? extent : 0, global ? owner : nullptr};
}

void AllocationTracker::remove(CUdeviceptr base) {
    std::lock_guard<std::mutex> lock(mu_);
    by_base_.erase(base);
}

void AllocationTracker::remove_range(CUdeviceptr base, size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.lower_bound(base);
    while (it != by_base_.end() && it->first < base + size) it = by_base_.erase(it);
}

void AllocationTracker::remove_owner(CUmodule module) {
    if (!module) return;
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = by_base_.begin(); it != by_base_.end();)
        it = it->second.kind == AllocKind::Global && it->second.owner == module ? by_base_.erase(it) : std::next(it);
}

void AllocationTracker::remove_context(CUcontext ctx) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = by_base_.begin(); it != by_base_.end();) it = it->second.ctx == ctx ? by_base_.erase(it) : std::next(it);
}

void AllocationTracker::restorable(CUcontext ctx, std::vector<Allocation>* out, size_t* managed) const {
    std::lock_guard<std::mutex> lock(mu_);
    out->clear();
    size_t managed_total = 0;
    for (const auto& [base, a] : by_base_) {
        if (a.kind == AllocKind::Managed) {
            managed_total += a.size;
            continue;
        }
        if (a.ctx != nullptr && a.ctx != ctx) continue;
        out->push_back(a);
    }
    if (managed) *managed = managed_total;
}


bool AllocationTracker::live(CUdeviceptr base, uint64_t serial) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.find(base);
    return it != by_base_.end() && it->second.serial == serial;
}

void AllocationTracker::add_handle(CUmemGenericAllocationHandle h, size_t size) {
    std::lock_guard<std::mutex> lock(mu_);
    handles_[h] = size;
}

void AllocationTracker::remove_handle(CUmemGenericAllocationHandle h) {
    std::lock_guard<std::mutex> lock(mu_);
    handles_.erase(h);
}

bool read_cubin_symbols(const void* image, size_t size, CubinSymbols* out) {
    const auto* bytes = static_cast<const unsigned char*>(image);
    if (!image || size < sizeof(Elf64_Ehdr) || std::memcmp(bytes, ELFMAG, SELFMAG) != 0 ||
        bytes[EI_CLASS] != ELFCLASS64)
        return false;
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes, sizeof eh);
    if (eh.e_shoff == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shoff + static_cast<uint64_t>(eh.e_shnum) * sizeof(Elf64_Shdr) > size || eh.e_shstrndx >= eh.e_shnum)
        return false;
    std::vector<Elf64_Shdr> sh(eh.e_shnum);
    std::memcpy(sh.data(), bytes + eh.e_shoff, eh.e_shnum * sizeof(Elf64_Shdr));
    auto in_bounds = [&](const Elf64_Shdr& s) { return s.sh_type == SHT_NOBITS || s.sh_offset + s.sh_size <= size; };
    const Elf64_Shdr& shstr = sh[eh.e_shstrndx];
    if (!in_bounds(shstr)) return false;
    auto section_name = [&](const Elf64_Shdr& s) -> std::string {
        if (s.sh_name >= shstr.sh_size) return {};
        const char* p = reinterpret_cast<const char*>(bytes + shstr.sh_offset + s.sh_name);
        return std::string(p, strnlen(p, shstr.sh_size - s.sh_name));
    };
    for (const Elf64_Shdr& symtab : sh) {
        if (symtab.sh_type != SHT_SYMTAB || symtab.sh_entsize != sizeof(Elf64_Sym) || !in_bounds(symtab) ||
            symtab.sh_link >= sh.size())
            continue;
        const Elf64_Shdr& strtab = sh[symtab.sh_link];
        if (!in_bounds(strtab)) continue;
        size_t n = symtab.sh_size / sizeof(Elf64_Sym);
        for (size_t i = 0; i < n; ++i) {
            Elf64_Sym sym;
            std::memcpy(&sym, bytes + symtab.sh_offset + i * sizeof(Elf64_Sym), sizeof sym);
            if (sym.st_name >= strtab.sh_size || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sh.size()) continue;
            const char* p = reinterpret_cast<const char*>(bytes + strtab.sh_offset + sym.st_name);
            std::string name(p, strnlen(p, strtab.sh_size - sym.st_name));
            if (name.empty()) continue;
            int type = ELF64_ST_TYPE(sym.st_info);
            std::string sec = section_name(sh[sym.st_shndx]);
            if (type == STT_FUNC && sec.rfind(".text.", 0) == 0) {
                out->functions.push_back(std::move(name));
            } else if (type == STT_OBJECT && sym.st_size > 0 && sec.rfind(".nv.global", 0) == 0) {
                // .nv.global (zero-initialised) and .nv.global.init; constant banks are read-only.
                out->globals.push_back({std::move(name), sym.st_size, sym.st_shndx, sym.st_value});
            }
        }
    }
    return true;
}

std::vector<std::pair<CUdeviceptr, size_t>> global_spans(std::vector<ResolvedGlobal> globals) {
    std::sort(globals.begin(), globals.end(), [](const ResolvedGlobal& a, const ResolvedGlobal& b) {
        return a.sym->section != b.sym->section ? a.sym->section < b.sym->section : a.ptr < b.ptr;
    });
    std::vector<std::pair<CUdeviceptr, size_t>> out;
    for (size_t i = 0; i < globals.size();) {
        size_t j = i;
        bool laid_out = true;
        const CUdeviceptr load = globals[i].ptr - globals[i].sym->offset;
        CUdeviceptr end = 0;
        for (; j < globals.size() && globals[j].sym->section == globals[i].sym->section; ++j) {
            const ResolvedGlobal& g = globals[j];
            laid_out = laid_out && g.ptr >= g.sym->offset && g.ptr - g.sym->offset == load && g.bytes == g.sym->size;
            end = std::max(end, g.ptr + g.bytes);
        }
        if (laid_out) {
            out.emplace_back(globals[i].ptr, end - globals[i].ptr);
        } else {
            for (size_t k = i; k < j; ++k) out.emplace_back(globals[k].ptr, globals[k].bytes);
        }
        i = j;
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace gorocprof::cuda
