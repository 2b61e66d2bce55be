/* gorocprof's emulation of rocprofiler-sdk: counter configurations (one agent, one hardware pass). */
#ifndef ROCPROFILER_SDK_COUNTER_CONFIG_H
#define ROCPROFILER_SDK_COUNTER_CONFIG_H

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/* *config_id is in/out: a non-zero handle adds that config's counters to the new one, so zero it
 * first. A group that does not fit one pass: ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT. */
rocprofiler_status_t rocprofiler_create_counter_config(rocprofiler_agent_id_t           agent_id,
                                                       rocprofiler_counter_id_t*        counters_list,
                                                       size_t                           counters_count,
                                                       rocprofiler_counter_config_id_t* config_id) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_destroy_counter_config(rocprofiler_counter_config_id_t config_id) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_COUNTER_CONFIG_H */
