// The replay service: runs the CONFIG/PASS callback loop of kernel_replay.h for one intercepted
// dispatch over a DevicePort. Vendor-neutral; one instance per process (see instance()).
#pragma once

#include "device_port.hpp"

#include <gorocprof/kernel_replay.h>

#include <cstdint>
#include <functional>
#include <string>

namespace gorocprof::replay {

// What happened to one logical dispatch.
struct Outcome {
    uint64_t dispatch_id = 0;
    uint64_t passes_run = 0;      // passes executed (1 for a dispatch that ran once)
    bool replayed = false;        // the CONFIG callback asked for > 1 passes and got them
    bool declined = false;        // replay was asked for but the snapshot could not be made
    std::string decline_reason;   // set when declined
    bool failed = false;          // a port call failed in a way the service could not recover from
    std::string failure;          // the failing call and reason
};

// Diagnostics the service emits (declined snapshot, rejected pass count, fatal restore). The default
// prints to stderr prefixed "gorocprof-tool: "; core installs one that also writes records.
using DiagnosticSink = std::function<void(bool fatal, uint64_t dispatch_id, const std::string& message)>;

class ReplayService {
public:
    static ReplayService& instance();

    // True once some context configured the kernel replay domain and is started. Backends check this
    // (one atomic load) to keep non-profiled dispatches free of locks and allocation.
    bool enabled() const;

    // Reserves the next dispatch id (contiguous from 1, once per logical dispatch). Backends that must
    // number dispatches the service does not see (filtered out) call this too.
    uint64_t reserve_dispatch_id();

    // Runs one logical dispatch: CONFIG ENTER, replay_pass_count, CONFIG EXIT, then either the single
    // fall-through submit or the pass loop (drain, snapshot, PASS ENTER/submit/PASS EXIT, continue,
    // restore), then complete(). d.info.dispatch_id must already hold a reserved id. Serialises with
    // every other dispatch on the same agent for the whole window. A dispatch made from inside a replay
    // callback on the same thread runs once, without CONFIG, and without taking the agent lock again.
    Outcome execute(DevicePort& port, Dispatch& d);

    // The pass being executed on the calling thread, or UINT64_MAX outside a pass.
    static uint64_t current_pass();

    void set_diagnostic_sink(DiagnosticSink sink);

    // Tests only: forget every context and configuration.
    void reset_for_testing();
};

}  // namespace gorocprof::replay
