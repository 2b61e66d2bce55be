/* gorocprof's emulation of rocprofiler-sdk: the operations of the marker (roctx) tracing kinds.
 * Every enum starts at -1 (NONE) and numbers the functions from 0, as the SDK's. */
#ifndef ROCPROFILER_SDK_MARKER_API_ID_H
#define ROCPROFILER_SDK_MARKER_API_ID_H

/* MARKER_CORE_API: the roctx calls as the application makes them. */
typedef enum rocprofiler_marker_core_api_id_t
{
    ROCPROFILER_MARKER_CORE_API_ID_NONE       = -1,
    ROCPROFILER_MARKER_CORE_API_ID_roctxMarkA = 0,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangePushA,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangePop,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStartA,
    ROCPROFILER_MARKER_CORE_API_ID_roctxRangeStop,
    ROCPROFILER_MARKER_CORE_API_ID_roctxGetThreadId,
    ROCPROFILER_MARKER_CORE_API_ID_LAST
} rocprofiler_marker_core_api_id_t;

typedef enum rocprofiler_marker_control_api_id_t
{
    ROCPROFILER_MARKER_CONTROL_API_ID_NONE               = -1,
    ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerPause = 0,
    ROCPROFILER_MARKER_CONTROL_API_ID_roctxProfilerResume,
    ROCPROFILER_MARKER_CONTROL_API_ID_LAST
} rocprofiler_marker_control_api_id_t;

typedef enum rocprofiler_marker_name_api_id_t
{
    ROCPROFILER_MARKER_NAME_API_ID_NONE              = -1,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameOsThread = 0,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameHsaAgent,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipDevice,
    ROCPROFILER_MARKER_NAME_API_ID_roctxNameHipStream,
    ROCPROFILER_MARKER_NAME_API_ID_LAST
} rocprofiler_marker_name_api_id_t;

/* MARKER_CORE_RANGE_API: the SDK pairs a push with its pop (roctxThreadRangeA, ENTER at the push, EXIT
 * at the pop) and a start with its stop (roctxProcessRangeA); a mark is roctxMarkA. */
typedef enum rocprofiler_marker_core_range_api_id_t
{
    ROCPROFILER_MARKER_CORE_RANGE_API_ID_NONE       = -1,
    ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxMarkA = 0,
    ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxThreadRangeA,
    ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxProcessRangeA,
    ROCPROFILER_MARKER_CORE_RANGE_API_ID_roctxGetThreadId,
    ROCPROFILER_MARKER_CORE_RANGE_API_ID_LAST
} rocprofiler_marker_core_range_api_id_t;

#endif /* ROCPROFILER_SDK_MARKER_API_ID_H */
