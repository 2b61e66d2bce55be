// Host-side tests of the CUDA backend's bookkeeping, against the fake driver (fake_driver.hpp): the
// tracker (module globals as spans, one range per global, unloaded modules), the launch's argument
// words, and the closure over pointers stored in reached memory that ReachScanner computes with its
// scan kernel.
#include "../testkit/check.hpp"

#include "allocations.hpp"
#include "backup_plan.hpp"
#include "config_runs.hpp"
#include "fake_cupti.hpp"
#include "fake_driver.hpp"
#include "range_counters.hpp"
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
using gorocprof::replay::PortStatus;
using gorocprof::cuda::global_spans;
using gorocprof::cuda::mark_arguments;
using gorocprof::cuda::mark_module_globals;
using gorocprof::cuda::mark_words;
using gorocprof::cuda::plan_backup;
using gorocprof::cuda::longest_run;
using gorocprof::cuda::run_member;
using gorocprof::cuda::RangeCounters;
using gorocprof::cuda::SavedRange;
using gorocprof::cuda::ParamSlot;
using gorocprof::cuda::ReachScanner;
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

namespace {

// Host buffers standing in for device allocations (the fake driver's device memory is host memory),
// kept in address order as the tracker hands them out.
struct Memory {
    std::vector<std::vector<uint64_t>> buffers;
    std::vector<Allocation> allocs;

    // A buffer of `words` 8-byte words; returns its index.
    size_t add(size_t words, AllocKind kind = AllocKind::Device) {
        buffers.emplace_back(words, 0);
        Allocation a;
        a.base = reinterpret_cast<uintptr_t>(buffers.back().data());
        a.size = words * 8;
        a.kind = kind;
        allocs.push_back(a);
        return buffers.size() - 1;
    }
    CUdeviceptr addr(size_t i, size_t byte = 0) const { return reinterpret_cast<uintptr_t>(buffers[i].data()) + byte; }
    // The tracker's order (by base) and, for each buffer index, its position in it.
    std::vector<Allocation> sorted(std::vector<size_t>* pos) const {
        std::vector<Allocation> out = allocs;
        std::sort(out.begin(), out.end(), [](const Allocation& a, const Allocation& b) { return a.base < b.base; });
        pos->assign(allocs.size(), 0);
        for (size_t i = 0; i < allocs.size(); ++i)
            for (size_t k = 0; k < out.size(); ++k)
                if (out[k].base == allocs[i].base) (*pos)[i] = k;
        return out;
    }
    // A scanner of its own closes the marks over stored pointers from buffer `from` (what a launch's
    // arguments named); *got: which buffers were reached, a 0/1 per buffer in buffer order.
    PortStatus close_from(size_t from, std::string* got, uint64_t* bytes = nullptr) const {
        std::vector<size_t> pos;
        std::vector<Allocation> sorted_allocs = sorted(&pos);
        std::vector<char> reached(sorted_allocs.size(), 0);
        reached[pos[from]] = 1;
        ReachScanner scan;
        PortStatus st = scan.close(sorted_allocs, &reached, nullptr, 0, bytes);
        scan.release();
        got->clear();
        for (size_t p : pos) *got += reached[p] ? '1' : '0';
        return st;
    }
};

}  // namespace

TEST_CASE(reach_follows_pointers_stored_in_reached_memory) {
    Memory m;
    const size_t holder = m.add(4), table = m.add(4), c = m.add(8), d = m.add(8), e = m.add(2), f = m.add(2);
    m.buffers[holder][1] = m.addr(table);     // a struct whose second field points at a table
    m.buffers[table][0] = m.addr(c, 24);      // an interior pointer
    m.buffers[table][1] = m.addr(d);
    m.buffers[table][2] = 12345;              // an integer
    m.buffers[e][0] = m.addr(f);              // e is not reachable, so neither is f
    std::string got;
    uint64_t bytes = 0;
    CHECK(m.close_from(holder, &got, &bytes).ok);  // the arguments named the holder
    CHECK_EQ(got, std::string("111100"));
    // Rounds: the holder, then the table, then c and d (nothing new): three, one launch per allocation.
    CHECK_EQ(fakecuda::state().launches, size_t(4));
    CHECK_EQ(fakecuda::state().syncs, size_t(3));
    CHECK_EQ(bytes, uint64_t((4 + 4 + 8 + 8) * 8));
}

TEST_CASE(reach_scans_whole_aligned_words_only) {
    Memory m;
    const size_t raw = m.add(4), target = m.add(2);
    // A module global that starts 4 bytes into an 8-byte word and is 20 bytes long: the words at the next
    // two 8-byte boundaries are scanned, nothing outside it (the fake driver fails a misaligned load).
    m.buffers[raw][1] = m.addr(target);
    m.allocs[raw].base += 4;
    m.allocs[raw].size = 20;
    m.allocs[raw].kind = AllocKind::Global;
    std::string got;
    uint64_t bytes = 0;
    CHECK(m.close_from(raw, &got, &bytes).ok);
    CHECK_EQ(got, std::string("11"));
    CHECK_EQ(bytes, uint64_t(16 + 16));  // two words of the global, then the whole target
}

TEST_CASE(reach_does_not_scan_vmm_the_device_may_not_read) {
    for (bool readable : {true, false}) {
        fakecuda::reset();
        Memory m;
        const size_t mapped = m.add(2, AllocKind::Vmm), target = m.add(2);
        m.buffers[mapped][0] = m.addr(target);
        if (!readable) fakecuda::state().unreadable.insert(m.addr(mapped));
        std::string got;
        CHECK(m.close_from(mapped, &got).ok);
        CHECK_EQ(got, std::string(readable ? "11" : "10"));
    }
}

TEST_CASE(reach_failure_leaves_the_marks_and_names_the_call) {
    fakecuda::state().load_fails = true;
    Memory m;
    const size_t a = m.add(2), b = m.add(2);
    m.buffers[a][0] = m.addr(b);
    std::string got;
    PortStatus st = m.close_from(a, &got);
    CHECK(!st.ok);
    CHECK(st.message().find("cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX") == 0);
    CHECK_EQ(got, std::string("10"));
    CHECK_EQ(fakecuda::state().launches, size_t(0));
    // Nothing tracked: nothing to do, and no kernel either.
    fakecuda::reset();
    ReachScanner scan;
    std::vector<Allocation> none;
    std::vector<char> no_marks;
    CHECK(scan.close(none, &no_marks, nullptr, 0, nullptr).ok);
}

TEST_CASE(config_runs_cover_passes_with_fewest_switches) {
    // A stand-in for "fits one hardware pass": each group has a cost and a run fits while its groups'
    // costs add up to at most 4 (a group of cost 5 does not fit even alone).
    const std::vector<int> cost = {1, 1, 1, 1, 2, 2, 5, 1};
    std::vector<std::pair<size_t, size_t>> asked;
    auto fits = [&](size_t start, size_t length) {
        asked.emplace_back(start, length);
        int total = 0;
        for (size_t k = 0; k < length; ++k) total += cost[run_member(start, k, cost.size())];
        return total <= 4;
    };
    CHECK_EQ(longest_run(0, cost.size(), fits), size_t(4));  // 1+1+1+1; the 2 would make 6
    CHECK_EQ(asked.size(), size_t(4));                       // lengths 2, 3, 4, 5: not again after 5 failed
    CHECK(asked.back() == std::make_pair(size_t(0), size_t(5)));
    CHECK_EQ(longest_run(4, cost.size(), fits), size_t(2));  // 2+2
    CHECK_EQ(longest_run(6, cost.size(), fits), size_t(1));  // too large alone: stands alone
    CHECK_EQ(longest_run(7, cost.size(), fits), size_t(4));  // wraps: groups 7, 0, 1, 2
    CHECK_EQ(run_member(7, 3, cost.size()), size_t(2));
    // Every group fits with every other: one run of all of them, from any start.
    auto always = [](size_t, size_t) { return true; };
    CHECK_EQ(longest_run(5, 10, always), size_t(10));
    CHECK_EQ(longest_run(0, 0, always), size_t(0));

    // The pass sequence of three dispatches (0..7 three times) under the rule the Range Profiler code
    // follows: keep the run in use while it holds the pass, else take the longest run from the pass.
    // Each pass is measured by a run that holds it, and the switches are those of the greedy cover.
    const size_t n = cost.size();
    size_t start = 0, length = 0, switches = 0;
    std::string runs;
    for (size_t p = 0; p < 3 * n; ++p) {
        const size_t pass = p % n;
        const bool held = length > 0 && (pass + n - start) % n < length;
        if (!held) {
            start = pass, length = longest_run(pass, n, fits), ++switches;
            runs += std::to_string(start) + "+" + std::to_string(length) + " ";
        }
        CHECK((pass + n - start) % n < length);
    }
    // 0-3, 4-5, 6, 7-2 (into the next dispatch), 3-4, 5, 6, 7-2 (into the third), ...
    CHECK_EQ(runs, std::string("0+4 4+2 6+1 7+4 3+2 5+1 6+1 7+4 3+2 5+1 6+1 7+4 "));
    CHECK_EQ(switches, size_t(12));
}

namespace counters {

using gorocprof::core::CounterSample;
using gorocprof::core::PlanCounter;
using gorocprof::core::PlanPass;

std::vector<PlanPass> plan(const std::vector<std::vector<std::string>>& groups) {
    std::vector<PlanPass> out;
    for (const auto& g : groups) {
        PlanPass p;
        p.group = static_cast<int>(out.size());
        for (const std::string& n : g) p.counters.push_back(PlanCounter{n, "", 0});
        out.push_back(std::move(p));
    }
    return out;
}

// What a metric reads on kernel `id` in the fake: distinct per metric and kernel (FNV-1a of the name).
double value(const std::string& metric, size_t id) {
    uint32_t h = 2166136261u;
    for (char c : metric) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return static_cast<double>(h % 100000) * 1000 + static_cast<double>(id);
}

// The id of the tool's cache flush kernel in the fake (its ranges read values no pass has).
constexpr size_t kFlushKernel = 999999;

// Drives RangeCounters as the CUDA port does for `dispatches` replayed dispatches: a window opens at a pass
// that shares its configuration with the passes after it (passes_held, one spare range) and is decoded
// before the next pass that needs its own arm; a pass alone arms one range, and runs its kernel again while
// Stop says hardware passes are left (finish_hardware_passes). Every pass runs a kernel (id = dispatch * P
// + pass) and must read, for each counter of its own group, that kernel's value; with two kernels per pass
// the cache flush kernel runs before each (reruns included). Notes from arm go to `notes`. Returns the windows per dispatch as "first+passes" ("0+4 4+2 ...").
std::string drive(RangeCounters& rc, const std::vector<PlanPass>& passes, size_t dispatches, int* wrong,
                  std::set<std::string>* notes = nullptr) {
    const size_t n = passes.size();
    std::string windows;
    std::vector<const std::vector<PlanCounter>*> pending;
    std::vector<size_t> pending_ids;
    std::vector<std::vector<CounterSample>> ranges;
    auto run = [&](size_t id) {
        if (rc.kernels_per_pass() == 2) fakecupti::kernel(kFlushKernel);
        fakecupti::kernel(id);
    };
    auto check = [&](const std::vector<PlanCounter>& group, const std::vector<CounterSample>& got, size_t id) {
        if (got.size() != group.size()) ++*wrong;
        for (size_t i = 0; i < got.size() && i < group.size(); ++i)
            if (got[i].counter != &group[i] || got[i].values.size() != 1 ||
                got[i].values[0] != value(group[i].name, id))
                ++*wrong;
    };
    // As the port does after a window's (or a lone pass's) last kernel: the same kernels again for every
    // further hardware pass of the configuration (union sessions), after which the decode has every counter.
    auto finish = [&](const std::vector<size_t>& ids) {
        size_t sessions = 0;
        CHECK(rc.finish_sessions(
                    [&] {
                        for (size_t id : ids) run(id);
                        return PortStatus::success();
                    },
                    &sessions)
                  .ok);
        CHECK(!rc.sessions_incomplete());
    };
    auto flush = [&] {
        finish(pending_ids);
        CHECK(rc.collect_ranges(pending, &ranges).ok);
        CHECK_EQ(ranges.size(), pending.size());
        for (size_t i = 0; i < pending.size() && i < ranges.size(); ++i) check(*pending[i], ranges[i], pending_ids[i]);
        pending.clear();
        pending_ids.clear();
    };
    for (size_t d = 0; d < dispatches; ++d) {
        size_t window_end = 0;
        for (size_t p = 0; p < n; ++p) {
            const std::vector<PlanCounter>* group = &passes[p].counters;
            if (p >= window_end) {
                if (!pending.empty()) flush();
                const size_t held = rc.passes_held(p, n);
                windows += std::to_string(p) + "+" + std::to_string(held) + " ";
                window_end = held >= 2 ? p + held : 0;
                std::string note;
                CHECK(rc.arm(group, &note, held >= 2 ? held + 1 : 1).ok);
                if (notes && !note.empty()) notes->insert(note);
                if (!notes) CHECK(note.empty());
            }
            const size_t id = d * n + p;
            run(id);
            if (p < window_end) {
                pending.push_back(group);
                pending_ids.push_back(id);
            } else {
                finish({id});
                std::vector<CounterSample> got;
                CHECK(rc.collect(&got).ok);
                check(*group, got, id);
            }
        }
        if (!pending.empty()) flush();
        windows += "| ";
    }
    return windows;
}

// `count` groups of one metric each, named prefix0, prefix1, ...
std::vector<std::vector<std::string>> singles(const std::string& prefix, int count) {
    std::vector<std::vector<std::string>> groups;
    for (int i = 0; i < count; ++i) groups.push_back({prefix + std::to_string(i)});
    return groups;
}

// One context's RangeCounters planned over `groups`, with the fake CUPTI reset and metric costs set.
struct Setup {
    std::vector<PlanPass> passes;
    RangeCounters rc{reinterpret_cast<CUcontext>(0x10), "GH100"};
    explicit Setup(const std::vector<std::vector<std::string>>& groups, std::map<std::string, int> cost = {})
        : passes(plan(groups)) {
        fakecupti::state().value = value;
        fakecupti::state().cost = std::move(cost);
        rc.plan_passes(passes);
    }
};

}  // namespace counters

TEST_CASE(range_counters_measure_the_union_in_one_window_per_dispatch) {
    counters::Setup t({{"a", "b"}, {"a", "c"}, {"b", "c"}});  // all three fit one pass
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong), std::string("0+3 | 0+3 | 0+3 | "));
    CHECK_EQ(wrong, 0);
    CHECK(t.rc.single_config());
    CHECK_EQ(fakecupti::state().enables, size_t(1));  // never re-created
    CHECK_EQ(fakecupti::state().starts, size_t(3));   // one window per dispatch
}

TEST_CASE(range_counters_of_two_devices_measure_their_own_plans) {
    // One process, two GPUs: each context's RangeCounters is planned with its own device's groups (as
    // context_state does with passes_for_agent(ordinal)), and their dispatches interleave. Every pass must read
    // its own group's values from its own context's profiler object.
    fakecupti::reset();
    const std::vector<gorocprof::core::PlanPass> dev0 = counters::plan({{"a", "b"}, {"c"}});
    const std::vector<gorocprof::core::PlanPass> dev1 = counters::plan({{"x"}, {"y", "z"}, {"w"}});
    const CUcontext ctx0 = reinterpret_cast<CUcontext>(0x10), ctx1 = reinterpret_cast<CUcontext>(0x20);
    fakecupti::state().value = counters::value;
    RangeCounters rc0(ctx0, "GH100"), rc1(ctx1, "GH100");
    rc0.plan_passes(dev0);
    rc1.plan_passes(dev1);
    int wrong = 0;
    std::string windows;
    for (int d = 0; d < 3; ++d) {
        fakecupti::set_context(ctx0);
        windows += counters::drive(rc0, dev0, 1, &wrong);
        fakecupti::set_context(ctx1);
        windows += counters::drive(rc1, dev1, 1, &wrong);
    }
    CHECK_EQ(windows, std::string("0+2 | 0+3 | 0+2 | 0+3 | 0+2 | 0+3 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(2));  // one object per context, each kept
    rc0.disable();
    rc1.disable();
}

TEST_CASE(range_counters_measure_a_union_of_two_passes_in_sessions) {
    // S10's shape (ten single-metric groups whose union needs two hardware passes: capacity 8, so
    // {g0..g5} (cost 8) and {g6..g9}): every dispatch is one window of the union, one session per hardware
    // pass on the same profiler object, the ten kernels run again in the second session; no configuration
    // ever changes.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    fakecupti::state().capacity = 8;
    CHECK_EQ(t.rc.union_sessions(), size_t(2));
    int wrong = 0;
    std::set<std::string> notes;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong, &notes), std::string("0+10 | 0+10 | 0+10 | "));
    // Each pass's metric came from its own position in the session of the hardware pass holding it (the
    // fake reads 0 for a range its hardware pass did not run).
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(1));  // one object for the whole process
    CHECK_EQ(fakecupti::state().starts, size_t(6));   // two sessions per dispatch
    CHECK(notes.empty());                             // the union's pass count is not a group's problem
    // A pass armed on its own (one range: no window) still gets a one-pass configuration holding its group.
    std::string note;
    CHECK(t.rc.arm(&t.passes[4].counters, &note, 1).ok);
    CHECK_EQ(t.rc.armed_passes(), size_t(1));
    bool all = false;
    fakecupti::kernel(99);
    CHECK(t.rc.stop(&all).ok);
    CHECK(all);
    std::vector<gorocprof::core::CounterSample> got;
    CHECK(t.rc.collect(&got).ok);
    CHECK(got.size() == 1 && got[0].values.size() == 1 && got[0].values[0] == counters::value("g4", 99));
}

TEST_CASE(range_counters_leave_unions_of_many_passes_to_runs) {
    // A union that needs more than kMaxUnionSessions hardware passes would run every kernel that many times:
    // configuration runs instead.
    counters::Setup t(counters::singles("h", 5), {{"h0", 4}, {"h1", 4}, {"h2", 4}, {"h3", 4}, {"h4", 4}});  // five passes together
    CHECK_EQ(t.rc.union_sessions(), size_t(0));
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 1, &wrong), std::string("0+1 1+1 2+1 3+1 4+1 | "));
    CHECK_EQ(wrong, 0);
}

TEST_CASE(range_counters_measure_a_multipass_group_in_union_sessions) {
    // {x,y} needs two hardware passes by itself: in a union window its x comes from the first session's
    // run and its y from the second's, both at the pass's position.
    counters::Setup t({{"x", "y"}, {"x"}, {"y"}}, {{"x", 3}, {"y", 3}});
    int wrong = 0;
    std::set<std::string> notes;
    CHECK_EQ(counters::drive(t.rc, t.passes, 2, &wrong, &notes), std::string("0+3 | 0+3 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(1));
    CHECK_EQ(fakecupti::state().starts, size_t(4));
    // The user's group needs two hardware passes by itself: they still hear it (the union's count they do not).
    CHECK_EQ(notes.size(), size_t(1));
    CHECK(!notes.empty() && notes.begin()->find("counter group {x,y} needs 2 hardware passes") == 0);
}

TEST_CASE(range_counters_discard_a_union_window_cut_short) {
    using counters::CounterSample;
    using counters::PlanCounter;
    // The replay ends after the first session of a union window: decoding would read the second hardware
    // pass's metrics as 0, so the window is discarded (empty, a failure) and the next window gets a new
    // object (the old one may be left inside the configuration's passes); its values are right again.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    fakecupti::state().capacity = 8;
    std::string note;
    CHECK(t.rc.arm(&t.passes[0].counters, &note, 11).ok);
    for (size_t id = 0; id < 10; ++id) fakecupti::kernel(id);
    bool all = true;
    CHECK(t.rc.stop(&all).ok);
    CHECK(!all);
    CHECK(t.rc.sessions_incomplete());
    std::vector<const std::vector<PlanCounter>*> groups_of(10, nullptr);
    for (size_t i = 0; i < 10; ++i) groups_of[i] = &t.passes[i].counters;
    std::vector<std::vector<CounterSample>> ranges;
    CHECK(!t.rc.collect_ranges(groups_of, &ranges).ok);
    CHECK(ranges.empty());
    CHECK(!t.rc.sessions_incomplete());
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 1, &wrong), std::string("0+10 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().enables, size_t(2));
}

TEST_CASE(range_counters_empty_a_multipass_pass_that_ran_once) {
    using counters::CounterSample;
    using counters::PlanCounter;
    // A group that needs two hardware passes, armed for a dispatch that is not replayed (one run): its
    // counters are all empty, not the first pass's values beside zeros.
    counters::Setup t({{"x", "y"}}, {{"x", 3}, {"y", 3}});
    std::string note;
    CHECK(t.rc.arm(&t.passes[0].counters, &note, 1).ok);
    CHECK(note.find("counter group {x,y} needs 2 hardware passes") == 0);
    fakecupti::kernel(5);
    bool all = true;
    CHECK(t.rc.stop(&all).ok);
    CHECK(!all);
    std::vector<CounterSample> got;
    const PortStatus st = t.rc.collect(&got);
    CHECK(!st.ok);
    CHECK(st.message().find("not all of them ran") != std::string::npos);
    CHECK_EQ(got.size(), size_t(2));
    for (const CounterSample& c : got) CHECK(c.values.size() == 1 && std::isnan(c.values[0]));
}

TEST_CASE(range_counters_fall_back_to_runs_when_the_union_is_refused) {
    // CUPTI refuses the union's configuration: that window's arm fails (its passes get no counters), and
    // from then on the windows are configuration runs, whose values are right.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    fakecupti::state().capacity = 8;
    fakecupti::state().reject_config = [](const std::vector<std::string>& m) { return m.size() == 10; };
    CHECK_EQ(t.rc.passes_held(0, 10), size_t(10));
    std::string note;
    const PortStatus st = t.rc.arm(&t.passes[0].counters, &note, 11);
    CHECK(!st.ok);
    CHECK(st.message().find("configuration runs instead") != std::string::npos);
    CHECK_EQ(t.rc.union_sessions(), size_t(0));
    int wrong = 0;
    // Runs {0..5} and {6..9, 0..3} (cost 8 each); the second dispatch keeps the latter for its passes 0-3.
    CHECK_EQ(counters::drive(t.rc, t.passes, 2, &wrong), std::string("0+6 6+4 | 0+4 4+6 | "));
    CHECK_EQ(wrong, 0);
}

TEST_CASE(range_counters_plan_only_the_pass_of_an_application_replay_run) {
    // Application replay: this process measures pass 5 of S10's shape on every dispatch. Planned alone, the
    // group's own configuration is armed (on the H200 its Start costs 6-16 ms, a run's 32 ms), and kept.
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    t.rc.plan_passes(t.passes, 5);
    CHECK_EQ(t.rc.union_sessions(), size_t(0));
    for (size_t d = 0; d < 3; ++d) {
        std::string note;
        CHECK_EQ(t.rc.passes_held(0, 1), size_t(1));
        CHECK(t.rc.arm(&t.passes[5].counters, &note, 1).ok);
        CHECK(note.empty());
        fakecupti::kernel(d);
        bool all = false;
        CHECK(t.rc.stop(&all).ok);
        CHECK(all);
        std::vector<gorocprof::core::CounterSample> got;
        CHECK(t.rc.collect(&got).ok);
        CHECK(got.size() == 1 && got[0].values.size() == 1 && got[0].values[0] == counters::value("g5", d));
    }
    CHECK_EQ(fakecupti::state().last_config, std::vector<std::string>{"g5"});
    CHECK_EQ(fakecupti::state().enables, size_t(1));
}

TEST_CASE(range_counters_switch_configuration_runs_and_window_them) {
    // Ten single-metric groups as in the bench's S10: the union needs two passes. Costs (capacity 4):
    // g0-g3 cost 1, g4 and g5 cost 2, g6-g9 cost 1 (so g4-g5 and g6-g9 fit; g0-g3 with g4 do not).
    counters::Setup t(counters::singles("g", 10), {{"g4", 2}, {"g5", 2}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    const std::string windows = counters::drive(t.rc, t.passes, 3, &wrong);
    CHECK(!t.rc.single_config());
    // Each pass's counters came from its own kernel with the right value: the object was re-created on
    // every change (the fake, like the H200, reads 0 for a configuration given to a used object).
    CHECK_EQ(wrong, 0);
    // Runs: {0..3} (cost 4), {4,5} (cost 4), {6..9} (cost 4: no room to wrap into the next dispatch), the
    // same in every dispatch.
    CHECK_EQ(windows, std::string("0+4 4+2 6+4 | 0+4 4+2 6+4 | 0+4 4+2 6+4 | "));
    CHECK_EQ(fakecupti::state().starts, size_t(9));  // one Start per window
    CHECK_EQ(fakecupti::state().enables, size_t(9));  // a change of configuration at every window
    CHECK_EQ(fakecupti::state().disables, size_t(8));
}

TEST_CASE(range_counters_change_configuration_rather_than_add_a_window) {
    // Costs 1,1,2 | 2,1 (capacity 4): from pass 0, {0,1,2} fill a pass; the run from 3 is {3,4} and the
    // next dispatch's 0 (2+1+1). That run holds pass 0 of the next dispatch but not pass 1, so keeping it
    // would cost three windows there ({0}, {1,2}, {3,4}) instead of two: the configuration changes.
    counters::Setup t({{"m0"}, {"m1"}, {"m2"}, {"m3"}, {"m4"}}, {{"m2", 2}, {"m3", 2}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong), std::string("0+3 3+2 | 0+3 3+2 | 0+3 3+2 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().starts, size_t(6));
    CHECK_EQ(fakecupti::state().enables, size_t(6));
}

TEST_CASE(range_counters_keep_a_configuration_into_the_next_dispatch) {
    // Six groups of cost 1 (capacity 4): two windows per dispatch at best. The run from 4 is {4,5,0,1}: the
    // next dispatch keeps it for passes 0-1 and takes {2..5} (still two windows, one change fewer); the one
    // after that cannot keep {2..5} (it does not hold pass 0) and starts over with {0..3}.
    counters::Setup t({{"k0"}, {"k1"}, {"k2"}, {"k3"}, {"k4"}, {"k5"}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    CHECK_EQ(counters::drive(t.rc, t.passes, 3, &wrong), std::string("0+4 4+2 | 0+2 2+4 | 0+4 4+2 | "));
    CHECK_EQ(wrong, 0);
    CHECK_EQ(fakecupti::state().starts, size_t(6));
    CHECK_EQ(fakecupti::state().enables, size_t(5));  // {0..3}, {4,5,0,1}, {2..5}, {0..3}, {4,5,0,1}
}

TEST_CASE(range_counters_give_a_multipass_group_its_own_runs) {
    // {x,y} needs two hardware passes (cost 3 each); {x} and {y} after it are held by that configuration but
    // must not share its window (the window's one Start/Stop would submit only the first hardware pass) nor
    // keep it (each of their passes would run the kernel twice): each gets its own one-pass configuration.
    counters::Setup t({{"x", "y"}, {"x"}, {"y"}}, {{"x", 3}, {"y", 3}});
    t.rc.allow_union_sessions(false);  // configuration runs, as with GOROCPROF_CUDA_UNION_SESSIONS=0
    int wrong = 0;
    std::set<std::string> notes;
    CHECK_EQ(counters::drive(t.rc, t.passes, 2, &wrong, &notes), std::string("0+1 1+1 2+1 | 0+1 1+1 2+1 | "));
    CHECK_EQ(wrong, 0);  // x and y of pass 0 come from its two kernel runs
    CHECK_EQ(fakecupti::state().enables, size_t(6));
    CHECK_EQ(fakecupti::state().starts, size_t(8));  // pass 0: two hardware passes
    // The user hears once that the group needs two hardware passes, on every arm that uses it.
    CHECK_EQ(notes.size(), size_t(1));
    CHECK(!notes.empty() && notes.begin()->find("counter group {x,y} needs 2 hardware passes") == 0);
}

TEST_CASE(range_counters_skip_the_cache_flush_kernel_before_each_pass) {
    // --cache-control all: a flush kernel runs before every pass's kernel, inside the armed configuration.
    // Each pass must still read its own kernel, in one window (the union), in union sessions and in runs.
    struct Row {
        const char* name;
        std::vector<std::vector<std::string>> groups;
        std::map<std::string, int> cost;
        bool sessions;
    } rows[] = {
        {"the union in one window", {{"a", "b"}, {"a", "c"}, {"b", "c"}}, {}, true},
        {"union sessions", counters::singles("g", 10), {{"g4", 2}, {"g5", 2}}, true},
        {"configuration runs", counters::singles("g", 10), {{"g4", 2}, {"g5", 2}}, false},
        {"passes alone (groups of several hardware passes)", {{"x", "y"}, {"x"}, {"y"}}, {{"x", 3}, {"y", 3}}, false},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        counters::Setup t(r.groups, r.cost);
        t.rc.allow_union_sessions(r.sessions);
        t.rc.set_kernels_per_pass(2);
        int wrong = 0;
        std::set<std::string> notes;
        counters::drive(t.rc, t.passes, 2, &wrong, &notes);
        if (wrong != 0) check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + std::to_string(wrong) + " values wrong");
    }
}

TEST_CASE(range_counters_reenabling_is_what_keeps_values_right) {
    // The fake's rule itself: without a re-created object a second configuration reads 0 (what the H200
    // did with GOROCPROF_CUDA_REENABLE_ON_SWITCH=0), so the cases above would catch a missing re-creation.
    fakecupti::state().value = counters::value;
    CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    CHECK_EQ(cuptiRangeProfilerEnable(&en), CUPTI_SUCCESS);
    std::vector<uint8_t> image(256);
    const std::string first = "x\n", second = "y\n";
    for (const std::string* cfg : {&first, &second}) {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{
            CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = en.pRangeProfilerObject;
        init.counterDataSize = image.size();
        init.pCounterData = image.data();
        CHECK_EQ(cuptiRangeProfilerCounterDataImageInitialize(&init), CUPTI_SUCCESS);
        CUpti_RangeProfiler_SetConfig_Params sc{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
        sc.pRangeProfilerObject = en.pRangeProfilerObject;
        sc.pConfig = reinterpret_cast<const uint8_t*>(cfg->data());
        sc.configSize = cfg->size();
        sc.pCounterDataImage = image.data();
        sc.counterDataImageSize = image.size();
        sc.maxRangesPerPass = 1;
        CHECK_EQ(cuptiRangeProfilerSetConfig(&sc), CUPTI_SUCCESS);
        CUpti_RangeProfiler_Start_Params st{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        st.pRangeProfilerObject = en.pRangeProfilerObject;
        CHECK_EQ(cuptiRangeProfilerStart(&st), CUPTI_SUCCESS);
        fakecupti::kernel(7);
        CUpti_RangeProfiler_Stop_Params sp{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = en.pRangeProfilerObject;
        CHECK_EQ(cuptiRangeProfilerStop(&sp), CUPTI_SUCCESS);
        const char* name = cfg == &first ? "x" : "y";
        double v = -1;
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        ev.pCounterDataImage = image.data();
        ev.counterDataImageSize = image.size();
        ev.ppMetricNames = &name;
        ev.numMetrics = 1;
        ev.pMetricValues = &v;
        CHECK_EQ(cuptiProfilerHostEvaluateToGpuValues(&ev), CUPTI_SUCCESS);
        CHECK_EQ(v, cfg == &first ? counters::value("x", 7) : 0.0);
    }
    CUpti_RangeProfiler_Disable_Params dis{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    dis.pRangeProfilerObject = en.pRangeProfilerObject;
    CHECK_EQ(cuptiRangeProfilerDisable(&dis), CUPTI_SUCCESS);
}

int main(int argc, char** argv) {
    check::Options options;
    options.reset = [] {  // every case starts from a fresh fake driver and CUPTI
        fakecuda::reset();
        fakecupti::reset();
    };
    return check::run(argc, argv, options);
}
