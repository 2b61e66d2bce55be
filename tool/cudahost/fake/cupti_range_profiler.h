/* The part of CUPTI's Range Profiler API that tool/cuda/range_counters.* uses, for tests without a CUDA
 * toolkit (fake_cupti.cpp implements it, with the H200's behaviour that matters to the tool: an object keeps
 * the first configuration it was given). Member names follow CUPTI's; only those the tool uses are here. */
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CUpti_RangeProfiler_Object CUpti_RangeProfiler_Object;
typedef enum { CUPTI_AutoRange = 1, CUPTI_UserRange = 2 } CUpti_ProfilerRange;
typedef enum { CUPTI_KernelReplay = 1, CUPTI_UserReplay = 2 } CUpti_ProfilerReplayMode;

typedef struct {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
} CUpti_RangeProfiler_Enable_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
} CUpti_RangeProfiler_Disable_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    const char** pMetricNames;
    size_t numMetrics;
    size_t maxNumOfRanges;
    uint32_t maxNumRangeTreeNodes;
    size_t counterDataSize;
} CUpti_RangeProfiler_GetCounterDataSize_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t counterDataSize;
    uint8_t* pCounterData;
} CUpti_RangeProfiler_CounterDataImage_Initialize_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t configSize;
    const uint8_t* pConfig;
    size_t counterDataImageSize;
    uint8_t* pCounterDataImage;
    CUpti_ProfilerRange range;
    CUpti_ProfilerReplayMode replayMode;
    size_t maxRangesPerPass;
    uint16_t numNestingLevels;
    uint16_t minNestingLevel;
    size_t passIndex;
    uint16_t targetNestingLevel;
} CUpti_RangeProfiler_SetConfig_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
} CUpti_RangeProfiler_Start_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t passIndex;
    size_t targetNestingLevel;
    uint8_t isAllPassSubmitted;
} CUpti_RangeProfiler_Stop_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    size_t numOfRangeDropped;
} CUpti_RangeProfiler_DecodeData_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    const uint8_t* pCounterDataImage;
    size_t counterDataImageSize;
    size_t numTotalRanges;
} CUpti_RangeProfiler_GetCounterDataInfo_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
    const char* pRangeName;
} CUpti_RangeProfiler_PushRange_Params;
typedef struct {
    size_t structSize;
    void* pPriv;
    CUpti_RangeProfiler_Object* pRangeProfilerObject;
} CUpti_RangeProfiler_PopRange_Params;

#define CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_Enable_Params)
#define CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_Disable_Params)
#define CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_GetCounterDataSize_Params)
#define CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE \
    sizeof(CUpti_RangeProfiler_CounterDataImage_Initialize_Params)
#define CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_SetConfig_Params)
#define CUpti_RangeProfiler_Start_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_Start_Params)
#define CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_Stop_Params)
#define CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_DecodeData_Params)
#define CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_GetCounterDataInfo_Params)
#define CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_PushRange_Params)
#define CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE sizeof(CUpti_RangeProfiler_PopRange_Params)

CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p);
CUptiResult cuptiRangeProfilerDisable(CUpti_RangeProfiler_Disable_Params* p);
CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p);
CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params* p);
CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p);
CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params* p);
CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p);
CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p);
CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p);
CUptiResult cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params* p);
CUptiResult cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params* p);

#ifdef __cplusplus
}
#endif
