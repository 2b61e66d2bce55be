// Host-side tests of the reach scan (reach.*), against the fake driver, which runs the scan kernel with the
// PTX's rule: the closure over pointers stored in reached memory, aligned words only, unreadable VMM not
// scanned, a failed scan leaving the marks.
#include "../testkit/check.hpp"

#include "allocations.hpp"
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

using gorocprof::cuda::AllocKind;
using gorocprof::cuda::Allocation;
using gorocprof::replay::PortStatus;
using gorocprof::cuda::ReachScanner;


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
    // Rounds: the holder, then the table, then c and d (nothing new): three, one launch each.
    CHECK_EQ(fakecuda::state().launches, size_t(3));
    CHECK(fakecuda::state().scan_ranges == std::vector<uint32_t>({1, 1, 2}));
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

TEST_CASE(reach_scans_a_round_of_unequal_unaligned_allocations_in_one_launch) {
    fakecuda::reset();
    const size_t live = fakecuda::state().blocks.size();
    Memory m;
    const size_t holder = m.add(4), a = m.add(4), b = m.add(6), c = m.add(8);
    size_t t[6], outside[4];
    for (size_t& k : t) k = m.add(1);
    for (size_t& k : outside) k = m.add(1);
    // a: a global 4 bytes into its buffer, 20 bytes long: whole words 1 and 2 of its buffer.
    m.allocs[a].base += 4;
    m.allocs[a].size = 20;
    m.allocs[a].kind = AllocKind::Global;
    // b: aligned, 43 bytes: whole words 0..4; word 5 only begins inside it.
    m.allocs[b].size = 43;
    // c: 3 bytes into its buffer, 48 bytes long (to byte 51): whole words 1..5.
    m.allocs[c].base += 3;
    m.allocs[c].size = 48;
    m.buffers[holder][0] = m.allocs[a].base;
    m.buffers[holder][2] = m.allocs[b].base + 42;  // b's last byte
    m.buffers[holder][3] = m.allocs[c].base;
    // Each range's first and last whole word point at a target; the words that are partly outside (or wholly,
    // before a's base) point at what must stay unreached.
    m.buffers[a][0] = m.addr(outside[0]);
    m.buffers[a][1] = m.addr(t[0]);
    m.buffers[a][2] = m.addr(t[1]);
    m.buffers[b][0] = m.addr(t[2]);
    m.buffers[b][4] = m.addr(t[3]);
    m.buffers[b][5] = m.addr(outside[1]);
    m.buffers[c][0] = m.addr(outside[2]);
    m.buffers[c][1] = m.addr(t[4]);
    m.buffers[c][5] = m.addr(t[5]);
    m.buffers[c][6] = m.addr(outside[3]);
    std::string got;
    uint64_t bytes = 0;
    CHECK(m.close_from(holder, &got, &bytes).ok);
    CHECK_EQ(got, std::string("1111") + "111111" + "0000");
    // Rounds: the holder; a, b and c in one launch; the six targets in one launch (nothing new).
    CHECK(fakecuda::state().scan_ranges == std::vector<uint32_t>({1, 3, 6}));
    CHECK_EQ(fakecuda::state().launches, size_t(3));
    CHECK_EQ(fakecuda::state().syncs, size_t(3));
    CHECK_EQ(bytes, uint64_t(4 * 8 + (2 + 5 + 5) * 8 + 6 * 8));
    // The allocation table once, the list's table once per round that outgrew it.
    CHECK_EQ(fakecuda::state().mem_allocs, size_t(1 + 3));
    CHECK_EQ(fakecuda::state().blocks.size(), live);  // release freed both
}

TEST_CASE(reach_reuses_its_tables_across_rounds_and_dispatches) {
    fakecuda::reset();
    const size_t live = fakecuda::state().blocks.size();
    Memory m;
    const size_t h = m.add(4), a = m.add(2), b = m.add(2), c = m.add(2), d = m.add(2);
    m.buffers[h][0] = m.addr(a);  // a chain: one range a round
    m.buffers[a][0] = m.addr(b);
    m.buffers[b][0] = m.addr(c);
    std::vector<size_t> pos;
    const std::vector<Allocation> allocs = m.sorted(&pos);
    ReachScanner scan;
    // Which buffers one close reaches from h, on the scanner that earlier closes used.
    auto close_from_h = [&](std::string* got) {
        std::vector<char> reached(allocs.size(), 0);
        reached[pos[h]] = 1;
        PortStatus st = scan.close(allocs, &reached, nullptr, 0, nullptr);
        got->clear();
        for (size_t p : pos) *got += reached[p] ? '1' : '0';
        return st;
    };
    std::string got;
    CHECK(close_from_h(&got).ok);
    CHECK_EQ(got, std::string("11110"));
    CHECK_EQ(fakecuda::state().launches, size_t(4));
    CHECK_EQ(fakecuda::state().mem_allocs, size_t(2));  // the allocation table and a list of one range
    CHECK(close_from_h(&got).ok);  // the next dispatch: both tables suffice
    CHECK_EQ(got, std::string("11110"));
    CHECK_EQ(fakecuda::state().launches, size_t(8));
    CHECK_EQ(fakecuda::state().mem_allocs, size_t(2));
    // A round of three ranges (a, c, d) outgrows the list's table: it alone is allocated anew, and the freed one is
    // not read (the fake driver fails a copy into, or a scan of, memory outside a live allocation).
    m.buffers[h][1] = m.addr(c);
    m.buffers[h][2] = m.addr(d);
    CHECK(close_from_h(&got).ok);
    CHECK_EQ(got, std::string("11111"));
    CHECK(std::vector<uint32_t>(fakecuda::state().scan_ranges.begin() + 8, fakecuda::state().scan_ranges.end()) ==
          std::vector<uint32_t>({1, 3, 1}));
    CHECK_EQ(fakecuda::state().mem_allocs, size_t(3));
    CHECK(scan.release().ok);
    CHECK_EQ(fakecuda::state().blocks.size(), live);
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
        // A round with nothing it may read launches nothing.
        CHECK_EQ(fakecuda::state().launches, size_t(readable ? 2 : 0));
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
