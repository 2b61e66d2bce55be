// Where the CUDA backend spends its time, by phase, when GOROCPROF_CUDA_TIMING=1: totals are summed
// with relaxed atomics (one add per phase per dispatch) and printed to stderr when the process exits.
// Off by default: then a phase costs one predictable branch.
#pragma once

#include <atomic>
#include <cstdint>

namespace gorocprof::cuda {

enum class Phase : int {
    EnterSync,     // cuCtxSynchronize at a selected launch's ENTER
    Reach,         // finding the allocations the launch can reach (argument words, pointer scan)
    Snapshot,      // copies of the tracked footprint before pass 0
    Arm,           // counter data image, SetConfig, Start
    SwitchOff,     // part of Arm: disabling the profiler object on a change of configuration
    SwitchOn,      // part of Arm: enabling it again
    DataInit,      // part of Arm: cuptiRangeProfilerCounterDataImageInitialize
    SetConfig,     // part of Arm: cuptiRangeProfilerSetConfig
    Start,         // part of Arm: cuptiRangeProfilerStart
    AppWait,       // waiting for the application's own launch (pass 0)
    Restore,       // copies back before a further pass
    Relaunch,      // a further pass: launch and wait
    StopExtra,     // cuptiRangeProfilerStop and any extra hardware-pass runs
    Collect,       // decode + evaluate
    Record,        // the pass record handed to the core
    Flush,         // queuing the L2 flush kernel before a pass (--cache-control all)
    Unprofiled,    // the kernel's run with no counters armed, timed, and the restore after it
    Availability,  // cuptiProfilerGetCounterAvailability (once per process and context)
    Enable,        // cuptiRangeProfilerEnable: a new profiler object
    HostInit,      // a configuration's host object (cuptiProfilerHostInitialize)
    ConfigImage,   // a configuration's image and its hardware passes
    kCount
};

class PhaseStats {
public:
    static PhaseStats& instance();
    bool on() const { return on_; }
    void add(Phase p, int64_t ns, uint64_t bytes = 0, uint64_t items = 0) {
        const int i = static_cast<int>(p);
        ns_[i].fetch_add(static_cast<uint64_t>(ns), std::memory_order_relaxed);
        // The first and the largest, since a mean hides a one-off cost (a profiler object's first Start).
        if (count_[i].fetch_add(1, std::memory_order_relaxed) == 0) first_ns_[i].store(static_cast<uint64_t>(ns), std::memory_order_relaxed);
        uint64_t top = max_ns_[i].load(std::memory_order_relaxed);
        while (static_cast<uint64_t>(ns) > top &&
               !max_ns_[i].compare_exchange_weak(top, static_cast<uint64_t>(ns), std::memory_order_relaxed)) {
        }
        if (bytes) bytes_[i].fetch_add(bytes, std::memory_order_relaxed);
        if (items) items_[i].fetch_add(items, std::memory_order_relaxed);
    }
    // What snapshots copied, by allocation kind (AllocKind's value), one call per copy: `allocations`
    // it covers (several module globals of one driver allocation are one copy) and their own `bytes`.
    // Shows which kind of memory makes a snapshot many ranges or many bytes.
    void add_snapshot_copy(int kind, uint64_t allocations, uint64_t bytes) {
        if (kind < 0 || kind >= kKinds) return;
        kind_ranges_[kind].fetch_add(1, std::memory_order_relaxed);
        kind_allocs_[kind].fetch_add(allocations, std::memory_order_relaxed);
        kind_bytes_[kind].fetch_add(bytes, std::memory_order_relaxed);
    }
    // Writes the table to stderr (called once at exit).
    void print() const;
    static constexpr int kKinds = 8;

private:
    PhaseStats();
    bool on_ = false;
    std::atomic<uint64_t> ns_[static_cast<int>(Phase::kCount)]{};
    std::atomic<uint64_t> count_[static_cast<int>(Phase::kCount)]{};
    std::atomic<uint64_t> first_ns_[static_cast<int>(Phase::kCount)]{};
    std::atomic<uint64_t> max_ns_[static_cast<int>(Phase::kCount)]{};
    std::atomic<uint64_t> bytes_[static_cast<int>(Phase::kCount)]{};
    std::atomic<uint64_t> items_[static_cast<int>(Phase::kCount)]{};  // e.g. ranges copied
    std::atomic<uint64_t> kind_allocs_[kKinds]{};
    std::atomic<uint64_t> kind_ranges_[kKinds]{};
    std::atomic<uint64_t> kind_bytes_[kKinds]{};
};

// Times one phase from construction to destruction (or to done()).
class PhaseTimer {
public:
    explicit PhaseTimer(Phase p);
    ~PhaseTimer() { done(); }
    void bytes(uint64_t b) { bytes_ += b; }
    void items(uint64_t n) { items_ += n; }
    void done();

private:
    Phase phase_;
    int64_t start_ = 0;
    uint64_t bytes_ = 0;
    uint64_t items_ = 0;
    bool live_ = false;
};

}  // namespace gorocprof::cuda
