// What the benches that drive CUPTI themselves share (bench/rp_ranges.cu, bench/pm_sampling.cu): kernel records of
// the activity API, and a Range Profiler object collecting one configuration in windows of ranges. Header-only: each
// bench is one translation unit.
#pragma once

#include "check.hpp"
#include "metric_host.hpp"
#include "range_config.hpp"

#include <cupti_activity.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace gorocprof::cuda::bench {

// One kernel's activity record: its GPU start and end, and its launch's grid and block widths.
struct KernelRecord {
    uint64_t start = 0, end = 0;
    unsigned grid = 0, block = 0;
};

// The kernel records delivered since the caller last cleared the list, in arrival order.
inline std::vector<KernelRecord>& kernel_records() {
    static std::vector<KernelRecord> records;
    return records;
}

inline void CUPTIAPI kernel_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *size = size_t(8) << 20;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
    *max_records = 0;
}

inline void CUPTIAPI kernel_buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL) continue;
        // start, end, gridX and blockX sit at the same offsets in every kernel record version since the fourth.
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel4*>(rec);
        kernel_records().push_back({k->start, k->end, static_cast<unsigned>(k->gridX), static_cast<unsigned>(k->blockX)});
    }
    std::free(buffer);
}

// Registers the buffers above and turns concurrent kernel records on.
inline PortStatus enable_kernel_records() {
    PortStatus st = cupti(cuptiActivityRegisterCallbacks(kernel_buffer_requested, kernel_buffer_completed),
                          "cuptiActivityRegisterCallbacks");
    if (st.ok) st = cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable");
    return st;
}

// The metrics' values of one range (Range Profiler) or sample (PM sampling) of a counter data image.
inline PortStatus evaluate(HostObject& host, const std::vector<uint8_t>& data, size_t index, std::vector<const char*>& names,
                           std::vector<double>* values) {
    values->assign(names.size(), 0);
    CUpti_Profiler_Host_EvaluateToGpuValues_Params ev{CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    ev.pHostObject = host.get();
    ev.pCounterDataImage = data.data();
    ev.counterDataImageSize = data.size();
    ev.rangeIndex = index;
    ev.ppMetricNames = names.data();
    ev.numMetrics = names.size();
    ev.pMetricValues = values->data();
    return cupti(cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
}

// A Range Profiler object on one context with one configuration image, armed a window of `ranges` at a time.
struct RangeWindows {
    CUpti_RangeProfiler_Object* obj = nullptr;
    std::vector<uint8_t> config, data;
    size_t ranges = 1;
    bool user = false;  // CUPTI_UserRange (pushed and popped by the caller) instead of CUPTI_AutoRange

    // Enables the profiler on `ctx` and sizes the counter data image for a window of `names`.
    PortStatus enable(CUcontext ctx, std::vector<const char*>& names) {
        CUpti_RangeProfiler_Enable_Params en{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        en.ctx = ctx;
        PortStatus st = cupti(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable");
        if (!st.ok) return st;
        obj = en.pRangeProfilerObject;
        CUpti_RangeProfiler_GetCounterDataSize_Params size{CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
        size.pRangeProfilerObject = obj;
        size.pMetricNames = names.data();
        size.numMetrics = names.size();
        size.maxNumOfRanges = ranges;
        size.maxNumRangeTreeNodes = ranges;
        st = cupti(cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize");
        if (st.ok) data.assign(size.counterDataSize, 0);
        return st;
    }

    // A fresh counter data image, the configuration, Start.
    PortStatus arm() {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params init{CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
        init.pRangeProfilerObject = obj;
        init.counterDataSize = data.size();
        init.pCounterData = data.data();
        PortStatus st = cupti(cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize");
        if (!st.ok) return st;
        if (!(st = set_range_config(obj, config, data, user, ranges)).ok) return st;
        CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        start.pRangeProfilerObject = obj;
        return cupti(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart");
    }

    PortStatus stop() {
        CUpti_RangeProfiler_Stop_Params p{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        p.pRangeProfilerObject = obj;
        return cupti(cuptiRangeProfilerStop(&p), "cuptiRangeProfilerStop");
    }

    // Stop, decode, and each recorded range's values (names' order) appended to `values`.
    PortStatus collect(HostObject& host, std::vector<const char*>& names, std::vector<std::vector<double>>* values) {
        PortStatus st = stop();
        if (!st.ok) return st;
        CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
        decode.pRangeProfilerObject = obj;
        if (!(st = cupti(cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData")).ok) return st;
        CUpti_RangeProfiler_GetCounterDataInfo_Params info{CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
        info.pCounterDataImage = data.data();
        info.counterDataImageSize = data.size();
        if (!(st = cupti(cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo")).ok) return st;
        std::vector<double> v;
        for (size_t r = 0; r < info.numTotalRanges && st.ok; ++r)
            if ((st = evaluate(host, data, r, names, &v)).ok) values->push_back(v);
        return st;
    }

    PortStatus disable() {
        CUpti_RangeProfiler_Disable_Params off{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        off.pRangeProfilerObject = obj;
        return cupti(cuptiRangeProfilerDisable(&off), "cuptiRangeProfilerDisable");
    }
};

}  // namespace gorocprof::cuda::bench
