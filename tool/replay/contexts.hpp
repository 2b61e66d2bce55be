// Internal to tool/replay: the context registry behind the C API of kernel_replay.h, and the
// per-thread loop state through which a replay loop's localized start/stop reaches
// gorocprof_context_is_effective(). Not installed, not for backends.
#pragma once

#include <gorocprof/kernel_replay.h>

#include <cstddef>
#include <cstdint>

namespace gorocprof::replay::detail {

// Contexts live in a fixed table so that is_active / is_effective are lock-free loads and a loop's
// override set fits in two 64-bit masks (no allocation per loop).
constexpr size_t kMaxContexts = 64;

// Slot of a valid context handle, or -1.
int context_slot(gorocprof_context_id_t id);
bool context_started(int slot);
uint64_t started_mask();

// The replay domain's subscription, copied once per dispatch.
struct ReplaySubscription {
    gorocprof_context_id_t context{};
    gorocprof_callback_tracing_cb_t callback = nullptr;
    void* callback_args = nullptr;
    uint32_t operations = 0;  // bit i set: operation i is delivered
    bool wants(uint32_t op) const { return (operations >> op) & 1u; }
};

// True when a started context subscribes to the CONFIG operation of the replay domain.
bool replay_domain_enabled();
// Copies the subscription; false when no context configured the domain.
bool replay_subscription(ReplaySubscription* out);

// State of the replay loop running on this thread. It lives on the stack of ReplayService::execute.
struct LoopState {
    uint64_t active_at_start = 0;  // contexts globally started when the loop began
    uint64_t override_set = 0;     // contexts with a localized start/stop in this loop
    uint64_t override_on = 0;      // their value (1 = started)
    bool in_pass_enter = false;    // localized start/stop is legal only now
};

// The loop of the calling thread, or nullptr.
LoopState*& thread_loop();

// The functions handed to tools in the PASS payload.
gorocprof_status_t local_start_context(gorocprof_context_id_t id);
gorocprof_status_t local_stop_context(gorocprof_context_id_t id);

// Forgets every context and the replay subscription (tests only).
void reset_contexts();

}  // namespace gorocprof::replay::detail
