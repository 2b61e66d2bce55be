// Host-side tests of the CUDA backend's allocation bookkeeping, against the fake driver (fake_driver.hpp):
// the tracker (module globals as spans, one range per global, managed bytes, unloaded modules), the marks a
// launch's argument words and its module's globals make, and the backup layout of a snapshot.
#include "../testkit/check.hpp"

#include "allocations.hpp"
#include "backup_plan.hpp"
#include "fake_driver.hpp"
#include "reach.hpp"

#include <algorithm>
#include <cmath>

#include <cstdint>
#include <cstring>

#include <map>
#include <set>
#include <string>
#include <vector>

using gorocprof::cuda::AllocationTracker;
using gorocprof::cuda::AllocKind;
using gorocprof::cuda::CubinGlobal;
using gorocprof::cuda::Allocation;
using gorocprof::cuda::global_spans;
using gorocprof::cuda::mark_arguments;
using gorocprof::cuda::mark_module_globals;
using gorocprof::cuda::mark_words;
using gorocprof::cuda::plan_backup;
using gorocprof::cuda::SavedRange;
using gorocprof::cuda::ParamSlot;
using gorocprof::cuda::ResolvedGlobal;

namespace {
using Spans = std::vector<std::pair<CUdeviceptr, size_t>>;
}

namespace {
// What the tracker would have a snapshot of ctx save.
std::vector<Allocation> listed(const AllocationTracker& t, CUcontext ctx) {
    std::vector<Allocation> out;
    t.restorable(ctx, &out);
    return out;
}
}  // namespace

TEST_CASE(global_spans_table) {
    // Section 5 loaded at 0x10000, section 6 at 0x90000.
    const CubinGlobal a{"a", 8, 5, 0x0}, b{"b", 4, 5, 0x40}, c{"c", 16, 5, 0x100}, d{"d", 8, 6, 0x10};
    struct Row {
        const char* name;
        std::vector<ResolvedGlobal> in;
        Spans want;
    } rows[] = {
        {"empty", {}, {}},
        {"one variable", {{&b, 0x10040, 4}}, {{0x10040, 4}}},
        {"a section laid out as its ELF says is one span from its first to its last variable",
         {{&c, 0x10100, 16}, {&a, 0x10000, 8}, {&b, 0x10040, 4}},
         {{0x10000, 0x110}}},
        {"two sections are two spans",
         {{&a, 0x10000, 8}, {&d, 0x90010, 8}, {&c, 0x10100, 16}},
         {{0x10000, 0x110}, {0x90010, 8}}},
        {"a variable away from its ELF offset keeps the section's variables apart",
         {{&a, 0x10000, 8}, {&b, 0x20040, 4}, {&c, 0x10100, 16}},
         {{0x10000, 8}, {0x10100, 16}, {0x20040, 4}}},
        {"a size other than the ELF's keeps the section's variables apart",
         {{&a, 0x10000, 8}, {&b, 0x10040, 8}},
         {{0x10000, 8}, {0x10040, 8}}},
        {"an address below the ELF offset is not a load base",
         {{&c, 0x80, 16}, {&a, 0x1000, 8}},
         {{0x80, 16}, {0x1000, 8}}},
    };
    for (const Row& r : rows) {
        Spans got = global_spans(r.in);
        if (got != r.want) {
            std::string msg = std::string(r.name) + ": got";
            for (const auto& [base, size] : got) msg += " " + std::to_string(base) + "+" + std::to_string(size);
            check::fail(__FILE__, __LINE__, msg);
        }
    }
}

TEST_CASE(tracker_keeps_one_range_per_global_span) {
    AllocationTracker t;
    CUcontext ctx = reinterpret_cast<CUcontext>(0x1);
    // The host looked two variables up before the module's span was known.
    t.add(ctx, 0x10000, 8, AllocKind::Global);
    t.add(ctx, 0x10040, 4, AllocKind::Global);
    t.add(ctx, 0x50000, 64, AllocKind::Device);
    t.add(ctx, 0x10000, 0x110, AllocKind::Global);  // the span replaces them
    t.add(ctx, 0x10100, 16, AllocKind::Global);     // inside the span: nothing new
    auto r = listed(t, ctx);
    CHECK_EQ(r.size(), size_t(2));
    CHECK_EQ(r[0].base, CUdeviceptr(0x10000));
    CHECK_EQ(r[0].size, size_t(0x110));
    CHECK_EQ(r[1].base, CUdeviceptr(0x50000));
    std::vector<Allocation> into(7);  // filled in place, whatever it held
    t.restorable(ctx, &into);
    CHECK_EQ(into.size(), size_t(2));
    CHECK_EQ(into[1].base, CUdeviceptr(0x50000));
    const uint64_t serial = r[0].serial;
    t.add(ctx, 0x10000, 0x110, AllocKind::Global);  // looked up again: same range, same serial
    CHECK(t.live(0x10000, serial));
    CHECK_EQ(listed(t, ctx).size(), size_t(2));
}

TEST_CASE(tracker_reports_managed_bytes_while_listing) {
    AllocationTracker t;
    CUcontext ctx = reinterpret_cast<CUcontext>(0x1), other = reinterpret_cast<CUcontext>(0x2);
    t.add(ctx, 0x10000, 64, AllocKind::Device);
    size_t managed = 7;
    std::vector<Allocation> out;
    t.restorable(ctx, &out, &managed);
    CHECK_EQ(managed, size_t(0));
    // Managed memory of any context is counted (every context sees it) and never listed.
    t.add(other, 0x20000, 4096, AllocKind::Managed);
    t.add(ctx, 0x30000, 512, AllocKind::Managed);
    t.restorable(ctx, &out, &managed);
    CHECK_EQ(managed, size_t(4096 + 512));
    CHECK_EQ(out.size(), size_t(1));
    CHECK_EQ(out[0].base, CUdeviceptr(0x10000));
}

TEST_CASE(tracker_forgets_an_unloaded_modules_globals) {
    AllocationTracker t;
    CUcontext ctx = reinterpret_cast<CUcontext>(0x1);
    CUmodule a = reinterpret_cast<CUmodule>(0xa), b = reinterpret_cast<CUmodule>(0xb);
    t.add(ctx, 0x10000, 64, AllocKind::Global, 0, a);
    t.add(ctx, 0x20000, 64, AllocKind::Global, 0, b);
    t.add(ctx, 0x30000, 64, AllocKind::Global);  // owner unknown
    t.add(ctx, 0x40000, 64, AllocKind::Device);
    t.remove_owner(a);
    t.remove_owner(nullptr);  // unknown owners are not "the null module"
    auto r = listed(t, ctx);
    CHECK_EQ(r.size(), size_t(3));
    CHECK_EQ(r[0].base, CUdeviceptr(0x20000));
    CHECK(r[0].owner == b);
    CHECK_EQ(r[1].base, CUdeviceptr(0x30000));
    CHECK_EQ(r[2].base, CUdeviceptr(0x40000));
}

namespace {
// Three allocations, sorted by base: [0x1000, 0x2000), [0x2000, 0x2100), [0x8000, 0x9000).
std::vector<Allocation> three() {
    std::vector<Allocation> a(3);
    a[0].base = 0x1000, a[0].size = 0x1000;
    a[1].base = 0x2000, a[1].size = 0x100;
    a[2].base = 0x8000, a[2].size = 0x1000;
    return a;
}
std::string flags(const std::vector<char>& r) {
    std::string s;
    for (char c : r) s += c ? '1' : '0';
    return s;
}
}  // namespace

TEST_CASE(mark_words_finds_the_holding_allocation) {
    struct Row {
        const char* name;
        std::vector<uint64_t> words;
        const char* want;
        size_t newly;
    } rows[] = {
        {"no words", {}, "000", 0},
        {"a base", {0x1000}, "100", 1},
        {"inside, and the last byte", {0x2080, 0x8fff}, "011", 2},
        {"the end of one is the base of the next", {0x2000}, "010", 1},
        {"one past the end of the last, below the first, in a gap", {0x9000, 0xfff, 0x5000}, "000", 0},
        {"twice the same allocation counts once", {0x1008, 0x1010}, "100", 1},
        {"integers that are not addresses", {1, 42, ~uint64_t(0)}, "000", 0},
    };
    for (const Row& r : rows) {
        std::vector<char> reached(3, 0);
        const size_t newly = mark_words(three(), r.words.data(), r.words.size() * 8, &reached);
        if (flags(reached) != r.want || newly != r.newly)
            check::fail(__FILE__, __LINE__, std::string(r.name) + ": got " + flags(reached) + " newly " + std::to_string(newly));
    }
    // A tail shorter than a word is not read.
    std::vector<char> reached(3, 0);
    const uint64_t w = 0x8000;
    CHECK_EQ(mark_words(three(), &w, 7, &reached), size_t(0));
}

TEST_CASE(mark_arguments_reads_params_and_extra) {
    // kernel(float* x, int n, struct { int* a; double* b; } s): slots at 0 (8), 8 (4), 16 (16).
    uint64_t x = 0x8010;
    int n = 0x2000;  // an int argument is not read as an address
    struct {
        uint64_t a, b;
    } s{0x1000, 7};
    void* params[] = {&x, &n, &s};
    const std::vector<ParamSlot> slots = {{0, 8}, {8, 4}, {16, 16}};
    std::vector<char> reached(3, 0);
    CHECK(mark_arguments(three(), params, nullptr, slots, &reached));
    CHECK_EQ(flags(reached), std::string("101"));

    // The same arguments packed in one buffer passed through `extra`.
    unsigned char buf[32] = {};
    std::memcpy(buf, &x, 8);
    std::memcpy(buf + 8, &n, 4);
    uint64_t into_second = 0x2010;
    std::memcpy(buf + 16, &into_second, 8);
    size_t size = sizeof buf;
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    reached.assign(3, 0);
    CHECK(mark_arguments(three(), nullptr, extra, slots, &reached));
    CHECK_EQ(flags(reached), std::string("011"));

    // What cannot be read is said: an unknown extra entry, a missing argument pointer.
    void* odd[] = {reinterpret_cast<void*>(0x77), buf, CU_LAUNCH_PARAM_END};
    CHECK(!mark_arguments(three(), nullptr, odd, slots, &reached));
    void* missing[] = {&x, nullptr, &s};
    CHECK(!mark_arguments(three(), missing, nullptr, slots, &reached));
    // No arguments at all: nothing to read, nothing marked.
    reached.assign(3, 0);
    CHECK(mark_arguments(three(), nullptr, nullptr, {}, &reached));
    CHECK_EQ(flags(reached), std::string("000"));
}

TEST_CASE(module_globals_reached_by_their_own_modules_kernels) {
    CUmodule mine = reinterpret_cast<CUmodule>(0xa), other = reinterpret_cast<CUmodule>(0xb);
    std::vector<Allocation> allocs(4);
    allocs[0].base = 0x1000, allocs[0].size = 8, allocs[0].kind = AllocKind::Global, allocs[0].owner = mine;
    allocs[1].base = 0x2000, allocs[1].size = 8, allocs[1].kind = AllocKind::Global, allocs[1].owner = other;
    allocs[2].base = 0x3000, allocs[2].size = 8, allocs[2].kind = AllocKind::Global;  // owner not known
    allocs[3].base = 0x4000, allocs[3].size = 8;                                         // cuMemAlloc
    struct Row {
        const char* name;
        CUmodule kernel_module;
        const char* want;
    } rows[] = {
        {"the kernel's own module and unknown owners", mine, "1010"},
        {"another module's kernel", other, "0110"},
        {"a kernel whose module is not known: every global", nullptr, "1110"},
    };
    for (const Row& r : rows) {
        std::vector<char> reached(4, 0);
        mark_module_globals(allocs, r.kernel_module, &reached);
        if (flags(reached) != r.want) check::fail(__FILE__, __LINE__, std::string(r.name) + ": got " + flags(reached));
    }
    std::vector<char> reached = {0, 0, 1, 0};
    CHECK_EQ(mark_module_globals(allocs, mine, &reached), size_t(1));  // counts only new marks
}

TEST_CASE(backup_plan_merges_globals_of_one_driver_allocation) {
    auto alloc = [](CUdeviceptr base, size_t size, AllocKind kind, CUdeviceptr extent, uint64_t serial) {
        Allocation a;
        a.base = base, a.size = size, a.kind = kind, a.extent = extent, a.serial = serial;
        return a;
    };
    const std::vector<Allocation> allocs = {
        alloc(0x1000, 300, AllocKind::Device, 0, 1),
        alloc(0x9000, 8, AllocKind::Global, 0x9000, 2),   // three globals of one driver allocation
        alloc(0x9010, 4, AllocKind::Global, 0x9000, 3),
        alloc(0x9100, 16, AllocKind::Global, 0x9000, 4),
        alloc(0xa000, 8, AllocKind::Global, 0xa000, 5),   // another one
        alloc(0xb000, 8, AllocKind::Global, 0, 6),        // extent unknown: on its own
        alloc(0xb100, 8, AllocKind::Global, 0, 7),
    };
    std::vector<SavedRange> out(3);  // filled in place
    const size_t total = plan_backup(allocs, &out);
    struct Want {
        CUdeviceptr base;
        size_t size, offset, allocations;
        uint64_t serial, alloc_bytes;
    } want[] = {
        {0x1000, 300, 0, 1, 1, 300},
        {0x9000, 0x110, 512, 3, 2, 28},  // 0x9000..0x9110, the bytes between included; offsets 256-aligned
        {0xa000, 8, 1024, 1, 5, 8},
        {0xb000, 8, 1280, 1, 6, 8},
        {0xb100, 8, 1536, 1, 7, 8},
    };
    CHECK_EQ(out.size(), std::size(want));
    for (size_t i = 0; i < out.size() && i < std::size(want); ++i) {
        const SavedRange& r = out[i];
        const Want& w = want[i];
        if (r.base != w.base || r.size != w.size || r.offset != w.offset || r.allocations != w.allocations ||
            r.serial != w.serial || r.alloc_bytes != w.alloc_bytes)
            check::fail(__FILE__, __LINE__, "range " + std::to_string(i) + ": base " + std::to_string(r.base) +
                                                " size " + std::to_string(r.size) + " offset " + std::to_string(r.offset));
    }
    CHECK_EQ(total, size_t(1792));
    CHECK_EQ(plan_backup({}, &out), size_t(0));
    CHECK(out.empty());
}
