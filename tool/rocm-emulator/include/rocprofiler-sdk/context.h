/* gorocprof's emulation of rocprofiler-sdk: contexts. */
#ifndef ROCPROFILER_SDK_CONTEXT_H
#define ROCPROFILER_SDK_CONTEXT_H

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

#define ROCPROFILER_CONTEXT_NONE ((rocprofiler_context_id_t){0})

rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id) ROCPROFILER_API;
rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id) ROCPROFILER_API;
rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id) ROCPROFILER_API;
/* *status non-zero: started */
rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id, int* status) ROCPROFILER_API;
/* *status 1: a context the SDK knows */
rocprofiler_status_t rocprofiler_context_is_valid(rocprofiler_context_id_t context_id, int* status) ROCPROFILER_API;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_CONTEXT_H */
