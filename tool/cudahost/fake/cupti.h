/* The part of CUPTI that tool/cuda/check.* uses (the profiler's parts are in the cupti_*.h beside it), for tests without a CUDA toolkit (see cuda.h here). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUPTI_SUCCESS = 0,
    CUPTI_ERROR_INVALID_PARAMETER = 1,
    CUPTI_ERROR_INVALID_OPERATION = 7,
    CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35
} CUptiResult;

CUptiResult cuptiGetResultString(CUptiResult result, const char** str);

#ifdef __cplusplus
}
#endif
