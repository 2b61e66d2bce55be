#include "phase_stats.hpp"

#include "allocations.hpp"
#include "core.hpp"
#include "options.hpp"

#include <cstdio>
#include <cstdlib>

namespace gorocprof::cuda {
namespace {

const char* const kNames[] = {"enter sync", "reach scan", "snapshot", "arm counters",
                              "  switch: disable", "  switch: enable", "  counter data init",
                              "  set config", "  start", "wait app launch", "restore",
                              "relaunch + wait", "stop (+extra runs)", "decode + evaluate", "record",
                              "cache flush (queued)", "unprofiled timing run", "counter availability",
                              "profiler enable", "host object init", "config image"};
static_assert(sizeof(kNames) / sizeof(kNames[0]) == static_cast<int>(Phase::kCount), "one name per phase");

void print_at_exit() { PhaseStats::instance().print(); }

}  // namespace

PhaseStats::PhaseStats() {
    on_ = options().timing;
    if (on_) std::atexit(print_at_exit);
}

PhaseStats& PhaseStats::instance() {
    static PhaseStats* s = new PhaseStats;  // never destroyed: read by the atexit handler
    return *s;
}

void PhaseStats::print() const {
    std::fprintf(stderr, "gorocprof-cuda timing (GOROCPROF_CUDA_TIMING):\n%-20s %10s %12s %12s %14s\n", "phase", "count",
                 "total ms", "mean us", "bytes");
    for (int i = 0; i < static_cast<int>(Phase::kCount); ++i) {
        const uint64_t n = count_[i].load(), ns = ns_[i].load();
        std::fprintf(stderr, "%-20s %10llu %12.1f %12.1f %14llu %10llu\n", kNames[i], static_cast<unsigned long long>(n),
                     ns / 1e6, n ? ns / 1e3 / n : 0.0, static_cast<unsigned long long>(bytes_[i].load()),
                     static_cast<unsigned long long>(items_[i].load()));
    }
    // Below the table, in lines that end in a unit, so that scripts reading the table's rows skip them.
    for (int i = 0; i < static_cast<int>(Phase::kCount); ++i)
        if (count_[i].load() > 1)
            std::fprintf(stderr, "first and largest of %s: %.1f us, %.1f us\n", kNames[i] + (kNames[i][0] == ' ' ? 2 : 0),
                         first_ns_[i].load() / 1e3, max_ns_[i].load() / 1e3);
    for (int k = 0; k < kKinds; ++k)
        if (const uint64_t n = kind_allocs_[k].load())
            std::fprintf(stderr,
                         "snapshot ranges of kind %s: %llu ranges, %llu allocations, %llu bytes (summed over snapshots)\n",
                         kind_name(static_cast<AllocKind>(k)), static_cast<unsigned long long>(kind_ranges_[k].load()),
                         static_cast<unsigned long long>(n), static_cast<unsigned long long>(kind_bytes_[k].load()));
}

PhaseTimer::PhaseTimer(Phase p) : phase_(p) {
    if (PhaseStats::instance().on()) {
        live_ = true;
        start_ = core::now_ns();
    }
}

void PhaseTimer::done() {
    if (!live_) return;
    live_ = false;
    PhaseStats::instance().add(phase_, core::now_ns() - start_, bytes_, items_);
}

}  // namespace gorocprof::cuda
