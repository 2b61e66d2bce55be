/* gorocprof's emulation of rocprofiler-sdk-roctx: the two id types the marker tracing payloads use. */
#ifndef ROCPROFILER_SDK_ROCTX_TYPES_H
#define ROCPROFILER_SDK_ROCTX_TYPES_H

#include <stdint.h>

/* What roctxRangeStartA returns and roctxRangeStop takes. */
typedef uint64_t roctx_range_id_t;
/* An OS thread id, as roctxGetThreadId reports it. */
typedef uint64_t roctx_thread_id_t;

#endif /* ROCPROFILER_SDK_ROCTX_TYPES_H */
