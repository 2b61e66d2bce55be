/* The part of CUPTI that tool/cuda/check.* uses, for tests without a CUDA toolkit (see cuda.h here). */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { CUPTI_SUCCESS = 0, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES = 35 } CUptiResult;

CUptiResult cuptiGetResultString(CUptiResult result, const char** str);

#ifdef __cplusplus
}
#endif
