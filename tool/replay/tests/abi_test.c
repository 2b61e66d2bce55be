/* The C ABI of kernel_replay.h, pinned for LP64: every struct's size and member offsets and every
 * enumerator's value. Compiled as strict C11 (-std=c11 -pedantic -Werror), so the header is also
 * proven usable from C. Running it calls the C API from C. */
#include <gorocprof/kernel_replay.h>

#include <stddef.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(void*) == 8 && sizeof(long) == 8, "these expectations are for LP64");
_Static_assert(GOROCPROF_KERNEL_REPLAY_ABI_VERSION == 1, "ABI version");

/* Enumerators. */
_Static_assert(GOROCPROF_STATUS_SUCCESS == 0, "status");
_Static_assert(GOROCPROF_STATUS_ERROR == 1, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT == 2, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_CONTEXT_INVALID == 3, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_CONTEXT_ERROR == 4, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED == 5, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED == 6, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED == 7, "status");
_Static_assert(GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND == 8, "status");
_Static_assert(GOROCPROF_STATUS_LAST == 9, "status");
_Static_assert(GOROCPROF_CALLBACK_PHASE_NONE == 0, "phase");
_Static_assert(GOROCPROF_CALLBACK_PHASE_ENTER == 1, "phase");
_Static_assert(GOROCPROF_CALLBACK_PHASE_EXIT == 2, "phase");
_Static_assert(GOROCPROF_CALLBACK_PHASE_LAST == 3, "phase");
_Static_assert(GOROCPROF_CALLBACK_TRACING_NONE == 0, "kind");
_Static_assert(GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY == 1, "kind");
_Static_assert(GOROCPROF_CALLBACK_TRACING_LAST == 2, "kind");
_Static_assert(GOROCPROF_KERNEL_REPLAY_NONE == 0, "operation");
_Static_assert(GOROCPROF_KERNEL_REPLAY_CONFIG == 1, "operation");
_Static_assert(GOROCPROF_KERNEL_REPLAY_PASS == 2, "operation");
_Static_assert(GOROCPROF_KERNEL_REPLAY_LAST == 3, "operation");
_Static_assert(sizeof(gorocprof_status_t) == 4, "enums are int-sized");

/* Handles and small structs. */
_Static_assert(sizeof(gorocprof_context_id_t) == 8 && offsetof(gorocprof_context_id_t, handle) == 0, "context");
_Static_assert(sizeof(gorocprof_agent_id_t) == 8 && offsetof(gorocprof_agent_id_t, handle) == 0, "agent");
_Static_assert(sizeof(gorocprof_queue_id_t) == 8 && offsetof(gorocprof_queue_id_t, handle) == 0, "queue");
_Static_assert(sizeof(gorocprof_dim3_t) == 12, "dim3");
_Static_assert(offsetof(gorocprof_dim3_t, x) == 0 && offsetof(gorocprof_dim3_t, y) == 4 &&
               offsetof(gorocprof_dim3_t, z) == 8, "dim3");
_Static_assert(sizeof(gorocprof_user_data_t) == 8, "user_data");
_Static_assert(offsetof(gorocprof_user_data_t, value) == 0 && offsetof(gorocprof_user_data_t, ptr) == 0, "user_data");
_Static_assert(sizeof(gorocprof_correlation_id_t) == 24, "correlation");
_Static_assert(offsetof(gorocprof_correlation_id_t, internal) == 0, "correlation");
_Static_assert(offsetof(gorocprof_correlation_id_t, external) == 8, "correlation");
_Static_assert(offsetof(gorocprof_correlation_id_t, ancestor) == 16, "correlation");

/* Dispatch info. */
_Static_assert(sizeof(gorocprof_kernel_dispatch_info_t) == 72, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, size) == 0, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, agent_id) == 8, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, queue_id) == 16, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, kernel_id) == 24, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, dispatch_id) == 32, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, private_segment_size) == 40, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, group_segment_size) == 44, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, workgroup_size) == 48, "dispatch info");
_Static_assert(offsetof(gorocprof_kernel_dispatch_info_t, grid_size) == 60, "dispatch info");

/* The replay payload. */
typedef gorocprof_callback_tracing_kernel_replay_data_t payload_t;
_Static_assert(sizeof(payload_t) == 128, "payload");
_Static_assert(offsetof(payload_t, size) == 0, "payload");
_Static_assert(offsetof(payload_t, dispatch_info) == 8, "payload");
_Static_assert(offsetof(payload_t, replay_pass_count) == 80, "payload");
_Static_assert(offsetof(payload_t, replay_continue) == 88, "payload");
_Static_assert(offsetof(payload_t, current_pass) == 96, "payload");
_Static_assert(offsetof(payload_t, total_passes) == 104, "payload");
_Static_assert(offsetof(payload_t, replay_start_context) == 112, "payload");
_Static_assert(offsetof(payload_t, replay_stop_context) == 120, "payload");

/* The callback record. */
typedef gorocprof_callback_tracing_record_t record_t;
_Static_assert(sizeof(record_t) == 64, "record");
_Static_assert(offsetof(record_t, context_id) == 0, "record");
_Static_assert(offsetof(record_t, thread_id) == 8, "record");
_Static_assert(offsetof(record_t, correlation_id) == 16, "record");
_Static_assert(offsetof(record_t, kind) == 40, "record");
_Static_assert(offsetof(record_t, operation) == 44, "record");
_Static_assert(offsetof(record_t, phase) == 48, "record");
_Static_assert(offsetof(record_t, reserved0) == 52, "record");
_Static_assert(offsetof(record_t, payload) == 56, "record");

static void on_replay(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t* user_data, void* args) {
    (void)record;
    (void)user_data;
    (void)args;
}

int main(void) {
    gorocprof_context_id_t ctx = {0};
    uint32_t ops[] = {GOROCPROF_KERNEL_REPLAY_CONFIG, GOROCPROF_KERNEL_REPLAY_PASS};
    int active = -1;
    if (gorocprof_create_context(&ctx) != GOROCPROF_STATUS_SUCCESS) return 1;
    if (gorocprof_configure_callback_tracing_service(ctx, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, ops, 2,
                                                     on_replay, NULL) != GOROCPROF_STATUS_SUCCESS)
        return 2;
    if (gorocprof_start_context(ctx) != GOROCPROF_STATUS_SUCCESS) return 3;
    if (gorocprof_context_is_active(ctx, &active) != GOROCPROF_STATUS_SUCCESS || active != 1) return 4;
    if (strstr(gorocprof_get_status_string(GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED), "NOT_STARTED") == NULL)
        return 5;
    puts("abi ok");
    return 0;
}
