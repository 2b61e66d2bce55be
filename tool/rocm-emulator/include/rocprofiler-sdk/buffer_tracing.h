/* gorocprof's emulation of rocprofiler-sdk: buffer tracing, the records of the API, marker, memory
 * copy and kernel dispatch kinds that a buffer collects (header category TRACING, kind the
 * rocprofiler_buffer_tracing_kind_t). Only the records without the calls' arguments are declared: the
 * _EXT kinds' records embed the HIP argument unions. */
#ifndef ROCPROFILER_SDK_BUFFER_TRACING_H
#define ROCPROFILER_SDK_BUFFER_TRACING_H

#include <rocprofiler-sdk/agent.h>
#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

/* HSA_CORE_API, HSA_AMD_EXT_API, HSA_IMAGE_EXT_API, HSA_FINALIZE_EXT_API: one call, 64 bytes. */
typedef struct rocprofiler_buffer_tracing_hsa_api_record_t
{
    uint64_t                          size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t   operation;
    rocprofiler_correlation_id_t      correlation_id;
    rocprofiler_timestamp_t           start_timestamp; /* ns */
    rocprofiler_timestamp_t           end_timestamp;
    rocprofiler_thread_id_t           thread_id; /* the calling thread */
} rocprofiler_buffer_tracing_hsa_api_record_t;

/* HIP_RUNTIME_API, HIP_COMPILER_API: one call, the same layout. */
typedef struct rocprofiler_buffer_tracing_hip_api_record_t
{
    uint64_t                          size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t   operation;
    rocprofiler_correlation_id_t      correlation_id;
    rocprofiler_timestamp_t           start_timestamp;
    rocprofiler_timestamp_t           end_timestamp;
    rocprofiler_thread_id_t           thread_id;
} rocprofiler_buffer_tracing_hip_api_record_t;

/* MARKER_CORE_API, MARKER_CONTROL_API, MARKER_NAME_API, MARKER_CORE_RANGE_API. */
typedef struct rocprofiler_buffer_tracing_marker_api_record_t
{
    uint64_t                          size;
    rocprofiler_buffer_tracing_kind_t kind;
    rocprofiler_tracing_operation_t   operation;
    rocprofiler_correlation_id_t      correlation_id;
    rocprofiler_timestamp_t           start_timestamp;
    rocprofiler_timestamp_t           end_timestamp;
    rocprofiler_thread_id_t           thread_id;
} rocprofiler_buffer_tracing_marker_api_record_t;

/* MEMORY_COPY: one copy, 96 bytes. The correlation id is the call's that issued it; the times are the
 * copy's own; a host side is the CPU agent. */
typedef struct rocprofiler_buffer_tracing_memory_copy_record_t
{
    uint64_t                            size;
    rocprofiler_buffer_tracing_kind_t   kind;
    rocprofiler_memory_copy_operation_t operation;
    rocprofiler_async_correlation_id_t  correlation_id;
    rocprofiler_thread_id_t             thread_id; /* the thread that issued the copy */
    rocprofiler_timestamp_t             start_timestamp;
    rocprofiler_timestamp_t             end_timestamp;
    rocprofiler_agent_id_t              dst_agent_id;
    rocprofiler_agent_id_t              src_agent_id;
    uint64_t                            bytes;
    rocprofiler_address_t               dst_address;
    rocprofiler_address_t               src_address;
} rocprofiler_buffer_tracing_memory_copy_record_t;

/* KERNEL_DISPATCH: one execution of a dispatch (operation COMPLETE), with the kernel's own times. The
 * correlation id is the launching call's; under kernel replay each pass is one record. */
typedef struct rocprofiler_buffer_tracing_kernel_dispatch_record_t
{
    uint64_t                                size;
    rocprofiler_buffer_tracing_kind_t       kind;
    rocprofiler_kernel_dispatch_operation_t operation;
    rocprofiler_async_correlation_id_t      correlation_id;
    rocprofiler_thread_id_t                 thread_id; /* the thread that launched the kernel */
    rocprofiler_timestamp_t                 start_timestamp;
    rocprofiler_timestamp_t                 end_timestamp;
    rocprofiler_kernel_dispatch_info_t      dispatch_info;
} rocprofiler_buffer_tracing_kernel_dispatch_record_t;

typedef int (*rocprofiler_buffer_tracing_kind_cb_t)(rocprofiler_buffer_tracing_kind_t kind, void* data);
typedef int (*rocprofiler_buffer_tracing_kind_operation_cb_t)(rocprofiler_buffer_tracing_kind_t kind,
                                                              rocprofiler_tracing_operation_t   operation,
                                                              void*                             data);

/* operations == NULL: every operation of the kind. The same kind twice in one context:
 * ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED. */
rocprofiler_status_t rocprofiler_configure_buffer_tracing_service(rocprofiler_context_id_t               context_id,
                                                                  rocprofiler_buffer_tracing_kind_t      kind,
                                                                  const rocprofiler_tracing_operation_t* operations,
                                                                  size_t                  operations_count,
                                                                  rocprofiler_buffer_id_t buffer_id) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_name(rocprofiler_buffer_tracing_kind_t kind,
                                                                const char**                      name,
                                                                uint64_t* name_len) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_query_buffer_tracing_kind_operation_name(rocprofiler_buffer_tracing_kind_t kind,
                                                                          rocprofiler_tracing_operation_t   operation,
                                                                          const char**                      name,
                                                                          uint64_t* name_len) ROCPROFILER_API;

/* The callback returns non-zero to stop the iteration. */
rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kinds(rocprofiler_buffer_tracing_kind_cb_t callback,
                                                              void* data) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_iterate_buffer_tracing_kind_operations(
    rocprofiler_buffer_tracing_kind_t              kind,
    rocprofiler_buffer_tracing_kind_operation_cb_t callback,
    void*                                          data) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_BUFFER_TRACING_H */
