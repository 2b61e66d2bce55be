/* The part of CUPTI's profiler host API that tool/cuda/metric_host.* and range_counters.* use, for tests
 * without a CUDA toolkit (fake_cupti.cpp implements it). Member names follow CUPTI's; only the members the
 * tool sets or reads are here. */
#pragma once

#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;
typedef enum { CUPTI_PROFILER_TYPE_RANGE_PROFILER = 0, CUPTI_PROFILER_TYPE_PM_SAMPLING = 1 } CUpti_ProfilerType;
typedef enum { CUPTI_METRIC_TYPE_COUNTER = 0, CUPTI_METRIC_TYPE_RATIO = 1, CUPTI_METRIC_TYPE_THROUGHPUT = 2 } CUpti_MetricType;

typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_ProfilerType profilerType;
    const char* pChipName;
    const uint8_t* pCounterAvailabilityImage;
    CUpti_Profiler_Host_Object* pHostObject;
} CUpti_Profiler_Host_Initialize_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const char** ppMetricNames;
    size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    size_t configImageSize;
} CUpti_Profiler_Host_GetConfigImageSize_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    size_t configImageSize;
    uint8_t* pConfigImage;
} CUpti_Profiler_Host_GetConfigImage_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    size_t configImageSize;
    const uint8_t* pConfigImage;
    size_t numOfPasses;
} CUpti_Profiler_Host_GetNumOfPasses_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    CUpti_MetricType metricType;
    const char** ppMetricNames;
    size_t numMetrics;
} CUpti_Profiler_Host_GetBaseMetrics_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const char* pMetricName;
    const char* pDescription;
    const char* pDimUnit;
} CUpti_Profiler_Host_GetMetricProperties_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    CUpti_MetricType metricType;
    const char* pMetricName;
    size_t numOfSubmetrics;
    const char** ppSubMetrics;
} CUpti_Profiler_Host_GetSubMetrics_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_Profiler_Host_Object* pHostObject;
    const uint8_t* pCounterDataImage;
    size_t counterDataImageSize;
    size_t rangeIndex;
    const char** ppMetricNames;
    size_t numMetrics;
    double* pMetricValues;
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;

#define CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_Initialize_Params)
#define CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_Deinitialize_Params)
#define CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_ConfigAddMetrics_Params)
#define CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_GetConfigImageSize_Params)
#define CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_GetConfigImage_Params)
#define CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_GetNumOfPasses_Params)
#define CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_GetBaseMetrics_Params)
#define CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_GetMetricProperties_Params)
#define CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_GetSubMetrics_Params)
#define CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE sizeof(CUpti_Profiler_Host_EvaluateToGpuValues_Params)

CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p);
CUptiResult cuptiProfilerHostDeinitialize(CUpti_Profiler_Host_Deinitialize_Params* p);
CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params* p);
CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p);
CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params* p);
CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p);
CUptiResult cuptiProfilerHostGetBaseMetrics(CUpti_Profiler_Host_GetBaseMetrics_Params* p);
CUptiResult cuptiProfilerHostGetMetricProperties(CUpti_Profiler_Host_GetMetricProperties_Params* p);
CUptiResult cuptiProfilerHostGetSubMetrics(CUpti_Profiler_Host_GetSubMetrics_Params* p);
CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p);

#ifdef __cplusplus
}
#endif
