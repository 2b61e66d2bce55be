/* gorocprof's emulation of rocprofiler-sdk: the counter queries the SDK keeps as deprecated (counter
 * info version 1 carries the same data). counters.h includes this file, as the SDK's does. */
#ifndef ROCPROFILER_SDK_DEPRECATED_COUNTERS_H
#define ROCPROFILER_SDK_DEPRECATED_COUNTERS_H

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

rocprofiler_status_t rocprofiler_query_counter_instance_count(rocprofiler_agent_id_t   agent_id,
                                                              rocprofiler_counter_id_t counter_id,
                                                              size_t* instance_count) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_DEPRECATED_COUNTERS_H */
