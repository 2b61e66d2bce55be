#include "metric_host.hpp"

#include <cupti_profiler_target.h>

#include <algorithm>
#include <set>

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

HostObject::~HostObject() { reset(); }

void HostObject::reset() {
    if (!obj_) return;
    CUpti_Profiler_Host_Deinitialize_Params p{CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = obj_;
    // Not through cupti(): nobody is waiting on it, and a failed deinitialize only keeps its memory.
    cuptiProfilerHostDeinitialize(&p);
    obj_ = nullptr;
}

PortStatus HostObject::init(const std::string& chip, const std::vector<uint8_t>& availability, CUpti_ProfilerType type) {
    CUpti_Profiler_Host_Initialize_Params p{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = type;
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

namespace {

const CUpti_MetricType kMetricTypes[] = {CUPTI_METRIC_TYPE_COUNTER, CUPTI_METRIC_TYPE_RATIO,
                                         CUPTI_METRIC_TYPE_THROUGHPUT};

// A base metric's description and unit; a metric without properties keeps them empty.
void metric_properties(HostObject& host, const char* name, std::string* description, std::string* unit) {
    CUpti_Profiler_Host_GetMetricProperties_Params prop{CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    prop.pHostObject = host.get();
    prop.pMetricName = name;
    description->clear();
    unit->clear();
    if (cupti(cuptiProfilerHostGetMetricProperties(&prop), "cuptiProfilerHostGetMetricProperties").ok) {
        *description = prop.pDescription ? prop.pDescription : "";
        *unit = prop.pDimUnit ? prop.pDimUnit : "";
    }
}

// The full names of a base metric's sub-metrics (base.submetric), in CUPTI's order.
PortStatus sub_metrics(HostObject& host, CUpti_MetricType type, const char* name, std::vector<std::string>* out) {
    CUpti_Profiler_Host_GetSubMetrics_Params sub{CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE};
    sub.pHostObject = host.get();
    sub.metricType = type;
    sub.pMetricName = name;
    PortStatus st = cupti(cuptiProfilerHostGetSubMetrics(&sub), "cuptiProfilerHostGetSubMetrics");
    if (!st.ok) {
        st.reason += std::string(" (metric ") + name + ")";
        return st;
    }
    out->clear();
    for (size_t j = 0; j < sub.numOfSubmetrics; ++j) {
        std::string s = sub.ppSubMetrics[j] ? sub.ppSubMetrics[j] : "";
        if (s.empty()) continue;
        out->push_back(std::string(name) + (s[0] == '.' ? "" : ".") + s);
    }
    return PortStatus::success();
}

PortStatus base_metrics(HostObject& host, CUpti_MetricType type, std::vector<const char*>* out) {
    CUpti_Profiler_Host_GetBaseMetrics_Params base{CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE};
    base.pHostObject = host.get();
    base.metricType = type;
    PortStatus st = cupti(cuptiProfilerHostGetBaseMetrics(&base), "cuptiProfilerHostGetBaseMetrics");
    if (st.ok) out->assign(base.ppMetricNames, base.ppMetricNames + base.numMetrics);
    return st;
}

}  // namespace

PortStatus metric_catalog(HostObject& host, std::vector<MetricEntry>* out) {
    out->clear();
    std::vector<const char*> bases;
    std::vector<std::string> subs;
    for (CUpti_MetricType type : kMetricTypes) {
        PortStatus st = base_metrics(host, type, &bases);
        if (!st.ok) return st;
        for (const char* name : bases) {
            std::string description, unit;
            metric_properties(host, name, &description, &unit);
            if (!(st = sub_metrics(host, type, name, &subs)).ok) return st;
            for (std::string& full : subs) out->push_back({std::move(full), description, unit});
        }
    }
    std::sort(out->begin(), out->end(), [](const MetricEntry& a, const MetricEntry& b) { return a.name < b.name; });
    out->erase(std::unique(out->begin(), out->end(),
                           [](const MetricEntry& a, const MetricEntry& b) { return a.name == b.name; }),
               out->end());
    return PortStatus::success();
}

PortStatus metric_lookup(HostObject& host, const std::vector<std::string>& names, std::vector<MetricEntry>* found,
                         std::vector<std::string>* missing) {
    found->clear();
    missing->clear();
    std::vector<std::set<std::string>> bases;  // per type, in kMetricTypes' order (the catalog's)
    std::vector<const char*> list;
    for (CUpti_MetricType type : kMetricTypes) {
        PortStatus st = base_metrics(host, type, &list);
        if (!st.ok) return st;
        bases.emplace_back(list.begin(), list.end());
    }
    std::set<std::string> seen;
    std::vector<std::string> subs;
    for (const std::string& name : names) {
        if (!seen.insert(name).second) continue;
        bool got = false;
        for (size_t t = 0; t < bases.size() && !got; ++t) {
            // Every sub-metric's full name is base "." rest, so the base ends before one of the name's dots.
            for (size_t dot = name.find('.'); dot != std::string::npos && !got; dot = name.find('.', dot + 1)) {
                const std::string base = name.substr(0, dot);
                if (!bases[t].count(base)) continue;
                PortStatus st = sub_metrics(host, kMetricTypes[t], base.c_str(), &subs);
                if (!st.ok) return st;
                if (std::find(subs.begin(), subs.end(), name) == subs.end()) continue;
                MetricEntry e{name, "", ""};
                metric_properties(host, base.c_str(), &e.description, &e.unit);
                found->push_back(std::move(e));
                got = true;
            }
        }
        if (!got) missing->push_back(name);
    }
    return PortStatus::success();
}

}  // namespace gorocprof::cuda
