/*
 * gorocprof's emulation of rocprofiler-sdk: enums, ids and the records every service shares.
 * Enumerator values and struct layouts follow the SDK's documented ABI (LP64).
 */
#ifndef ROCPROFILER_SDK_FWD_H
#define ROCPROFILER_SDK_FWD_H

#include <rocprofiler-sdk/defines.h>

#include <stddef.h>
#include <stdint.h>

ROCPROFILER_EXTERN_C_INIT

typedef enum rocprofiler_status_t
{
    ROCPROFILER_STATUS_SUCCESS = 0,
    ROCPROFILER_STATUS_ERROR,
    ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_BUFFER_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_THREAD_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR,
    ROCPROFILER_STATUS_ERROR_CONTEXT_INVALID, /* 10 */
    ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_STARTED,
    ROCPROFILER_STATUS_ERROR_CONTEXT_CONFLICT,
    ROCPROFILER_STATUS_ERROR_CONTEXT_ID_NOT_ZERO,
    ROCPROFILER_STATUS_ERROR_BUFFER_BUSY,
    ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED, /* 15 */
    ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED,
    ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED,
    ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_ABI,
    ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT,
    ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT, /* 20 */
    ROCPROFILER_STATUS_ERROR_FINALIZED,
    ROCPROFILER_STATUS_ERROR_HSA_NOT_LOADED,
    ROCPROFILER_STATUS_ERROR_DIM_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_PROFILE_COUNTER_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_AST_GENERATION_FAILED, /* 25 */
    ROCPROFILER_STATUS_ERROR_AST_NOT_FOUND,
    ROCPROFILER_STATUS_ERROR_AQL_NO_EVENT_COORD,
    ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_KERNEL,
    ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES,
    ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND, /* 30 */
    ROCPROFILER_STATUS_ERROR_AGENT_DISPATCH_CONFLICT,
    ROCPROFILER_STATUS_INTERNAL_NO_AGENT_CONTEXT,
    ROCPROFILER_STATUS_ERROR_SAMPLE_RATE_EXCEEDED,
    ROCPROFILER_STATUS_ERROR_NO_PROFILE_QUEUE,
    ROCPROFILER_STATUS_ERROR_NO_HARDWARE_COUNTERS, /* 35 */
    ROCPROFILER_STATUS_ERROR_AGENT_MISMATCH,
    ROCPROFILER_STATUS_ERROR_NOT_AVAILABLE,
    ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT,
    ROCPROFILER_STATUS_ERROR_AGENT_ARCH_NOT_SUPPORTED,
    ROCPROFILER_STATUS_ERROR_PERMISSION_DENIED, /* 40 */
    ROCPROFILER_STATUS_ERROR_INCOMPATIBLE_REGISTER_VERSION,
    ROCPROFILER_STATUS_LAST,
    /* the 2025 name of value 30 */
    ROCPROFILER_STATUS_ERROR_PROFILE_NOT_FOUND = ROCPROFILER_STATUS_ERROR_CONFIG_NOT_FOUND
} rocprofiler_status_t;

typedef enum rocprofiler_agent_type_t
{
    ROCPROFILER_AGENT_TYPE_NONE = 0,
    ROCPROFILER_AGENT_TYPE_CPU,
    ROCPROFILER_AGENT_TYPE_GPU,
    ROCPROFILER_AGENT_TYPE_LAST
} rocprofiler_agent_type_t;

typedef enum rocprofiler_callback_phase_t
{
    ROCPROFILER_CALLBACK_PHASE_NONE = 0,
    ROCPROFILER_CALLBACK_PHASE_ENTER,
    ROCPROFILER_CALLBACK_PHASE_LOAD = ROCPROFILER_CALLBACK_PHASE_ENTER,
    ROCPROFILER_CALLBACK_PHASE_EXIT,
    ROCPROFILER_CALLBACK_PHASE_UNLOAD = ROCPROFILER_CALLBACK_PHASE_EXIT,
    ROCPROFILER_CALLBACK_PHASE_LAST
} rocprofiler_callback_phase_t;

/* The 1.4 numbering: HIP_GRAPH 22, KERNEL_REPLAY 23. Other SDK builds number KERNEL_REPLAY
 * differently (or lack it), so a tool looks the kind up by name ("KERNEL_REPLAY") at run time. */
typedef enum rocprofiler_callback_tracing_kind_t
{
    ROCPROFILER_CALLBACK_TRACING_NONE = 0,
    ROCPROFILER_CALLBACK_TRACING_HSA_CORE_API,
    ROCPROFILER_CALLBACK_TRACING_HSA_AMD_EXT_API,
    ROCPROFILER_CALLBACK_TRACING_HSA_IMAGE_EXT_API,
    ROCPROFILER_CALLBACK_TRACING_HSA_FINALIZE_EXT_API,
    ROCPROFILER_CALLBACK_TRACING_HIP_RUNTIME_API, /* 5 */
    ROCPROFILER_CALLBACK_TRACING_HIP_COMPILER_API,
    ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_API,
    ROCPROFILER_CALLBACK_TRACING_MARKER_CONTROL_API,
    ROCPROFILER_CALLBACK_TRACING_MARKER_NAME_API,
    ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT, /* 10 */
    ROCPROFILER_CALLBACK_TRACING_SCRATCH_MEMORY,
    ROCPROFILER_CALLBACK_TRACING_KERNEL_DISPATCH,
    ROCPROFILER_CALLBACK_TRACING_MEMORY_COPY,
    ROCPROFILER_CALLBACK_TRACING_RCCL_API,
    ROCPROFILER_CALLBACK_TRACING_OMPT, /* 15 */
    ROCPROFILER_CALLBACK_TRACING_MEMORY_ALLOCATION,
    ROCPROFILER_CALLBACK_TRACING_RUNTIME_INITIALIZATION,
    ROCPROFILER_CALLBACK_TRACING_ROCDECODE_API,
    ROCPROFILER_CALLBACK_TRACING_ROCJPEG_API,
    ROCPROFILER_CALLBACK_TRACING_HIP_STREAM, /* 20 */
    ROCPROFILER_CALLBACK_TRACING_MARKER_CORE_RANGE_API,
    ROCPROFILER_CALLBACK_TRACING_HIP_GRAPH,
    ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, /* 23, see above */
    ROCPROFILER_CALLBACK_TRACING_LAST
} rocprofiler_callback_tracing_kind_t;

/* The numbering of the public tree (ROCm/rocm-systems): MEMORY_COPY 10, MARKER_CORE_RANGE_API 32. */
typedef enum rocprofiler_buffer_tracing_kind_t
{
    ROCPROFILER_BUFFER_TRACING_NONE = 0,
    ROCPROFILER_BUFFER_TRACING_HSA_CORE_API,
    ROCPROFILER_BUFFER_TRACING_HSA_AMD_EXT_API,
    ROCPROFILER_BUFFER_TRACING_HSA_IMAGE_EXT_API,
    ROCPROFILER_BUFFER_TRACING_HSA_FINALIZE_EXT_API,
    ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API, /* 5 */
    ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API,
    ROCPROFILER_BUFFER_TRACING_MARKER_CORE_API,
    ROCPROFILER_BUFFER_TRACING_MARKER_CONTROL_API,
    ROCPROFILER_BUFFER_TRACING_MARKER_NAME_API,
    ROCPROFILER_BUFFER_TRACING_MEMORY_COPY, /* 10 */
    ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH,
    ROCPROFILER_BUFFER_TRACING_SCRATCH_MEMORY,
    ROCPROFILER_BUFFER_TRACING_CORRELATION_ID_RETIREMENT,
    ROCPROFILER_BUFFER_TRACING_RCCL_API,
    ROCPROFILER_BUFFER_TRACING_OMPT, /* 15 */
    ROCPROFILER_BUFFER_TRACING_MEMORY_ALLOCATION,
    ROCPROFILER_BUFFER_TRACING_RUNTIME_INITIALIZATION,
    ROCPROFILER_BUFFER_TRACING_ROCDECODE_API,
    ROCPROFILER_BUFFER_TRACING_ROCJPEG_API,
    ROCPROFILER_BUFFER_TRACING_HIP_STREAM, /* 20 */
    ROCPROFILER_BUFFER_TRACING_HIP_RUNTIME_API_EXT,
    ROCPROFILER_BUFFER_TRACING_HIP_COMPILER_API_EXT,
    ROCPROFILER_BUFFER_TRACING_ROCDECODE_API_EXT,
    ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_MIGRATE,
    ROCPROFILER_BUFFER_TRACING_KFD_EVENT_PAGE_FAULT, /* 25 */
    ROCPROFILER_BUFFER_TRACING_KFD_EVENT_QUEUE,
    ROCPROFILER_BUFFER_TRACING_KFD_EVENT_UNMAP_FROM_GPU,
    ROCPROFILER_BUFFER_TRACING_KFD_EVENT_DROPPED_EVENTS,
    ROCPROFILER_BUFFER_TRACING_KFD_PAGE_MIGRATE,
    ROCPROFILER_BUFFER_TRACING_KFD_PAGE_FAULT, /* 30 */
    ROCPROFILER_BUFFER_TRACING_KFD_QUEUE,
    ROCPROFILER_BUFFER_TRACING_MARKER_CORE_RANGE_API,
    ROCPROFILER_BUFFER_TRACING_LAST,
} rocprofiler_buffer_tracing_kind_t;

typedef enum rocprofiler_memory_copy_operation_t
{
    ROCPROFILER_MEMORY_COPY_NONE = 0,
    ROCPROFILER_MEMORY_COPY_HOST_TO_HOST,
    ROCPROFILER_MEMORY_COPY_HOST_TO_DEVICE,
    ROCPROFILER_MEMORY_COPY_DEVICE_TO_HOST,
    ROCPROFILER_MEMORY_COPY_DEVICE_TO_DEVICE,
    ROCPROFILER_MEMORY_COPY_LAST
} rocprofiler_memory_copy_operation_t;

typedef enum rocprofiler_kernel_replay_operation_t
{
    ROCPROFILER_KERNEL_REPLAY_NONE = 0,
    ROCPROFILER_KERNEL_REPLAY_CONFIG,
    ROCPROFILER_KERNEL_REPLAY_PASS,
    ROCPROFILER_KERNEL_REPLAY_LAST
} rocprofiler_kernel_replay_operation_t;

typedef enum rocprofiler_code_object_operation_t
{
    ROCPROFILER_CODE_OBJECT_NONE = 0,
    ROCPROFILER_CODE_OBJECT_LOAD,
    ROCPROFILER_CODE_OBJECT_DEVICE_KERNEL_SYMBOL_REGISTER,
    ROCPROFILER_CODE_OBJECT_HOST_KERNEL_SYMBOL_REGISTER,
    ROCPROFILER_CODE_OBJECT_LAST
} rocprofiler_code_object_operation_t;

typedef enum rocprofiler_kernel_dispatch_operation_t
{
    ROCPROFILER_KERNEL_DISPATCH_NONE = 0,
    ROCPROFILER_KERNEL_DISPATCH_ENQUEUE,
    ROCPROFILER_KERNEL_DISPATCH_COMPLETE,
    ROCPROFILER_KERNEL_DISPATCH_LAST
} rocprofiler_kernel_dispatch_operation_t;

typedef enum rocprofiler_counter_info_version_id_t
{
    ROCPROFILER_COUNTER_INFO_VERSION_NONE = 0,
    ROCPROFILER_COUNTER_INFO_VERSION_0,
    ROCPROFILER_COUNTER_INFO_VERSION_1,
    ROCPROFILER_COUNTER_INFO_VERSION_LAST
} rocprofiler_counter_info_version_id_t;

typedef enum rocprofiler_buffer_category_t
{
    ROCPROFILER_BUFFER_CATEGORY_NONE = 0,
    ROCPROFILER_BUFFER_CATEGORY_TRACING,
    ROCPROFILER_BUFFER_CATEGORY_PC_SAMPLING,
    ROCPROFILER_BUFFER_CATEGORY_COUNTERS,
    ROCPROFILER_BUFFER_CATEGORY_LAST
} rocprofiler_buffer_category_t;

typedef enum rocprofiler_counter_record_kind_t
{
    ROCPROFILER_COUNTER_RECORD_NONE = 0,
    ROCPROFILER_COUNTER_RECORD_PROFILE_COUNTING_DISPATCH_HEADER,
    ROCPROFILER_COUNTER_RECORD_VALUE,
    ROCPROFILER_COUNTER_RECORD_LAST
} rocprofiler_counter_record_kind_t;

typedef enum rocprofiler_counter_flag_t
{
    ROCPROFILER_COUNTER_FLAG_NONE = 0,
    ROCPROFILER_COUNTER_FLAG_ASYNC,
    ROCPROFILER_COUNTER_FLAG_APPEND_DEFINITION,
    ROCPROFILER_COUNTER_FLAG_LAST
} rocprofiler_counter_flag_t;

typedef enum rocprofiler_buffer_policy_t
{
    ROCPROFILER_BUFFER_POLICY_NONE = 0,
    ROCPROFILER_BUFFER_POLICY_DISCARD,
    ROCPROFILER_BUFFER_POLICY_LOSSLESS,
    ROCPROFILER_BUFFER_POLICY_LAST
} rocprofiler_buffer_policy_t;

typedef uint64_t rocprofiler_timestamp_t;
typedef uint64_t rocprofiler_thread_id_t;
typedef int32_t  rocprofiler_tracing_operation_t;
typedef uint64_t rocprofiler_counter_instance_id_t;
typedef uint64_t rocprofiler_counter_dimension_id_t;
typedef uint64_t rocprofiler_kernel_id_t;
typedef uint64_t rocprofiler_dispatch_id_t;

typedef struct rocprofiler_context_id_t { uint64_t handle; } rocprofiler_context_id_t;
typedef struct rocprofiler_agent_id_t { uint64_t handle; } rocprofiler_agent_id_t;
typedef struct rocprofiler_queue_id_t { uint64_t handle; } rocprofiler_queue_id_t;
typedef struct rocprofiler_stream_id_t { uint64_t handle; } rocprofiler_stream_id_t;
typedef struct rocprofiler_buffer_id_t { uint64_t handle; } rocprofiler_buffer_id_t;
typedef struct rocprofiler_counter_id_t { uint64_t handle; } rocprofiler_counter_id_t;
typedef struct rocprofiler_counter_config_id_t { uint64_t handle; } rocprofiler_counter_config_id_t;

typedef union rocprofiler_user_data_t
{
    uint64_t value;
    void*    ptr;
} rocprofiler_user_data_t;

typedef union rocprofiler_address_t
{
    uint64_t    handle;
    uint64_t    value;
    const void* ptr;
} rocprofiler_address_t;

typedef struct rocprofiler_dim3_t
{
    uint32_t x;
    uint32_t y;
    uint32_t z;
} rocprofiler_dim3_t;

typedef struct rocprofiler_uuid_t { uint8_t bytes[16]; } rocprofiler_uuid_t;

typedef struct rocprofiler_version_triplet_t
{
    uint32_t major;
    uint32_t minor;
    uint32_t patch;
} rocprofiler_version_triplet_t;

typedef struct rocprofiler_correlation_id_t
{
    uint64_t                internal;
    rocprofiler_user_data_t external;
    uint64_t                ancestor;
} rocprofiler_correlation_id_t;

typedef struct rocprofiler_async_correlation_id_t
{
    uint64_t                internal;
    rocprofiler_user_data_t external;
} rocprofiler_async_correlation_id_t;

/* 128 bytes; `size` excludes the trailing padding. */
typedef struct rocprofiler_kernel_dispatch_info_t
{
    uint64_t               size;
    rocprofiler_agent_id_t agent_id;
    rocprofiler_queue_id_t queue_id;
    rocprofiler_kernel_id_t   kernel_id;
    rocprofiler_dispatch_id_t dispatch_id;
    uint32_t               private_segment_size; /* scratch per work-item */
    uint32_t               group_segment_size;   /* LDS per work-group */
    rocprofiler_dim3_t     workgroup_size;
    rocprofiler_dim3_t     grid_size;
    uint8_t                reserved_padding[56];
} rocprofiler_kernel_dispatch_info_t;

typedef struct rocprofiler_callback_tracing_record_t
{
    rocprofiler_context_id_t            context_id;
    rocprofiler_thread_id_t             thread_id;
    rocprofiler_correlation_id_t        correlation_id;
    rocprofiler_callback_tracing_kind_t kind;
    rocprofiler_tracing_operation_t     operation;
    rocprofiler_callback_phase_t        phase;
    void*                               payload;
} rocprofiler_callback_tracing_record_t;

typedef struct rocprofiler_record_header_t
{
    union
    {
        struct
        {
            uint32_t category;
            uint32_t kind;
        };
        uint64_t hash;
    };
    void* payload;
} rocprofiler_record_header_t;

/* The `hash` of a record header: category in the low 32 bits, kind in the high 32. */
static inline uint64_t rocprofiler_record_header_compute_hash(uint32_t category, uint32_t kind)
{
    return (uint64_t)category | ((uint64_t)kind << 32);
}

/* One dimension of a counter: its name, extent and the id that
 * rocprofiler_query_record_dimension_position takes. */
typedef struct rocprofiler_counter_record_dimension_info_t
{
    const char*                        name; /* DIMENSION_XCC, DIMENSION_SHADER_ENGINE, ... */
    size_t                             instance_size; /* extent */
    rocprofiler_counter_dimension_id_t id;
} rocprofiler_counter_record_dimension_info_t;

/* One instance (one combination of dimension positions) of one counter. */
typedef struct rocprofiler_counter_record_t
{
    rocprofiler_counter_instance_id_t id;
    double                            counter_value;
    rocprofiler_dispatch_id_t         dispatch_id;
    rocprofiler_user_data_t           user_data;
    rocprofiler_agent_id_t            agent_id;
} rocprofiler_counter_record_t;

/* the pre-1.0 names: the first always, the second only for a tool that defines
 * ROCPROFILER_SDK_BETA_COMPAT > 0 itself */
typedef rocprofiler_counter_record_t rocprofiler_record_counter_t;
#if defined(ROCPROFILER_SDK_BETA_COMPAT) && ROCPROFILER_SDK_BETA_COMPAT > 0
typedef rocprofiler_counter_config_id_t rocprofiler_profile_config_id_t;
#endif

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_FWD_H */
