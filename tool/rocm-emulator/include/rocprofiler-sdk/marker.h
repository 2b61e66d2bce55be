/* gorocprof's emulation of rocprofiler-sdk: the marker (roctx) tracing declarations. The real header
 * also includes marker/table_id.h (the runtime's dispatch tables), which no tool needs here. */
#ifndef ROCPROFILER_SDK_MARKER_H
#define ROCPROFILER_SDK_MARKER_H

#include <rocprofiler-sdk/marker/api_args.h>
#include <rocprofiler-sdk/marker/api_id.h>

#endif /* ROCPROFILER_SDK_MARKER_H */
