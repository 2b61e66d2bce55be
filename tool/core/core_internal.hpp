// Internal to tool/core (and its tests): the callbacks core hands to the replay service.
#pragma once

#include <gorocprof/kernel_replay.h>

#include <cstdint>

namespace gorocprof::core::detail {

// The kernel replay domain callback: installs pass_count at CONFIG ENTER, publishes the pass at
// PASS ENTER and clears it at PASS EXIT.
void replay_callback(gorocprof_callback_tracing_record_t record, gorocprof_user_data_t* user_data,
                     void* callback_args);

// Planned passes of the dispatch's agent (by runtime agent id); 1 when it has one or none.
uint64_t pass_count(gorocprof_kernel_dispatch_info_t dispatch_info, gorocprof_user_data_t user_data);

}  // namespace gorocprof::core::detail
