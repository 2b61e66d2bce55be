/*
 * gorocprof kernel replay: the callback tracing domain through which a tool drives the replay of
 * one kernel dispatch, pass by pass. The semantics follow the kernel replay callback API of
 * ROCprofiler-SDK (see docs/architecture.md); names are gorocprof's own.
 *
 * C11-compatible. The layout of every struct and the value of every enumerator below is part of the
 * ABI and is pinned by tool/replay/tests/abi_test.c: change them only with a new major version.
 */
#ifndef GOROCPROF_KERNEL_REPLAY_H
#define GOROCPROF_KERNEL_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GOROCPROF_KERNEL_REPLAY_ABI_VERSION 1

typedef enum gorocprof_status_t
{
    GOROCPROF_STATUS_SUCCESS                       = 0,
    GOROCPROF_STATUS_ERROR                         = 1,
    GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT        = 2,
    GOROCPROF_STATUS_ERROR_CONTEXT_INVALID         = 3,  /* no such context */
    GOROCPROF_STATUS_ERROR_CONTEXT_ERROR           = 4,  /* local start/stop outside PASS ENTER */
    GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED     = 5,  /* local start/stop of a context inactive when the loop began */
    GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED = 6, /* a second context configures the replay domain */
    GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED    = 7,  /* configuring a context that is already started */
    GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND          = 8,
    GOROCPROF_STATUS_LAST
} gorocprof_status_t;

typedef enum gorocprof_callback_phase_t
{
    GOROCPROF_CALLBACK_PHASE_NONE  = 0,
    GOROCPROF_CALLBACK_PHASE_ENTER = 1,
    GOROCPROF_CALLBACK_PHASE_EXIT  = 2,
    GOROCPROF_CALLBACK_PHASE_LAST
} gorocprof_callback_phase_t;

typedef enum gorocprof_callback_tracing_kind_t
{
    GOROCPROF_CALLBACK_TRACING_NONE          = 0,
    GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY = 1,
    GOROCPROF_CALLBACK_TRACING_LAST
} gorocprof_callback_tracing_kind_t;

typedef enum gorocprof_kernel_replay_operation_t
{
    GOROCPROF_KERNEL_REPLAY_NONE   = 0,
    GOROCPROF_KERNEL_REPLAY_CONFIG = 1, /* pass-count / loop configuration, once per candidate dispatch */
    GOROCPROF_KERNEL_REPLAY_PASS   = 2, /* per-pass begin/end notification */
    GOROCPROF_KERNEL_REPLAY_LAST
} gorocprof_kernel_replay_operation_t;

typedef struct gorocprof_context_id_t { uint64_t handle; } gorocprof_context_id_t;
typedef struct gorocprof_agent_id_t { uint64_t handle; } gorocprof_agent_id_t;
typedef struct gorocprof_queue_id_t { uint64_t handle; } gorocprof_queue_id_t;
typedef struct gorocprof_dim3_t { uint32_t x, y, z; } gorocprof_dim3_t;

typedef union gorocprof_user_data_t
{
    uint64_t value;
    void*    ptr;
} gorocprof_user_data_t;

typedef struct gorocprof_correlation_id_t
{
    uint64_t              internal;
    gorocprof_user_data_t external;
    uint64_t              ancestor;
} gorocprof_correlation_id_t;

typedef struct gorocprof_kernel_dispatch_info_t
{
    uint64_t             size; /* sizeof(gorocprof_kernel_dispatch_info_t) */
    gorocprof_agent_id_t agent_id;
    gorocprof_queue_id_t queue_id;
    uint64_t             kernel_id;
    uint64_t             dispatch_id;
    uint32_t             private_segment_size;
    uint32_t             group_segment_size;
    gorocprof_dim3_t     workgroup_size;
    gorocprof_dim3_t     grid_size;
} gorocprof_kernel_dispatch_info_t;

/* Called once per candidate dispatch, after CONFIG ENTER returns. 0 = indefinite (needs replay_continue),
 * 1 = no replay, N > 1 = up to N passes. */
typedef uint64_t (*gorocprof_kernel_replay_pass_count_cb_t)(gorocprof_kernel_dispatch_info_t dispatch_info,
                                                           gorocprof_user_data_t            user_data);

/* Called after pass `completed_pass` and its PASS EXIT: non-zero runs a further pass, zero ends the loop. */
typedef int (*gorocprof_kernel_replay_continue_cb_t)(gorocprof_kernel_dispatch_info_t dispatch_info,
                                                    uint64_t                         completed_pass,
                                                    gorocprof_user_data_t            user_data);

/* Localized start/stop of an already-started context for the passes of the current loop. */
typedef gorocprof_status_t (*gorocprof_kernel_replay_context_cb_t)(gorocprof_context_id_t context_id);

typedef struct gorocprof_callback_tracing_kernel_replay_data_t
{
    uint64_t                         size; /* sizeof(gorocprof_callback_tracing_kernel_replay_data_t) */
    gorocprof_kernel_dispatch_info_t dispatch_info;

    /* [CONFIG] set by the tool during CONFIG PHASE_ENTER */
    gorocprof_kernel_replay_pass_count_cb_t replay_pass_count;
    gorocprof_kernel_replay_continue_cb_t   replay_continue;

    /* [PASS] read-only */
    uint64_t current_pass; /* 0-based */
    uint64_t total_passes; /* 0 for an indefinite loop */

    /* [PASS] provided by the service; legal to call during PASS PHASE_ENTER only */
    gorocprof_kernel_replay_context_cb_t replay_start_context;
    gorocprof_kernel_replay_context_cb_t replay_stop_context;
} gorocprof_callback_tracing_kernel_replay_data_t;

typedef struct gorocprof_callback_tracing_record_t
{
    gorocprof_context_id_t     context_id;
    uint64_t                   thread_id;
    gorocprof_correlation_id_t correlation_id;
    uint32_t                   kind;      /* gorocprof_callback_tracing_kind_t */
    uint32_t                   operation; /* gorocprof_kernel_replay_operation_t */
    uint32_t                   phase;     /* gorocprof_callback_phase_t */
    uint32_t                   reserved0;
    void*                      payload;
} gorocprof_callback_tracing_record_t;

typedef void (*gorocprof_callback_tracing_cb_t)(gorocprof_callback_tracing_record_t record,
                                                gorocprof_user_data_t*              user_data,
                                                void*                               callback_args);

/* Contexts. A context groups services; it is configured while stopped, then started. */
gorocprof_status_t gorocprof_create_context(gorocprof_context_id_t* context_id);
gorocprof_status_t gorocprof_start_context(gorocprof_context_id_t context_id);
gorocprof_status_t gorocprof_stop_context(gorocprof_context_id_t context_id);
/* Globally started (ignores localized overrides). */
gorocprof_status_t gorocprof_context_is_active(gorocprof_context_id_t context_id, int* status);
/* Whether the context takes part in the work the calling thread is doing now: inside a replay pass this
 * applies the loop's localized overrides; outside one it equals gorocprof_context_is_active. Services
 * (counter collection, dispatch timing) ask this before acting on a dispatch. */
gorocprof_status_t gorocprof_context_is_effective(gorocprof_context_id_t context_id, int* status);

/* Subscribes `callback` to `kind`. operations == NULL (or count 0) means every operation. For
 * GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY only one context may be configured in a process. */
gorocprof_status_t gorocprof_configure_callback_tracing_service(gorocprof_context_id_t         context_id,
                                                               gorocprof_callback_tracing_kind_t kind,
                                                               const uint32_t*                operations,
                                                               size_t                         operations_count,
                                                               gorocprof_callback_tracing_cb_t callback,
                                                               void*                          callback_args);

const char* gorocprof_get_status_string(gorocprof_status_t status);

#ifdef __cplusplus
}
#endif

#endif /* GOROCPROF_KERNEL_REPLAY_H */
