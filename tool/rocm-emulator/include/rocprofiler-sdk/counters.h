/* gorocprof's emulation of rocprofiler-sdk: counters, their dimensions and instances. */
#ifndef ROCPROFILER_SDK_COUNTERS_H
#define ROCPROFILER_SDK_COUNTERS_H

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/deprecated/counters.h>

ROCPROFILER_EXTERN_C_INIT

typedef struct rocprofiler_counter_info_v0_t
{
    rocprofiler_counter_id_t id;
    const char*              name;
    const char*              description;
    const char*              block;      /* base counters */
    const char*              expression; /* derived counters */
    uint8_t                  is_constant : 1;
    uint8_t                  is_derived : 1;
} rocprofiler_counter_info_v0_t;

typedef struct rocprofiler_counter_dimension_info_t
{
    uint64_t    size;
    const char* dimension_name;
    size_t      index;
} rocprofiler_counter_dimension_info_t;

typedef struct rocprofiler_counter_record_dimension_instance_info_t
{
    uint64_t                                     size;
    rocprofiler_counter_instance_id_t            instance_id;
    uint64_t                                     counter_id;
    uint64_t                                     dimensions_count;
    const rocprofiler_counter_dimension_info_t** dimensions;
} rocprofiler_counter_record_dimension_instance_info_t;

typedef struct rocprofiler_counter_info_v1_t
{
    uint64_t                 size;
    rocprofiler_counter_id_t id;
    const char*              name;
    const char*              description;
    const char*              block;
    const char*              expression;
    uint8_t                  is_constant : 1;
    uint8_t                  is_derived : 1;
    uint64_t                 dimensions_count;
    /* read as dimensions_count structs from dimensions[0] (contiguous) */
    const rocprofiler_counter_record_dimension_info_t**          dimensions;
    uint64_t                                                     dimensions_instances_count;
    const rocprofiler_counter_record_dimension_instance_info_t** dimensions_instances;
} rocprofiler_counter_info_v1_t;

typedef rocprofiler_status_t (*rocprofiler_available_counters_cb_t)(rocprofiler_agent_id_t    agent_id,
                                                                    rocprofiler_counter_id_t* counters,
                                                                    size_t                    num_counters,
                                                                    void*                     user_data);

rocprofiler_status_t rocprofiler_iterate_agent_supported_counters(rocprofiler_agent_id_t              agent_id,
                                                                  rocprofiler_available_counters_cb_t cb,
                                                                  void* user_data) ROCPROFILER_API;

/* `info` points to a v0 or v1 struct as `version` says. */
rocprofiler_status_t rocprofiler_query_counter_info(rocprofiler_counter_id_t              counter_id,
                                                    rocprofiler_counter_info_version_id_t version,
                                                    void*                                 info) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_query_record_counter_id(rocprofiler_counter_instance_id_t id,
                                                         rocprofiler_counter_id_t* counter_id) ROCPROFILER_API;

/* Position of the record on dimension `dim` (0 when the counter lacks it). */
rocprofiler_status_t rocprofiler_query_record_dimension_position(rocprofiler_counter_instance_id_t  id,
                                                                 rocprofiler_counter_dimension_id_t dim,
                                                                 size_t* pos) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_COUNTERS_H */
