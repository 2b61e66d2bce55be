// How bench/pm_sampling.cu gives PM samples to kernels and checks the sums (host code only): by the samples'
// GPU time spans against the kernels' activity records, or by runs of busy samples between idle ones.
#pragma once

#include "bench_profiler.cuh"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gorocprof::cuda::bench {

// One sample: its GPU time span and its metrics' values, in the session's metric order.
struct Sample {
    uint64_t start = 0, end = 0;
    std::vector<double> values;
};

// What one PM sampling case measured.
struct PmCase {
    uint64_t interval = 0;
    double enable_ms = 0, start_ms = 0, loop_ms = 0, stop_ms = 0;
    uint64_t host_start_ts = 0;
    bool full = false;
    std::vector<Sample> samples;
    std::vector<KernelRecord> records;  // the kernels', sorted by start
    size_t raw_records = 0;
};

// Per kernel and metric, the samples' sums under one attribution; `owned` counts each kernel's samples.
struct Attribution {
    std::vector<std::vector<double>> sums;
    std::vector<size_t> owned;
    double idle = 0;     // first metric's sum over samples given to no kernel
    size_t shared = 0;   // samples overlapping two kernels (given to the larger overlap)
    bool usable = true;  // false when the kernels could not be told apart
    std::string note;
};

inline Attribution by_time(const PmCase& c, size_t kernels, size_t metrics) {
    Attribution a{std::vector<std::vector<double>>(kernels, std::vector<double>(metrics)), std::vector<size_t>(kernels)};
    if (c.records.size() != kernels) {
        a.usable = false;
        a.note = std::to_string(c.records.size()) + " kernel records for " + std::to_string(kernels) + " kernels";
        return a;
    }
    size_t k = 0;
    for (const Sample& s : c.samples) {
        while (k < kernels && c.records[k].end <= s.start) ++k;
        auto overlap = [&](size_t i) {
            if (i >= kernels) return uint64_t(0);
            const uint64_t lo = std::max(s.start, c.records[i].start), hi = std::min(s.end, c.records[i].end);
            return hi > lo ? hi - lo : uint64_t(0);
        };
        const uint64_t here = overlap(k), next = overlap(k + 1);
        if (!here && !next) {
            a.idle += s.values[0];
            continue;
        }
        a.shared += here && next ? 1 : 0;
        const size_t owner = here >= next ? k : k + 1;
        for (size_t m = 0; m < metrics; ++m) a.sums[owner][m] += s.values[m];
        ++a.owned[owner];
    }
    return a;
}

inline Attribution by_gaps(const PmCase& c, size_t kernels, size_t metrics) {
    Attribution a{std::vector<std::vector<double>>(kernels, std::vector<double>(metrics)), std::vector<size_t>(kernels)};
    size_t runs = 0;
    bool in_run = false;
    for (const Sample& s : c.samples) {
        const bool busy = std::any_of(s.values.begin(), s.values.end(), [](double v) { return v > 0; });
        if (!busy) {
            in_run = false;
            continue;
        }
        if (!in_run) ++runs;
        in_run = true;
        if (runs > kernels) continue;
        for (size_t m = 0; m < metrics; ++m) a.sums[runs - 1][m] += s.values[m];
        ++a.owned[runs - 1];
    }
    if (runs != kernels) {
        a.usable = false;
        a.note = std::to_string(runs) + " runs of busy samples for " + std::to_string(kernels) + " kernels";
    }
    return a;
}

struct Check {
    size_t equal = 0;
    double max_abs = 0, max_rel = 0;
    long first_off = -1;
};

inline Check compare(const Attribution& a, size_t m, const std::vector<double>& ref) {
    Check c;
    for (size_t k = 0; k < ref.size(); ++k) {
        const double d = std::fabs(a.sums[k][m] - ref[k]);
        if (d < 0.5) {
            ++c.equal;
            continue;
        }
        if (c.first_off < 0) c.first_off = static_cast<long>(k);
        c.max_abs = std::max(c.max_abs, d);
        c.max_rel = std::max(c.max_rel, ref[k] ? d / ref[k] : INFINITY);
    }
    return c;
}

}  // namespace gorocprof::cuda::bench
