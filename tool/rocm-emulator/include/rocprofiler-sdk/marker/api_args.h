/* gorocprof's emulation of rocprofiler-sdk: the arguments and return values of the marker (roctx)
 * calls, as the marker tracing payloads carry them (one member per function, 16 bytes in all). */
#ifndef ROCPROFILER_SDK_MARKER_API_ARGS_H
#define ROCPROFILER_SDK_MARKER_API_ARGS_H

#include <rocprofiler-sdk/defines.h>

#include <rocprofiler-sdk-roctx/types.h>

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/* A function without arguments still has a member (C has no empty structs). */
typedef struct rocprofiler_marker_api_no_args
{
    char empty;
} rocprofiler_marker_api_no_args;

typedef union rocprofiler_marker_api_retval_t
{
    int32_t          int32_t_retval;
    int64_t          int64_t_retval;
    roctx_range_id_t roctx_range_id_t_retval;
} rocprofiler_marker_api_retval_t;

typedef union rocprofiler_marker_api_args_t
{
    struct { const char* message; } roctxMarkA;
    struct { const char* message; } roctxRangePushA;
    struct { rocprofiler_marker_api_no_args no_args; } roctxRangePop;
    struct { const char* message; } roctxRangeStartA;
    struct { roctx_range_id_t id; } roctxRangeStop;
    struct { roctx_thread_id_t* tid; } roctxGetThreadId;
    struct { roctx_thread_id_t tid; } roctxProfilerPause;
    struct { roctx_thread_id_t tid; } roctxProfilerResume;
    struct { const char* name; } roctxNameOsThread;
    struct
    {
        const char*               name;
        const struct hsa_agent_s* agent;
    } roctxNameHsaAgent;
    struct
    {
        const char* name;
        int         device_id;
    } roctxNameHipDevice;
    struct
    {
        const char*                name;
        const struct ihipStream_t* stream;
    } roctxNameHipStream;
    struct { const char* message; } roctxThreadRangeA;  /* MARKER_CORE_RANGE_API */
    struct { const char* message; } roctxProcessRangeA; /* MARKER_CORE_RANGE_API */
} rocprofiler_marker_api_args_t;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_MARKER_API_ARGS_H */
