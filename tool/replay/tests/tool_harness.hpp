// A test tool written against kernel_replay.h the way a real one is: it creates a context, subscribes
// to the replay domain, starts it, installs replay_pass_count (and replay_continue) at CONFIG ENTER,
// and records every callback. Hooks let a test act inside any callback.
#pragma once

#include "fake_port.hpp"

#include <gorocprof/kernel_replay.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace fake {

using Payload = gorocprof_callback_tracing_kernel_replay_data_t;
using Hook = std::function<void(const gorocprof_callback_tracing_record_t&, Payload*, gorocprof_user_data_t*)>;

struct Event {
    uint32_t operation;
    uint32_t phase;
    uint64_t dispatch_id;
    gorocprof_correlation_id_t correlation;
    uint64_t current_pass;
    uint64_t total_passes;
    uint64_t user_data;  // value on entry to the callback
    uint64_t context;
};

class Tool {
public:
    // Creates, configures (all operations, or `ops`) and starts a context. `log` (optional) receives
    // "CONFIG ENTER", "pass_count", "PASS ENTER 0", "continue 0"... in the order they happen.
    explicit Tool(Port* log = nullptr, std::vector<uint32_t> ops = {});
    ~Tool();

    gorocprof_context_id_t context{};
    gorocprof_status_t configure_status = GOROCPROF_STATUS_SUCCESS;

    bool install_pass_count = true;  // false: CONFIG ENTER leaves the payload zero-initialised
    uint64_t pass_count = 1;
    bool install_continue = false;
    std::function<int(uint64_t completed_pass, gorocprof_user_data_t)> keep_going = [](uint64_t, gorocprof_user_data_t) { return 1; };

    Hook on_config_enter, on_config_exit, on_pass_enter, on_pass_exit;

    std::vector<Event> events;                  // every callback, in order
    std::vector<uint64_t> pass_count_user_data; // one entry per replay_pass_count call
    std::vector<uint64_t> continue_passes;      // completed_pass of each replay_continue call
    std::vector<uint64_t> continue_user_data;
    std::vector<uint64_t> continue_dispatch_ids;

    std::vector<Event> of(uint32_t operation, uint32_t phase) const;

private:
    static void callback(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t* user_data, void* args);
    static uint64_t pass_count_cb(gorocprof_kernel_dispatch_info_t info, gorocprof_user_data_t user_data);
    static int continue_cb(gorocprof_kernel_dispatch_info_t info, uint64_t completed, gorocprof_user_data_t user_data);

    Port* log_;
    std::mutex mu_;
};

// Captures the replay service's diagnostics for the lifetime of the object.
struct Diagnostic {
    bool fatal;
    uint64_t dispatch_id;
    std::string message;
};

class Diagnostics {
public:
    Diagnostics();
    ~Diagnostics();
    std::vector<Diagnostic> all() const;

private:
    mutable std::mutex mu_;
    std::vector<Diagnostic> got_;
};

}  // namespace fake
