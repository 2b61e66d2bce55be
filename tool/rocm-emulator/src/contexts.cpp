// Contexts, service configuration, callback tracing kinds, status names, version and clock of the
// emulated SDK. Each context stands for one context of the replay service (tool/replay), so that
// localized start/stop during a replay pass applies to it.
#include "emulator.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

namespace gorocprof::rocmemu {
namespace {

const char* const kStatusNames[] = {
    "SUCCESS", "ERROR", "ERROR_CONTEXT_NOT_FOUND", "ERROR_BUFFER_NOT_FOUND", "ERROR_KIND_NOT_FOUND",
    "ERROR_OPERATION_NOT_FOUND", "ERROR_THREAD_NOT_FOUND", "ERROR_AGENT_NOT_FOUND", "ERROR_COUNTER_NOT_FOUND",
    "ERROR_CONTEXT_ERROR", "ERROR_CONTEXT_INVALID", "ERROR_CONTEXT_NOT_STARTED", "ERROR_CONTEXT_CONFLICT",
    "ERROR_CONTEXT_ID_NOT_ZERO", "ERROR_BUFFER_BUSY", "ERROR_SERVICE_ALREADY_CONFIGURED", "ERROR_CONFIGURATION_LOCKED",
    "ERROR_NOT_IMPLEMENTED", "ERROR_INCOMPATIBLE_ABI", "ERROR_INVALID_ARGUMENT", "ERROR_METRIC_NOT_VALID_FOR_AGENT",
    "ERROR_FINALIZED", "ERROR_HSA_NOT_LOADED", "ERROR_DIM_NOT_FOUND", "ERROR_PROFILE_COUNTER_NOT_FOUND",
    "ERROR_AST_GENERATION_FAILED", "ERROR_AST_NOT_FOUND", "ERROR_AQL_NO_EVENT_COORD", "ERROR_INCOMPATIBLE_KERNEL",
    "ERROR_OUT_OF_RESOURCES", "ERROR_CONFIG_NOT_FOUND", "ERROR_AGENT_DISPATCH_CONFLICT", "INTERNAL_NO_AGENT_CONTEXT",
    "ERROR_SAMPLE_RATE_EXCEEDED", "ERROR_NO_PROFILE_QUEUE", "ERROR_NO_HARDWARE_COUNTERS", "ERROR_AGENT_MISMATCH",
    "ERROR_NOT_AVAILABLE", "ERROR_EXCEEDS_HW_LIMIT", "ERROR_AGENT_ARCH_NOT_SUPPORTED", "ERROR_PERMISSION_DENIED",
    "ERROR_INCOMPATIBLE_REGISTER_VERSION"};
static_assert(sizeof kStatusNames / sizeof kStatusNames[0] == ROCPROFILER_STATUS_LAST, "one name per status");

thread_local std::string t_status_name;

// Names of the kinds below KERNEL_REPLAY, by number.
const char* const kKindNames[] = {
    "NONE", "HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API", "HIP_RUNTIME_API",
    "HIP_COMPILER_API", "MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API", "CODE_OBJECT", "SCRATCH_MEMORY",
    "KERNEL_DISPATCH", "MEMORY_COPY", "RCCL_API", "OMPT", "MEMORY_ALLOCATION", "RUNTIME_INITIALIZATION",
    "ROCDECODE_API", "ROCJPEG_API", "HIP_STREAM", "MARKER_CORE_RANGE_API", "HIP_GRAPH"};
constexpr int kNamedKinds = sizeof kKindNames / sizeof kKindNames[0];

bool replay_kind(int kind) {
    const Options& o = state().options;
    return o.kernel_replay && kind == o.replay_kind;
}

const char* kind_name(int kind) {
    if (replay_kind(kind)) return "KERNEL_REPLAY";
    if (kind > 0 && kind < kNamedKinds && kind != state().options.replay_kind) return kKindNames[kind];
    return nullptr;
}

}  // namespace

bool TracingService::covers(int operation) const {
    if (operations.empty()) return true;
    for (rocprofiler_tracing_operation_t op : operations)
        if (op == operation) return true;
    return false;
}

Context* context_by_handle(uint64_t handle) {
    State& s = state();
    if (handle == 0 || handle > static_cast<uint64_t>(kMaxContexts) || !s.contexts[handle - 1].created) return nullptr;
    return &s.contexts[handle - 1];
}

bool callback_traced(int kind, int operation) {
    State& s = state();
    for (int i = 0; i < kMaxContexts; ++i) {
        const Context& c = s.contexts[i];
        if (!c.created || !c.started.load()) continue;
        for (const TracingService& t : c.tracing)
            if (t.kind == kind && t.covers(operation)) return true;
    }
    return false;
}

void trace(int kind, int operation, rocprofiler_callback_phase_t phase, void* payload, rocprofiler_user_data_t* user_data,
           const rocprofiler_correlation_id_t& correlation, rocprofiler_user_data_t* per_context) {
    State& s = state();
    for (int i = 0; i < kMaxContexts; ++i) {
        Context& c = s.contexts[i];
        if (!c.created || !c.started.load()) continue;
        for (const TracingService& t : c.tracing) {
            if (t.kind != kind || !t.covers(operation)) continue;
            rocprofiler_callback_tracing_record_t r{};
            r.context_id.handle = static_cast<uint64_t>(i) + 1;
            r.thread_id = static_cast<uint64_t>(::syscall(SYS_gettid));
            r.correlation_id = correlation;
            r.kind = static_cast<rocprofiler_callback_tracing_kind_t>(kind);
            r.operation = operation;
            r.phase = phase;
            r.payload = payload;
            rocprofiler_user_data_t none{};
            rocprofiler_user_data_t* u = per_context != nullptr ? &per_context[i] : user_data != nullptr ? user_data : &none;
            t.callback(r, u, t.args);
        }
    }
}

}  // namespace gorocprof::rocmemu

using namespace gorocprof::rocmemu;

extern "C" {

rocprofiler_status_t rocprofiler_create_context(rocprofiler_context_id_t* context_id) {
    if (context_id == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    State& s = state();
    if (s.locked.load()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    std::lock_guard<std::mutex> lock(s.mu);
    for (int i = 0; i < kMaxContexts; ++i) {
        Context& c = s.contexts[i];
        if (c.created) continue;
        if (gorocprof_create_context(&c.replay_ctx) != GOROCPROF_STATUS_SUCCESS) return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
        c.created = true;
        context_id->handle = static_cast<uint64_t>(i) + 1;
        return ROCPROFILER_STATUS_SUCCESS;
    }
    return ROCPROFILER_STATUS_ERROR_OUT_OF_RESOURCES;
}

rocprofiler_status_t rocprofiler_start_context(rocprofiler_context_id_t context_id) {
    Context* c = context_by_handle(context_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (gorocprof_start_context(c->replay_ctx) != GOROCPROF_STATUS_SUCCESS) return ROCPROFILER_STATUS_ERROR_CONTEXT_ERROR;
    c->started.store(true);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_stop_context(rocprofiler_context_id_t context_id) {
    Context* c = context_by_handle(context_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    c->started.store(false);
    gorocprof_stop_context(c->replay_ctx);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_context_is_active(rocprofiler_context_id_t context_id, int* status) {
    Context* c = context_by_handle(context_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = c->started.load() ? 1 : 0;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_context_is_valid(rocprofiler_context_id_t context_id, int* status) {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = context_by_handle(context_id.handle) != nullptr ? 1 : 0;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_callback_dispatch_counting_service(
    rocprofiler_context_id_t context_id, rocprofiler_dispatch_counting_service_cb_t dispatch_callback,
    void* dispatch_callback_args, rocprofiler_dispatch_counting_record_cb_t record_callback, void* record_callback_args) {
    State& s = state();
    if (s.locked.load()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    Context* c = context_by_handle(context_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (dispatch_callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (c->dispatch_cb != nullptr) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    c->dispatch_cb = dispatch_callback;
    c->dispatch_args = dispatch_callback_args;
    c->record_cb = record_callback;
    c->record_args = record_callback_args;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_configure_callback_tracing_service(rocprofiler_context_id_t context_id,
                                                                    rocprofiler_callback_tracing_kind_t kind,
                                                                    const rocprofiler_tracing_operation_t* operations,
                                                                    size_t operations_count,
                                                                    rocprofiler_callback_tracing_cb_t callback,
                                                                    void* callback_args) {
    State& s = state();
    if (s.locked.load()) return ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED;
    Context* c = context_by_handle(context_id.handle);
    if (c == nullptr) return ROCPROFILER_STATUS_ERROR_CONTEXT_NOT_FOUND;
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    int k = static_cast<int>(kind);
    if (kind_name(k) == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    for (const TracingService& t : c->tracing)
        if (t.kind == k) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    TracingService t;
    t.kind = k;
    t.callback = callback;
    t.args = callback_args;
    if (operations != nullptr) t.operations.assign(operations, operations + operations_count);
    if (replay_kind(k)) {
        std::vector<uint32_t> ops;
        for (rocprofiler_tracing_operation_t op : t.operations) {
            if (op <= ROCPROFILER_KERNEL_REPLAY_NONE || op >= ROCPROFILER_KERNEL_REPLAY_LAST)
                return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
            ops.push_back(static_cast<uint32_t>(op));
        }
        gorocprof_status_t st = gorocprof_configure_callback_tracing_service(
            c->replay_ctx, GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY, ops.empty() ? nullptr : ops.data(), ops.size(),
            replay_domain_callback, reinterpret_cast<void*>(context_id.handle));
        if (st == GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED) return ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
        if (st != GOROCPROF_STATUS_SUCCESS) return ROCPROFILER_STATUS_ERROR;
    } else if (tracing::marker_operation_name(k, 0) != nullptr) {  // MARKER_CORE_API, MARKER_CORE_RANGE_API
        for (rocprofiler_tracing_operation_t op : t.operations)
            if (tracing::marker_operation_name(k, op) == nullptr) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    } else if (k != ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT) {
        // The emulator calls back for code objects, markers and replay only: the API kinds' payloads
        // carry the calls' arguments, which the sim runtime has no HIP or HSA form of.
        return ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED;
    }
    c->tracing.push_back(std::move(t));
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_callback_tracing_kind_name(rocprofiler_callback_tracing_kind_t kind,
                                                                  const char** name, uint64_t* name_len) {
    const char* n = kind_name(static_cast<int>(kind));
    if (n == nullptr) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    if (name != nullptr) *name = n;
    if (name_len != nullptr) *name_len = std::strlen(n);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_query_callback_tracing_kind_operation_name(rocprofiler_callback_tracing_kind_t kind,
                                                                            rocprofiler_tracing_operation_t operation,
                                                                            const char** name, uint64_t* name_len) {
    static const char* const replay_ops[] = {"NONE", "CONFIG", "PASS"};
    static const char* const code_object_ops[] = {"NONE", "CODE_OBJECT_LOAD", "DEVICE_KERNEL_SYMBOL_REGISTER",
                                                  "HOST_KERNEL_SYMBOL_REGISTER"};
    const char* n = nullptr;
    if (replay_kind(static_cast<int>(kind)) && operation > 0 && operation < ROCPROFILER_KERNEL_REPLAY_LAST)
        n = replay_ops[operation];
    else if (kind == ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT && operation > 0 && operation < ROCPROFILER_CODE_OBJECT_LAST)
        n = code_object_ops[operation];
    else
        n = tracing::marker_operation_name(static_cast<int>(kind), operation);
    if (n == nullptr) return ROCPROFILER_STATUS_ERROR_OPERATION_NOT_FOUND;
    if (name != nullptr) *name = n;
    if (name_len != nullptr) *name_len = std::strlen(n);
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_callback_tracing_kinds(rocprofiler_callback_tracing_kind_cb_t callback, void* data) {
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    int last = kNamedKinds > state().options.replay_kind ? kNamedKinds : state().options.replay_kind + 1;
    for (int k = 1; k < last; ++k) {
        if (kind_name(k) == nullptr) continue;
        if (callback(static_cast<rocprofiler_callback_tracing_kind_t>(k), data) != 0) break;
    }
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_iterate_callback_tracing_kind_operations(
    rocprofiler_callback_tracing_kind_t kind, rocprofiler_callback_tracing_kind_operation_cb_t callback, void* data) {
    if (callback == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    if (tracing::marker_operation_name(kind, 0) != nullptr) {  // the marker kinds number from 0, as the SDK's
        for (int op = 0; tracing::marker_operation_name(kind, op) != nullptr; ++op)
            if (callback(kind, op, data) != 0) break;
        return ROCPROFILER_STATUS_SUCCESS;
    }
    int last = replay_kind(static_cast<int>(kind))                   ? ROCPROFILER_KERNEL_REPLAY_LAST
               : kind == ROCPROFILER_CALLBACK_TRACING_CODE_OBJECT ? ROCPROFILER_CODE_OBJECT_LAST
                                                                  : -1;
    if (last < 0) return ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND;
    for (int op = 1; op < last; ++op)
        if (callback(kind, op, data) != 0) break;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_get_version(uint32_t* major, uint32_t* minor, uint32_t* patch) {
    // Without the replay domain the emulator stands for an SDK from before kernel replay.
    bool replay = state().options.kernel_replay;
    if (major != nullptr) *major = ROCPROFILER_VERSION_MAJOR;
    if (minor != nullptr) *minor = replay ? ROCPROFILER_VERSION_MINOR : 0;
    if (patch != nullptr) *patch = replay ? ROCPROFILER_VERSION_PATCH : 0;
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_get_version_triplet(rocprofiler_version_triplet_t* info) {
    if (info == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    return rocprofiler_get_version(&info->major, &info->minor, &info->patch);
}

const char* rocprofiler_get_status_name(rocprofiler_status_t status) {
    if (status < 0 || status >= ROCPROFILER_STATUS_LAST) return nullptr;
    t_status_name = std::string("ROCPROFILER_STATUS_") + kStatusNames[status];
    return t_status_name.c_str();
}

const char* rocprofiler_get_status_string(rocprofiler_status_t status) {
    switch (status) {
        case ROCPROFILER_STATUS_SUCCESS: return "success";
        case ROCPROFILER_STATUS_ERROR_EXCEEDS_HW_LIMIT: return "the counters exceed the hardware's registers of a block for one pass";
        case ROCPROFILER_STATUS_ERROR_KIND_NOT_FOUND: return "no such callback tracing kind";
        case ROCPROFILER_STATUS_ERROR_CONFIGURATION_LOCKED: return "services may only be configured during tool initialization";
        case ROCPROFILER_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED: return "the service is configured already";
        case ROCPROFILER_STATUS_ERROR_COUNTER_NOT_FOUND: return "no such counter";
        case ROCPROFILER_STATUS_ERROR_AGENT_NOT_FOUND: return "no such agent";
        case ROCPROFILER_STATUS_ERROR_METRIC_NOT_VALID_FOR_AGENT: return "the counter belongs to another agent";
        case ROCPROFILER_STATUS_ERROR_NOT_IMPLEMENTED: return "not implemented by the rocprofiler-sdk emulator";
        default: return rocprofiler_get_status_name(status) != nullptr ? "error" : "unknown status";
    }
}

rocprofiler_status_t rocprofiler_get_timestamp(rocprofiler_timestamp_t* ts) {
    if (ts == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *ts = static_cast<rocprofiler_timestamp_t>(simToolClockNs());
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_get_thread_id(rocprofiler_thread_id_t* tid) {
    if (tid == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *tid = static_cast<rocprofiler_thread_id_t>(::syscall(SYS_gettid));
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_is_initialized(int* status) {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = state().initialized.load();
    return ROCPROFILER_STATUS_SUCCESS;
}

rocprofiler_status_t rocprofiler_is_finalized(int* status) {
    if (status == nullptr) return ROCPROFILER_STATUS_ERROR_INVALID_ARGUMENT;
    *status = state().finalized.load();
    return ROCPROFILER_STATUS_SUCCESS;
}

}  // extern "C"
