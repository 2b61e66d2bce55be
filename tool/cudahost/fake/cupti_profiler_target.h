/* The part of CUPTI's profiler target API that tool/cuda/metric_host.cpp uses (counter availability), for
 * tests without a CUDA toolkit (fake_cupti.cpp implements it). */
#pragma once

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t structSize;
    void* pPriv;
    CUcontext ctx;
    size_t counterAvailabilityImageSize;
    uint8_t* pCounterAvailabilityImage;
} CUpti_Profiler_GetCounterAvailability_Params;
#define CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE sizeof(CUpti_Profiler_GetCounterAvailability_Params)

CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p);

#ifdef __cplusplus
}
#endif
