/* gorocprof's emulation of rocprofiler-sdk: callback tracing (code objects, markers, kernel replay). */
#ifndef ROCPROFILER_SDK_CALLBACK_TRACING_H
#define ROCPROFILER_SDK_CALLBACK_TRACING_H

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>
#include <rocprofiler-sdk/marker.h>

ROCPROFILER_EXTERN_C_INIT

/* Payload of CODE_OBJECT / DEVICE_KERNEL_SYMBOL_REGISTER (phase LOAD or UNLOAD). */
typedef struct rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t
{
    uint64_t              size;
    uint64_t              kernel_id;
    uint64_t              code_object_id;
    const char*           kernel_name; /* mangled */
    uint64_t              kernel_object;
    uint32_t              kernarg_segment_size;
    uint32_t              kernarg_segment_alignment;
    uint32_t              group_segment_size;
    uint32_t              private_segment_size;
    uint32_t              sgpr_count;
    uint32_t              arch_vgpr_count;
    uint32_t              accum_vgpr_count;
    int64_t               kernel_code_entry_byte_offset;
    rocprofiler_address_t kernel_address;
} rocprofiler_callback_tracing_code_object_kernel_symbol_register_data_t;

/* Payload of the marker kinds (MARKER_CORE_API, MARKER_CORE_RANGE_API, ...): the roctx call's
 * arguments and, at EXIT, its return value. */
typedef struct rocprofiler_callback_tracing_marker_api_data_t
{
    uint64_t                        size;
    rocprofiler_marker_api_args_t   args;
    rocprofiler_marker_api_retval_t retval;
} rocprofiler_callback_tracing_marker_api_data_t;

typedef void (*rocprofiler_callback_tracing_cb_t)(rocprofiler_callback_tracing_record_t record,
                                                  rocprofiler_user_data_t*              user_data,
                                                  void*                                 callback_data);

typedef int (*rocprofiler_callback_tracing_kind_cb_t)(rocprofiler_callback_tracing_kind_t kind, void* data);
typedef int (*rocprofiler_callback_tracing_kind_operation_cb_t)(rocprofiler_callback_tracing_kind_t kind,
                                                                rocprofiler_tracing_operation_t     operation,
                                                                void*                               data);

/* operations == NULL: every operation. The same kind twice in one context:
 * ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED. */
rocprofiler_status_t rocprofiler_configure_callback_tracing_service(rocprofiler_context_id_t               context_id,
                                                                    rocprofiler_callback_tracing_kind_t    kind,
                                                                    const rocprofiler_tracing_operation_t* operations,
                                                                    size_t                            operations_count,
                                                                    rocprofiler_callback_tracing_cb_t callback,
                                                                    void* callback_args) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_query_callback_tracing_kind_name(rocprofiler_callback_tracing_kind_t kind,
                                                                  const char**                        name,
                                                                  uint64_t* name_len) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_query_callback_tracing_kind_operation_name(
    rocprofiler_callback_tracing_kind_t kind,
    rocprofiler_tracing_operation_t     operation,
    const char**                        name,
    uint64_t*                           name_len) ROCPROFILER_API;

/* The callback returns non-zero to stop the iteration. */
rocprofiler_status_t rocprofiler_iterate_callback_tracing_kinds(rocprofiler_callback_tracing_kind_cb_t callback,
                                                                void* data) ROCPROFILER_API;

rocprofiler_status_t rocprofiler_iterate_callback_tracing_kind_operations(
    rocprofiler_callback_tracing_kind_t              kind,
    rocprofiler_callback_tracing_kind_operation_cb_t callback,
    void*                                            data) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_CALLBACK_TRACING_H */
