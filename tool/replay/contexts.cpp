// Contexts and the callback tracing subscription of kernel_replay.h. Contexts are slots of a fixed
// table: create/configure/start/stop serialise on one mutex, while the queries services make per
// dispatch (is_active, is_effective, replay_domain_enabled) are plain atomic loads.
#include "contexts.hpp"

#include <atomic>
#include <mutex>

namespace gorocprof::replay::detail {
namespace {

struct Registry {
    std::mutex mu;  // create, configure, start, stop, reset
    std::atomic<bool> created[kMaxContexts] = {};
    std::atomic<uint64_t> started{0};  // bit per slot
    uint32_t count = 0;

    // The replay domain's one subscription. `replay_context` is the handle (0 = none); the fields
    // below it are written under `mu` only while that context is stopped and read under `mu`.
    std::atomic<uint64_t> replay_context{0};
    std::atomic<bool> replay_wants_config{false};
    gorocprof_callback_tracing_cb_t callback = nullptr;
    void* callback_args = nullptr;
    uint32_t operations = 0;
};

Registry& registry() {
    static Registry r;
    return r;
}

constexpr uint32_t kAllOperations =
    (1u << GOROCPROF_KERNEL_REPLAY_CONFIG) | (1u << GOROCPROF_KERNEL_REPLAY_PASS);

gorocprof_status_t set_local(gorocprof_context_id_t id, bool on) noexcept {
    LoopState* loop = thread_loop();
    // Outside PASS ENTER of a loop on this thread nothing is recorded, whatever the context.
    if (loop == nullptr || !loop->in_pass_enter) return GOROCPROF_STATUS_ERROR_CONTEXT_ERROR;
    int slot = context_slot(id);
    if (slot < 0) return GOROCPROF_STATUS_ERROR_CONTEXT_INVALID;
    uint64_t bit = uint64_t{1} << slot;
    if ((loop->active_at_start & bit) == 0) return GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED;
    loop->override_set |= bit;
    if (on) {
        loop->override_on |= bit;
    } else {
        loop->override_on &= ~bit;
    }
    return GOROCPROF_STATUS_SUCCESS;
}

}  // namespace

int context_slot(gorocprof_context_id_t id) {
    if (id.handle == 0 || id.handle > kMaxContexts) return -1;
    int slot = static_cast<int>(id.handle - 1);
    return registry().created[slot].load(std::memory_order_acquire) ? slot : -1;
}

bool context_started(int slot) { return (started_mask() >> slot) & 1u; }

uint64_t started_mask() { return registry().started.load(std::memory_order_acquire); }

bool replay_domain_enabled() {
    Registry& r = registry();
    uint64_t handle = r.replay_context.load(std::memory_order_acquire);
    if (handle == 0 || !r.replay_wants_config.load(std::memory_order_acquire)) return false;
    return context_started(static_cast<int>(handle - 1));
}

bool replay_subscription(ReplaySubscription* out) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    uint64_t handle = r.replay_context.load(std::memory_order_relaxed);
    if (handle == 0) return false;
    out->context.handle = handle;
    out->callback = r.callback;
    out->callback_args = r.callback_args;
    out->operations = r.operations;
    return true;
}

LoopState*& thread_loop() {
    static thread_local LoopState* loop = nullptr;
    return loop;
}

gorocprof_status_t local_start_context(gorocprof_context_id_t id) { return set_local(id, true); }
gorocprof_status_t local_stop_context(gorocprof_context_id_t id) { return set_local(id, false); }

void reset_contexts() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    for (auto& c : r.created) c.store(false, std::memory_order_release);
    r.started.store(0, std::memory_order_release);
    r.count = 0;
    r.replay_context.store(0, std::memory_order_release);
    r.replay_wants_config.store(false, std::memory_order_release);
    r.callback = nullptr;
    r.callback_args = nullptr;
    r.operations = 0;
}

}  // namespace gorocprof::replay::detail

using namespace gorocprof::replay::detail;

extern "C" {

gorocprof_status_t gorocprof_create_context(gorocprof_context_id_t* context_id) {
    if (context_id == nullptr) return GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT;
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.count >= kMaxContexts) return GOROCPROF_STATUS_ERROR;
    uint32_t slot = r.count++;
    r.created[slot].store(true, std::memory_order_release);
    context_id->handle = slot + 1;
    return GOROCPROF_STATUS_SUCCESS;
}

static gorocprof_status_t set_started(gorocprof_context_id_t context_id, bool on) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    int slot = context_slot(context_id);
    if (slot < 0) return GOROCPROF_STATUS_ERROR_CONTEXT_INVALID;
    uint64_t bit = uint64_t{1} << slot;
    if (on) {
        r.started.fetch_or(bit, std::memory_order_acq_rel);
    } else {
        r.started.fetch_and(~bit, std::memory_order_acq_rel);
    }
    return GOROCPROF_STATUS_SUCCESS;
}

gorocprof_status_t gorocprof_start_context(gorocprof_context_id_t context_id) {
    return set_started(context_id, true);
}

gorocprof_status_t gorocprof_stop_context(gorocprof_context_id_t context_id) {
    return set_started(context_id, false);
}

gorocprof_status_t gorocprof_context_is_active(gorocprof_context_id_t context_id, int* status) {
    if (status == nullptr) return GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT;
    int slot = context_slot(context_id);
    if (slot < 0) return GOROCPROF_STATUS_ERROR_CONTEXT_INVALID;
    *status = context_started(slot) ? 1 : 0;
    return GOROCPROF_STATUS_SUCCESS;
}

gorocprof_status_t gorocprof_context_is_effective(gorocprof_context_id_t context_id, int* status) {
    if (status == nullptr) return GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT;
    int slot = context_slot(context_id);
    if (slot < 0) return GOROCPROF_STATUS_ERROR_CONTEXT_INVALID;
    uint64_t bit = uint64_t{1} << slot;
    const LoopState* loop = thread_loop();
    if (loop != nullptr && (loop->override_set & bit) != 0) {
        *status = (loop->override_on & bit) != 0 ? 1 : 0;
    } else {
        *status = context_started(slot) ? 1 : 0;
    }
    return GOROCPROF_STATUS_SUCCESS;
}

gorocprof_status_t gorocprof_configure_callback_tracing_service(gorocprof_context_id_t context_id,
                                                               gorocprof_callback_tracing_kind_t kind,
                                                               const uint32_t* operations,
                                                               size_t operations_count,
                                                               gorocprof_callback_tracing_cb_t callback,
                                                               void* callback_args) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    int slot = context_slot(context_id);
    if (slot < 0) return GOROCPROF_STATUS_ERROR_CONTEXT_INVALID;
    if (kind != GOROCPROF_CALLBACK_TRACING_KERNEL_REPLAY) return GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND;
    if (callback == nullptr) return GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT;
    uint32_t mask = 0;
    if (operations == nullptr || operations_count == 0) {
        mask = kAllOperations;
    } else {
        for (size_t i = 0; i < operations_count; ++i) {
            uint32_t op = operations[i];
            if (op == GOROCPROF_KERNEL_REPLAY_NONE || op >= GOROCPROF_KERNEL_REPLAY_LAST) {
                return GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT;
            }
            mask |= 1u << op;
        }
    }
    if (context_started(slot)) return GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED;
    uint64_t current = r.replay_context.load(std::memory_order_relaxed);
    if (current != 0 && current != context_id.handle) {
        return GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED;
    }
    r.callback = callback;
    r.callback_args = callback_args;
    r.operations = mask;
    r.replay_wants_config.store((mask >> GOROCPROF_KERNEL_REPLAY_CONFIG) & 1u, std::memory_order_release);
    r.replay_context.store(context_id.handle, std::memory_order_release);
    return GOROCPROF_STATUS_SUCCESS;
}

const char* gorocprof_get_status_string(gorocprof_status_t status) {
    switch (status) {
    case GOROCPROF_STATUS_SUCCESS: return "GOROCPROF_STATUS_SUCCESS: success";
    case GOROCPROF_STATUS_ERROR: return "GOROCPROF_STATUS_ERROR: generic error";
    case GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT:
        return "GOROCPROF_STATUS_ERROR_INVALID_ARGUMENT: invalid argument";
    case GOROCPROF_STATUS_ERROR_CONTEXT_INVALID:
        return "GOROCPROF_STATUS_ERROR_CONTEXT_INVALID: no such context";
    case GOROCPROF_STATUS_ERROR_CONTEXT_ERROR:
        return "GOROCPROF_STATUS_ERROR_CONTEXT_ERROR: localized start/stop is legal only during PASS "
               "PHASE_ENTER on the replaying thread";
    case GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED:
        return "GOROCPROF_STATUS_ERROR_CONTEXT_NOT_STARTED: the context was not started when the replay "
               "loop began";
    case GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED:
        return "GOROCPROF_STATUS_ERROR_SERVICE_ALREADY_CONFIGURED: another context already configured "
               "this service";
    case GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED:
        return "GOROCPROF_STATUS_ERROR_CONFIGURATION_LOCKED: the context is started; stop it to configure";
    case GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND:
        return "GOROCPROF_STATUS_ERROR_KIND_NOT_FOUND: no such callback tracing kind";
    case GOROCPROF_STATUS_LAST: break;
    }
    return "unknown gorocprof_status_t";
}

}  // extern "C"
