/* gorocprof's emulation of rocprofiler-sdk: the umbrella header, plus version, status and time. Like
 * the SDK's it does not include registration.h: a tool that defines rocprofiler_configure includes
 * that itself. */
#ifndef ROCPROFILER_SDK_ROCPROFILER_H
#define ROCPROFILER_SDK_ROCPROFILER_H

#include <stddef.h>
#include <stdint.h>

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/version.h>

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/buffer.h>
#include <rocprofiler-sdk/buffer_tracing.h>
#include <rocprofiler-sdk/callback_tracing.h>
#include <rocprofiler-sdk/context.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/counters.h>
#include <rocprofiler-sdk/dispatch_counting_service.h>
#include <rocprofiler-sdk/marker.h>

ROCPROFILER_EXTERN_C_INIT

rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor, uint32_t* patch) ROCPROFILER_API;
rocprofiler_status_t rocprofiler_get_version_triplet(rocprofiler_version_triplet_t* info) ROCPROFILER_API;
const char* rocprofiler_get_status_name(rocprofiler_status_t status) ROCPROFILER_API;
const char* rocprofiler_get_status_string(rocprofiler_status_t status) ROCPROFILER_API;
/* ns, on the clock of the SDK's records */
rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts) ROCPROFILER_API;
rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_ROCPROFILER_H */
