// The host half of CUPTI's profiler (no GPU work): counter availability, configuration images for a
// group of metrics, the number of passes a group needs, and the metric catalog of a chip. Shared by
// the tool library and the query helper.
#pragma once

#include "check.hpp"

#include <cupti_profiler_host.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gorocprof::cuda {

// Which counters the context's device can deliver now (an image CUPTI reads back).
PortStatus counter_availability(CUcontext ctx, std::vector<uint8_t>* image);

// A CUPTI host object for one chip; released with the object.
class HostObject {
public:
    HostObject() = default;
    HostObject(const HostObject&) = delete;
    HostObject& operator=(const HostObject&) = delete;
    ~HostObject();
    // Deinitializes the object (a later init starts afresh).
    void reset();
    // The object keeps a pointer into `availability`, not a copy: the image must outlive it, unchanged
    // (docs/perf.md, attempt 21).
    // `type` PM_SAMPLING makes the object evaluate PM sampling's counter data (bench/pm_sampling.cu); its
    // availability image is then cuptiPmSamplingGetCounterAvailability's.
    PortStatus init(const std::string& chip, const std::vector<uint8_t>& availability,
                    CUpti_ProfilerType type = CUPTI_PROFILER_TYPE_RANGE_PROFILER);
    CUpti_Profiler_Host_Object* get() const { return obj_; }

private:
    CUpti_Profiler_Host_Object* obj_ = nullptr;
};

// The configuration image that collects `metrics`, and how many passes it needs. `host` must be
// fresh (metrics are added to it) and is kept to evaluate the values later.
PortStatus build_config(HostObject& host, const std::vector<const char*>& metrics,
                        std::vector<uint8_t>* image, size_t* passes);

struct MetricEntry {
    std::string name;  // full name: base.submetric, e.g. sm__inst_executed.sum
    std::string description;
    std::string unit;
};

// Every metric of the chip, sorted by name.
PortStatus metric_catalog(HostObject& host, std::vector<MetricEntry>* out);

// The entries of `names` the chip has, as metric_catalog gives them, in the order asked (a name asked twice
// once); the names it does not have go to `missing`. Each name is looked up under the base metrics its
// dotted prefixes could be, so only those bases' sub-metrics are read: a run's handful of names instead of
// every base's sub-metrics (the catalog of an H200 is 150,179 metrics).
PortStatus metric_lookup(HostObject& host, const std::vector<std::string>& names, std::vector<MetricEntry>* found,
                         std::vector<std::string>* missing);

}  // namespace gorocprof::cuda
