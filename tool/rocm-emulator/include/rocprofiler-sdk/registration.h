/* gorocprof's emulation of rocprofiler-sdk: how a tool is found, configured and started. */
#ifndef ROCPROFILER_SDK_REGISTRATION_H
#define ROCPROFILER_SDK_REGISTRATION_H

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

typedef struct rocprofiler_client_id_t
{
    size_t          size;   /* set by the SDK */
    const char*     name;   /* the tool may set it in rocprofiler_configure */
    const uint32_t  handle; /* assigned by the SDK */
} rocprofiler_client_id_t;

typedef void (*rocprofiler_client_finalize_t)(rocprofiler_client_id_t client_id);
typedef int (*rocprofiler_tool_initialize_t)(rocprofiler_client_finalize_t finalize_func, void* tool_data);
typedef void (*rocprofiler_tool_finalize_t)(void* tool_data);

typedef struct rocprofiler_tool_configure_result_t
{
    size_t                        size; /* sizeof(rocprofiler_tool_configure_result_t) */
    rocprofiler_tool_initialize_t initialize;
    rocprofiler_tool_finalize_t   finalize;
    void*                         tool_data;
} rocprofiler_tool_configure_result_t;

typedef rocprofiler_tool_configure_result_t* (*rocprofiler_configure_func_t)(uint32_t                 version,
                                                                             const char*              runtime_version,
                                                                             uint32_t                 priority,
                                                                             rocprofiler_client_id_t* client_id);

/* Defined by the tool, called once by the SDK. NULL declines. */
rocprofiler_tool_configure_result_t* rocprofiler_configure(uint32_t                 version,
                                                           const char*              runtime_version,
                                                           uint32_t                 priority,
                                                           rocprofiler_client_id_t* client_id) ROCPROFILER_PUBLIC_API;

rocprofiler_status_t rocprofiler_force_configure(rocprofiler_configure_func_t configure_func) ROCPROFILER_API;
/* *status: 0 not yet, 1 done, -1 in progress */
rocprofiler_status_t rocprofiler_is_initialized(int* status) ROCPROFILER_API;
rocprofiler_status_t rocprofiler_is_finalized(int* status) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_REGISTRATION_H */
