/*
 * gorocprof's emulation of rocprofiler-sdk: the kernel replay domain's payload and callbacks
 * (ROCPROFILER_CALLBACK_TRACING_KERNEL_REPLAY, operations CONFIG and PASS). Member order as in the
 * public 2026 header: current_pass and total_passes come before the callbacks.
 */
#ifndef ROCPROFILER_SDK_EXPERIMENTAL_KERNEL_REPLAY_H
#define ROCPROFILER_SDK_EXPERIMENTAL_KERNEL_REPLAY_H

#include <rocprofiler-sdk/defines.h>
#include <rocprofiler-sdk/fwd.h>

ROCPROFILER_EXTERN_C_INIT

/* Once per dispatch, after CONFIG ENTER returns: 1 = no replay, N > 1 = N passes, 0 = until
 * replay_continue says stop. */
typedef uint64_t (*rocprofiler_kernel_replay_pass_count_cb_t)(rocprofiler_kernel_dispatch_info_t dispatch_info,
                                                              rocprofiler_user_data_t            user_data);

/* After a pass and its PASS EXIT: non-zero runs a further pass. */
typedef int (*rocprofiler_kernel_replay_continue_cb_t)(rocprofiler_kernel_dispatch_info_t dispatch_info,
                                                       uint64_t                           current_pass,
                                                       uint64_t                           total_passes,
                                                       rocprofiler_user_data_t            user_data);

/* Localized start/stop of an already started context, legal in PASS ENTER only. */
typedef rocprofiler_status_t (*rocprofiler_kernel_replay_context_cb_t)(rocprofiler_context_id_t context_id);

typedef struct rocprofiler_callback_tracing_kernel_replay_data_t
{
    uint64_t                           size; /* sizeof the struct */
    rocprofiler_kernel_dispatch_info_t dispatch_info;
    uint64_t                           current_pass; /* [PASS] 0-based; 0 during CONFIG */
    uint64_t                           total_passes; /* [PASS] 0 for an indefinite loop */
    rocprofiler_kernel_replay_pass_count_cb_t replay_pass_count; /* [CONFIG] set by the tool */
    rocprofiler_kernel_replay_continue_cb_t   replay_continue;   /* [CONFIG] optional */
    rocprofiler_kernel_replay_context_cb_t    replay_start_context; /* [PASS] from the SDK */
    rocprofiler_kernel_replay_context_cb_t    replay_stop_context;  /* [PASS] from the SDK */
} rocprofiler_callback_tracing_kernel_replay_data_t;

ROCPROFILER_EXTERN_C_FINI

#endif /* ROCPROFILER_SDK_EXPERIMENTAL_KERNEL_REPLAY_H */
