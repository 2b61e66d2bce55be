/* The part of CUPTI that tool/cuda/check.* and window_lock.* use (the profiler's parts are in the cupti_*.h beside it), for tests without a CUDA toolkit (see cuda.h here). */
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

typedef unsigned int CUpti_CallbackId;

/* The driver callback ids tool/cuda/window_lock.* names (values are the fake's own). */
enum {
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy = 1000,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds = 1001,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2 = 1002,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds = 1003,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2 = 1004,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds = 1005,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2 = 1006,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds = 1007,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2 = 1008,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2_ptds = 1009,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2 = 1010,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2_ptds = 1011,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2 = 1012,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2_ptds = 1013,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2 = 1014,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2_ptds = 1015,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoA_v2 = 1016,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoA_v2_ptds = 1017,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2 = 1018,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds = 1019,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2 = 1020,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds = 1021,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2 = 1022,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds = 1023,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer = 1024,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds = 1025,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer = 1026,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeer_ptds = 1027,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2 = 1028,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds = 1029,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2 = 1030,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds = 1031,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2 = 1032,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds = 1033,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2 = 1034,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds = 1035,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2 = 1036,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds = 1037,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2 = 1038,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds = 1039,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2 = 1040,
    CUPTI_DRIVER_TRACE_CBID_cuMemUnmap = 1041,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync = 1042,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz = 1043,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2 = 1044,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz = 1045,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2 = 1046,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz = 1047,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2 = 1048,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz = 1049,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2 = 1050,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2_ptsz = 1051,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2 = 1052,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2_ptsz = 1053,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2 = 1054,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz = 1055,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2 = 1056,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz = 1057,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync = 1058,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz = 1059,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync = 1060,
    CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DPeerAsync_ptsz = 1061,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async = 1062,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz = 1063,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async = 1064,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz = 1065,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async = 1066,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz = 1067,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async = 1068,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz = 1069,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async = 1070,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz = 1071,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async = 1072,
    CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz = 1073,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync = 1074,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz = 1075,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel = 1076,
};

CUptiResult cuptiGetResultString(CUptiResult result, const char** str);

#ifdef __cplusplus
}
#endif
