/* gorocprof's emulation of rocprofiler-sdk: per-dispatch counter collection. */
#ifndef ROCPROFILER_SDK_DISPATCH_COUNTING_SERVICE_H
#define ROCPROFILER_SDK_DISPATCH_COUNTING_SERVICE_H

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/counter_config.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

typedef struct rocprofiler_dispatch_counting_service_data_t
{
    uint64_t                           size;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_timestamp_t            start_timestamp; /* ns */
    rocprofiler_timestamp_t            end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_dispatch_counting_service_data_t;

/* Header record of buffered mode (kind ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER). */
typedef struct rocprofiler_dispatch_counting_service_record_t
{
    uint64_t                           size;
    uint64_t                           num_records;
    rocprofiler_async_correlation_id_t correlation_id;
    rocprofiler_timestamp_t            start_timestamp;
    rocprofiler_timestamp_t            end_timestamp;
    rocprofiler_kernel_dispatch_info_t dispatch_info;
} rocprofiler_dispatch_counting_service_record_t;

/* Before the kernel is enqueued: *config handle 0 collects nothing; *user_data returns in the record
 * callback. */
typedef void (*rocprofiler_dispatch_counting_service_cb_t)(rocprofiler_dispatch_counting_service_data_t dispatch_data,
                                                           rocprofiler_counter_config_id_t*             config,
                                                           rocprofiler_user_data_t*                     user_data,
                                                           void* callback_data_args);

/* After the kernel completed. */
typedef void (*rocprofiler_dispatch_counting_record_cb_t)(rocprofiler_dispatch_counting_service_data_t dispatch_data,
                                                          rocprofiler_counter_record_t*                record_data,
                                                          size_t                                       record_count,
                                                          rocprofiler_user_data_t                      user_data,
                                                          void* callback_data_args);

rocprofiler_status_t rocprofiler_configure_callback_dispatch_counting_service(
    rocprofiler_context_id_t                   context_id,
    rocprofiler_dispatch_counting_service_cb_t dispatch_callback,
    void*                                      dispatch_callback_args,
    rocprofiler_dispatch_counting_record_cb_t  record_callback,
    void*                                      record_callback_args) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_DISPATCH_COUNTING_SERVICE_H */
