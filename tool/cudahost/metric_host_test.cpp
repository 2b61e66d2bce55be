// Host-side test of the query helper's metric lookup (metric_host.*) against the fake CUPTI's catalog: a
// run's names looked up one by one give what the whole catalog gives for them, reading only their bases.
#include "../testkit/check.hpp"

#include "fake_cupti.hpp"
#include "metric_host.hpp"

#include <string>
#include <vector>

using gorocprof::cuda::HostObject;
using gorocprof::cuda::metric_catalog;
using gorocprof::cuda::metric_lookup;
using gorocprof::cuda::MetricEntry;

namespace {

// A chip of three metric types whose sub-metrics come with and without their dot, one base holding another's
// name as its prefix, and a base without properties.
void fake_chip() {
    fakecupti::reset();
    auto& c = fakecupti::state().catalog;
    c[0] = {{"sm__inst_executed", "warp instructions", "inst", {"sum", "max", ".sum.per_second"}},
            {"sm__inst", "a shorter base", "inst", {"sum"}},
            {"dram__bytes", "", "", {"read.sum", "write.sum"}}};
    c[1] = {{"sm__warps_active", "active warps", "warp", {"avg.pct_of_peak_sustained_active"}}};
    c[2] = {{"gpu__time_duration", "duration", "nsecond", {"sum"}}};
}

std::string describe(const std::vector<MetricEntry>& v) {
    std::string s;
    for (const MetricEntry& e : v) s += e.name + "|" + e.description + "|" + e.unit + ";";
    return s;
}

}  // namespace

TEST_CASE(metric_lookup_gives_what_the_catalog_gives_for_the_names_asked) {
    fake_chip();
    HostObject host;
    CHECK(host.init("GH100", {1}).ok);
    std::vector<MetricEntry> all;
    CHECK(metric_catalog(host, &all).ok);
    CHECK_EQ(all.size(), size_t(8));
    const size_t catalog_calls = fakecupti::state().host_calls;

    struct Row {
        std::vector<std::string> names;
        std::vector<std::string> found, missing;
    } rows[] = {
        {{"sm__inst_executed.sum"}, {"sm__inst_executed.sum"}, {}},
        {{"sm__inst_executed.sum.per_second", "sm__inst.sum", "dram__bytes.write.sum"},
         {"sm__inst_executed.sum.per_second", "sm__inst.sum", "dram__bytes.write.sum"},
         {}},
        {{"sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum", "gpu__time_duration.sum"},
         {"sm__warps_active.avg.pct_of_peak_sustained_active", "gpu__time_duration.sum"},
         {}},
        {{"sm__inst_executed", "sm__inst_executed.avg", "nope.sum", "dram__bytes.read", "sm__inst_executed.max"},
         {"sm__inst_executed.max"},
         {"sm__inst_executed", "sm__inst_executed.avg", "nope.sum", "dram__bytes.read"}},
        {{}, {}, {}},
    };
    for (const Row& r : rows) {
        fakecupti::state().host_calls = 0;
        std::vector<MetricEntry> found;
        std::vector<std::string> missing;
        CHECK(metric_lookup(host, r.names, &found, &missing).ok);
        std::vector<MetricEntry> want;
        for (const std::string& n : r.found)
            for (const MetricEntry& e : all)
                if (e.name == n) want.push_back(e);
        CHECK_EQ(describe(found), describe(want));
        CHECK(missing == r.missing);
        // Two calls per base tried at most (its sub-metrics, then its properties), never the whole catalog's.
        CHECK(fakecupti::state().host_calls <= 2 * 2 * r.names.size());
        CHECK(fakecupti::state().host_calls < catalog_calls);
    }
}

// The Range Profiler's type unless asked for PM sampling's (bench/pm_sampling.cu asks).
TEST_CASE(host_object_initialises_the_profiler_type_asked_for) {
    fake_chip();
    struct Row {
        bool pm;
        int want;
    } rows[] = {{false, CUPTI_PROFILER_TYPE_RANGE_PROFILER}, {true, CUPTI_PROFILER_TYPE_PM_SAMPLING}};
    for (const Row& r : rows) {
        HostObject host;
        const std::vector<uint8_t> image{1};
        CHECK(r.pm ? host.init("GH100", image, CUPTI_PROFILER_TYPE_PM_SAMPLING).ok : host.init("GH100", image).ok);
        CHECK_EQ(fakecupti::state().host_types.back(), r.want);
    }
}
