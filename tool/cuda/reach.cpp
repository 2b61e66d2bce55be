#include "reach.hpp"

#include "ptx_load.hpp"

#include <algorithm>
#include <cstring>

namespace gorocprof::cuda {
namespace {

// The scan kernel, in PTX so that the tool library needs no device compiler. One launch reads a round's list
// of word ranges as if they were one array of nwords 8-byte words; its parameters:
//   p_ranges   the list: per range, the address of its first 8-byte aligned word and the words of the ranges
//              before it (a prefix sum: 0 for the first range, increasing), two u64 each
//   p_nwords   the words of all ranges together
//   p_bases    the tracked allocations' bases, sorted (p_n u64)
//   p_ends     their ends (p_n u64)
//   p_hits     a u32 flag per allocation, set when a word points into it
//   p_lo, p_hi the lowest base and highest end: a word outside [lo, hi) points into none
//   p_nranges  ranges in the list
//   p_n        tracked allocations
// Every thread takes word indices g with a grid-stride loop and finds g's range by binary search over the prefix
// sums (from the previous g's range on: g only grows); a word inside [lo, hi) is looked up in the sorted bases by
// binary search and, when it lies below that allocation's end, sets its hit.
const char kScanPtx[] = R"PTX(
.version 7.5
.target sm_75
.address_size 64

.visible .entry gorocprof_reach_scan(
    .param .u64 p_ranges,
    .param .u64 p_nwords,
    .param .u64 p_bases,
    .param .u64 p_ends,
    .param .u64 p_hits,
    .param .u64 p_lo,
    .param .u64 p_hi,
    .param .u32 p_nranges,
    .param .u32 p_n
)
{
    .reg .pred %p<10>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<28>;

    ld.param.u64 %rd1, [p_ranges];
    ld.param.u64 %rd2, [p_nwords];
    ld.param.u64 %rd3, [p_bases];
    ld.param.u64 %rd4, [p_ends];
    ld.param.u64 %rd5, [p_hits];
    ld.param.u64 %rd6, [p_lo];
    ld.param.u64 %rd7, [p_hi];
    ld.param.u32 %r1, [p_nranges];
    ld.param.u32 %r2, [p_n];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd3, %rd3;
    cvta.to.global.u64 %rd4, %rd4;
    cvta.to.global.u64 %rd5, %rd5;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mov.u32 %r6, %nctaid.x;
    mul.wide.u32 %rd8, %r3, %r4;
    cvt.u64.u32 %rd9, %r5;
    add.u64 %rd8, %rd8, %rd9;
    mul.wide.u32 %rd10, %r6, %r4;
    mov.u32 %r7, 0;
    mov.u32 %r15, 1;
$LOOP:
    setp.ge.u64 %p1, %rd8, %rd2;
    @%p1 bra $DONE;
    mov.u32 %r8, %r1;
$RANGE:
    sub.u32 %r9, %r8, %r7;
    setp.le.u32 %p2, %r9, 1;
    @%p2 bra $WORD;
    add.u32 %r10, %r7, %r8;
    shr.u32 %r10, %r10, 1;
    mul.wide.u32 %rd11, %r10, 16;
    add.u64 %rd12, %rd1, %rd11;
    ld.global.u64 %rd13, [%rd12+8];
    setp.le.u64 %p3, %rd13, %rd8;
    selp.b32 %r7, %r10, %r7, %p3;
    selp.b32 %r8, %r8, %r10, %p3;
    bra $RANGE;
$WORD:
    mul.wide.u32 %rd14, %r7, 16;
    add.u64 %rd15, %rd1, %rd14;
    ld.global.u64 %rd16, [%rd15];
    ld.global.u64 %rd17, [%rd15+8];
    sub.u64 %rd18, %rd8, %rd17;
    shl.b64 %rd18, %rd18, 3;
    add.u64 %rd19, %rd16, %rd18;
    cvta.to.global.u64 %rd19, %rd19;
    ld.global.u64 %rd20, [%rd19];
    setp.lt.u64 %p4, %rd20, %rd6;
    setp.ge.u64 %p5, %rd20, %rd7;
    or.pred %p6, %p4, %p5;
    @%p6 bra $NEXT;
    mov.u32 %r11, 0;
    mov.u32 %r12, %r2;
$SEARCH:
    sub.u32 %r13, %r12, %r11;
    setp.le.u32 %p7, %r13, 1;
    @%p7 bra $FOUND;
    add.u32 %r14, %r11, %r12;
    shr.u32 %r14, %r14, 1;
    mul.wide.u32 %rd21, %r14, 8;
    add.u64 %rd22, %rd3, %rd21;
    ld.global.u64 %rd23, [%rd22];
    setp.le.u64 %p8, %rd23, %rd20;
    selp.b32 %r11, %r14, %r11, %p8;
    selp.b32 %r12, %r12, %r14, %p8;
    bra $SEARCH;
$FOUND:
    mul.wide.u32 %rd24, %r11, 8;
    add.u64 %rd25, %rd4, %rd24;
    ld.global.u64 %rd26, [%rd25];
    setp.ge.u64 %p9, %rd20, %rd26;
    @%p9 bra $NEXT;
    mul.wide.u32 %rd27, %r11, 4;
    add.u64 %rd25, %rd5, %rd27;
    st.global.u32 [%rd25], %r15;
$NEXT:
    add.u64 %rd8, %rd8, %rd10;
    bra $LOOP;
$DONE:
    ret;
}
)PTX";

// Index of the allocation holding address w, or allocs.size().
size_t holder(const std::vector<Allocation>& allocs, uint64_t w) {
    auto it = std::upper_bound(allocs.begin(), allocs.end(), w,
                               [](uint64_t v, const Allocation& a) { return v < a.base; });
    if (it == allocs.begin()) return allocs.size();
    --it;
    return w < it->base + it->size ? static_cast<size_t>(it - allocs.begin()) : allocs.size();
}

// Whether this device may read the VMM mapping at p (a scan of memory it may not read would fault the
// context); other kinds are the context's own or its pools'.
bool readable(const Allocation& a, int device) {
    if (a.kind != AllocKind::Vmm) return true;
    CUmemLocation where{};
    where.type = CU_MEM_LOCATION_TYPE_DEVICE;
    where.id = device;
    unsigned long long flags = 0;
    // Access the driver does not say is taken as none: the mapping is not scanned.
    return cu(cuMemGetAccess(&flags, &where, a.base), "cuMemGetAccess").ok &&
           (flags == CU_MEM_ACCESS_FLAGS_PROT_READ || flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
}

// Frees one of the scanner's device tables and forgets it.
PortStatus free_table(CUdeviceptr* table, size_t* capacity) {
    PortStatus st;
    if (*table) st = cu(cuMemFree(*table), "cuMemFree");
    *table = 0;
    *capacity = 0;
    return st;
}

// Makes *table hold at least `count` entries of `entry_bytes` each: one that holds fewer is freed and allocated
// anew (the stream is idle then: the last round ended in a synchronisation).
PortStatus reserve_table(CUdeviceptr* table, size_t* capacity, size_t count, size_t entry_bytes) {
    if (count <= *capacity) return PortStatus::success();
    PortStatus st = free_table(table, capacity);
    if (st.ok) st = cu(cuMemAlloc(table, count * entry_bytes), "cuMemAlloc");
    if (!st.ok) {
        *table = 0;
        return st;
    }
    *capacity = count;
    return st;
}

}  // namespace

size_t mark_words(const std::vector<Allocation>& allocs, const void* bytes, size_t n, std::vector<char>* reached) {
    size_t marked = 0;
    const auto* p = static_cast<const unsigned char*>(bytes);
    for (size_t off = 0; off + sizeof(uint64_t) <= n; off += sizeof(uint64_t)) {
        uint64_t w;
        std::memcpy(&w, p + off, sizeof w);
        const size_t k = holder(allocs, w);
        if (k < allocs.size() && !(*reached)[k]) {
            (*reached)[k] = 1;
            ++marked;
        }
    }
    return marked;
}

size_t mark_module_globals(const std::vector<Allocation>& allocs, CUmodule module, std::vector<char>* reached) {
    size_t marked = 0;
    for (size_t i = 0; i < allocs.size(); ++i) {
        const Allocation& a = allocs[i];
        if (a.kind == AllocKind::Global && (!a.owner || !module || a.owner == module) && !(*reached)[i]) {
            (*reached)[i] = 1;
            ++marked;
        }
    }
    return marked;
}

bool mark_arguments(const std::vector<Allocation>& allocs, void** params, void** extra,
                    const std::vector<ParamSlot>& slots, std::vector<char>* reached) {
    if (params) {
        // Each argument's pointer array entry points at its value; a pointer inside a struct argument
        // sits at an 8-byte offset of the struct, and a struct holding one is 8-byte aligned.
        for (size_t i = 0; i < slots.size(); ++i) {
            if (!params[i]) return false;
            mark_words(allocs, params[i], slots[i].size, reached);
        }
        return true;
    }
    if (!extra) return slots.empty();
    void* buffer = nullptr;
    size_t size = 0;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) size = *static_cast<size_t*>(extra[i + 1]);
        else return false;  // an entry this reader does not know
    }
    if (!buffer) return size == 0 && slots.empty();
    mark_words(allocs, buffer, size, reached);
    return true;
}

bool mark_workload(const std::vector<Allocation>& allocs, const std::vector<KernelReach>& kernels,
                   const std::vector<CUdeviceptr>& written, std::vector<char>* reached) {
    for (const KernelReach& k : kernels) {
        mark_module_globals(allocs, k.module, reached);
        if (!k.slots || !mark_arguments(allocs, k.params, k.extra, *k.slots, reached)) return false;
    }
    for (const CUdeviceptr& p : written) mark_words(allocs, &p, sizeof p, reached);
    return true;
}

PortStatus ReachScanner::load() {
    if (scan_) return PortStatus::success();
    return load_ptx_kernel(kScanPtx, "gorocprof_reach_scan", &module_, &scan_);
}

PortStatus ReachScanner::close(const std::vector<Allocation>& allocs, std::vector<char>* reached, CUstream stream,
                               int device, uint64_t* bytes_scanned) {
    PortStatus st = load();
    if (!st.ok) return st;
    const size_t n = allocs.size();
    if (n == 0) return PortStatus::success();
    if (!(st = reserve_table(&table_, &table_cap_, n, 2 * sizeof(uint64_t) + sizeof(uint32_t))).ok) return st;
    host_.resize(2 * n);
    for (size_t i = 0; i < n; ++i) {
        host_[i] = allocs[i].base;
        host_[n + i] = allocs[i].base + allocs[i].size;
    }
    const CUdeviceptr hits = table_ + 2 * n * sizeof(uint64_t);
    if (!(st = cu(cuMemcpyHtoDAsync(table_, host_.data(), 2 * n * sizeof(uint64_t), stream), "cuMemcpyHtoDAsync")).ok ||
        !(st = cu(cuMemsetD32Async(hits, 0, n, stream), "cuMemsetD32Async")).ok)
        return st;
    uint64_t hi = 0;
    for (const Allocation& a : allocs) hi = std::max<uint64_t>(hi, a.base + a.size);
    seen_.assign(reached->begin(), reached->end());
    frontier_.clear();
    for (size_t i = 0; i < n; ++i)
        if (seen_[i]) frontier_.push_back(i);
    hits_.resize(n);
    while (!frontier_.empty()) {
        if (!(st = scan_round(allocs, stream, device, allocs.front().base, hi, bytes_scanned)).ok) return st;
        if (!(st = cu(cuMemcpyDtoHAsync(hits_.data(), hits, n * sizeof(uint32_t), stream), "cuMemcpyDtoHAsync")).ok ||
            !(st = cu(cuStreamSynchronize(stream), "cuStreamSynchronize")).ok)
            return st;
        frontier_.clear();
        for (size_t i = 0; i < n; ++i)
            if (hits_[i] && !seen_[i]) {
                seen_[i] = 1;
                frontier_.push_back(i);
            }
    }
    reached->swap(seen_);  // both keep their capacity for the next dispatch
    return PortStatus::success();
}

PortStatus ReachScanner::scan_round(const std::vector<Allocation>& allocs, CUstream stream, int device, uint64_t lo,
                                    uint64_t hi, uint64_t* bytes_scanned) {
    // Whole 8-byte words only, at 8-byte aligned addresses (where a stored pointer sits).
    list_.clear();
    uint64_t nwords = 0;
    for (size_t i : frontier_) {
        const uint64_t first = (allocs[i].base + 7) & ~uint64_t(7);
        const uint64_t last = (allocs[i].base + allocs[i].size) & ~uint64_t(7);
        if (last <= first || !readable(allocs[i], device)) continue;
        list_.push_back(first);
        list_.push_back(nwords);
        nwords += (last - first) / 8;
    }
    const size_t nranges = list_.size() / 2;
    if (nranges == 0) return PortStatus::success();
    PortStatus st = reserve_table(&ranges_, &ranges_cap_, nranges, 2 * sizeof(uint64_t));
    // The list's host buffer stays as it is until the round's stream synchronisation, after the copy.
    const size_t list_bytes = list_.size() * sizeof(uint64_t);
    if (!st.ok || !(st = cu(cuMemcpyHtoDAsync(ranges_, list_.data(), list_bytes, stream), "cuMemcpyHtoDAsync")).ok)
        return st;
    const size_t n = allocs.size();
    CUdeviceptr ranges = ranges_, bases = table_, ends = table_ + n * sizeof(uint64_t),
                hits = table_ + 2 * n * sizeof(uint64_t);
    uint32_t count = static_cast<uint32_t>(n), ranges_count = static_cast<uint32_t>(nranges);
    void* args[] = {&ranges, &nwords, &bases, &ends, &hits, &lo, &hi, &ranges_count, &count};
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>(std::min<uint64_t>((nwords + threads - 1) / threads, 4096));
    if (!(st = cu(cuLaunchKernel(scan_, blocks, 1, 1, threads, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel")).ok)
        return st;
    if (bytes_scanned) *bytes_scanned += nwords * 8;
    return PortStatus::success();
}

PortStatus ReachScanner::release() {
    PortStatus st = free_table(&table_, &table_cap_);
    const PortStatus ranges = free_table(&ranges_, &ranges_cap_);
    return st.ok ? ranges : st;
}

}  // namespace gorocprof::cuda
