#include "metric_host.hpp"

#include <cupti_profiler_target.h>

#include <algorithm>

namespace gorocprof::cuda {

PortStatus counter_availability(CUcontext ctx, std::vector<uint8_t>* image) {
    CUpti_Profiler_GetCounterAvailability_Params p{CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    p.ctx = ctx;
    PortStatus st = cupti(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
    if (!st.ok) return st;
    image->assign(p.counterAvailabilityImageSize, 0);
    p.pCounterAvailabilityImage = image->data();
    return cupti(cuptiProfilerGetCounterAvailability(&p), "cuptiProfilerGetCounterAvailability");
}

HostObject::~HostObject() {
    if (!obj_) return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = obj_;
    // Not through cupti(): a destructor has no one to tell, and a failed deinitialize only keeps its memory.
    cuptiProfilerHostDeinitialize(&p);
}

PortStatus HostObject::init(const std::string& chip, const std::vector<uint8_t>& availability) {
    CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    PortStatus st = cupti(cuptiProfilerHostInitialize(&p), "cuptiProfilerHostInitialize");
    if (st.ok) obj_ = p.pHostObject;
    return st;
}

PortStatus build_config(HostObject& host, const std::vector<const char*>& metrics,
                        std::vector<uint8_t>* image, size_t* passes) {
    CUpti_Profiler_Host_ConfigAddMetrics_Params add{CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host.get();
    add.ppMetricNames = const_cast<const char**>(metrics.data());
    add.numMetrics = metrics.size();
    PortStatus st = cupti(cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics");
    if (!st.ok) return st;
    CUpti_Profiler_Host_GetConfigImageSize_Params size{CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = host.get();
    st = cupti(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
    if (!st.ok) return st;
    image->assign(size.configImageSize, 0);
    CUpti_Profiler_Host_GetConfigImage_Params get{CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    get.pHostObject = host.get();
    get.configImageSize = image->size();
    get.pConfigImage = image->data();
    st = cupti(cuptiProfilerHostGetConfigImage(&get), "cuptiProfilerHostGetConfigImage");
    if (!st.ok) return st;
    CUpti_Profiler_Host_GetNumOfPasses_Params np{CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = image->size();
    np.pConfigImage = image->data();
    st = cupti(cuptiProfilerHostGetNumOfPasses(&np), "cuptiProfilerHostGetNumOfPasses");
    if (st.ok) *passes = np.numOfPasses;
    return st;
}

PortStatus metric_catalog(HostObject& host, std::vector<MetricEntry>* out) {
    out->clear();
    static const CUpti_MetricType types[] = {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO,
                                             CUPTI_METRIC_TYPE_THROUGHPUT};
    for (CUpti_MetricType type : types) {
        CUpti_Profiler_Host_GetBaseMetrics_Params base{CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
        base.pHostObject = host.get();
        base.metricType = type;
        PortStatus st = cupti(cuptiProfilerHostGetBaseMetrics(&base), "cuptiProfilerHostGetBaseMetrics");
        if (!st.ok) return st;
        for (size_t i = 0; i < base.numMetrics; ++i) {
            const char* name = base.ppMetricNames[i];
            CUpti_Profiler_Host_GetMetricProperties_Params prop{
                CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
            prop.pHostObject = host.get();
            prop.pMetricName = name;
            std::string description, unit;
            // A metric without properties keeps an empty description and unit.
            if (cupti(cuptiProfilerHostGetMetricProperties(&prop), "cuptiProfilerHostGetMetricProperties").ok) {
                description = prop.pDescription ? prop.pDescription : "";
                unit = prop.pDimUnit ? prop.pDimUnit : "";
            }
            CUpti_Profiler_Host_GetSubMetrics_Params sub{CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE};
            sub.pHostObject = host.get();
            sub.metricType = type;
            sub.pMetricName = name;
            st = cupti(cuptiProfilerHostGetSubMetrics(&sub), "cuptiProfilerHostGetSubMetrics");
            if (!st.ok) {
                st.reason += std::string(" (metric ") + name + ")";
                return st;
            }
            for (size_t j = 0; j < sub.numOfSubmetrics; ++j) {
                std::string s = sub.ppSubMetrics[j] ? sub.ppSubMetrics[j] : "";
                if (s.empty()) continue;
                std::string full = std::string(name) + (s[0] == '.' ? "" : ".") + s;
                out->push_back({std::move(full), description, unit});
            }
        }
    }
    std::sort(out->begin(), out->end(), [](const MetricEntry& a, const MetricEntry& b) { return a.name < b.name; });
    out->erase(std::unique(out->begin(), out->end(),
                           [](const MetricEntry& a, const MetricEntry& b) { return a.name == b.name; }),
               out->end());
    return PortStatus::success();
}

}  // namespace gorocprof::cuda
