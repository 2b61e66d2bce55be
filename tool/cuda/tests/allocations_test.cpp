// Host-side unit tests of the CUDA backend's allocation bookkeeping (no GPU needed, but built only
// where the CUDA toolkit's headers are): module globals saved as one span per loaded ELF section,
// and the tracker keeping one range for a global it already covers.
#include "check.hpp"

#include "../allocations.hpp"

#include <string>
#include <vector>

using gorocprof::cuda::AllocationTracker;
using gorocprof::cuda::AllocKind;
using gorocprof::cuda::CubinGlobal;
using gorocprof::cuda::global_spans;
using gorocprof::cuda::ResolvedGlobal;

namespace {
using Spans = std::vector<std::pair<CUdeviceptr, size_t>>;
}

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
    auto r = t.restorable(ctx);
    CHECK_EQ(r.size(), size_t(2));
    CHECK_EQ(r[0].base, CUdeviceptr(0x10000));
    CHECK_EQ(r[0].size, size_t(0x110));
    CHECK_EQ(r[1].base, CUdeviceptr(0x50000));
    const uint64_t serial = r[0].serial;
    t.add(ctx, 0x10000, 0x110, AllocKind::Global);  // looked up again: same range, same serial
    CHECK(t.live(0x10000, serial));
    CHECK_EQ(t.restorable(ctx).size(), size_t(2));
}

int main(int argc, char** argv) { return check::run(argc, argv, check::Options{}); }
