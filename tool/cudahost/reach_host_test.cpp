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
