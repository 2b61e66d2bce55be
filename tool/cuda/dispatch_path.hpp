// What injection.cpp (launch callbacks) and graph_launch.cpp (graph callbacks) share: the tool's guard,
// the per-context state, and the path that turns one kernel launch into a replayed dispatch.
#pragma once

#include "cuda_port.hpp"

#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace gorocprof::cuda {

// Non-zero while this thread runs the tool's own driver calls (relaunches, copies, lookups): the
// callbacks they trigger are ours, not the application's. Every guard is raised inside a tracing::ToolCalls
// scope (a tool callback's or the exit handler's), which marks those calls for the activity records.
extern thread_local int t_guard;
struct Guard {
    Guard() { ++t_guard; }
    ~Guard() { --t_guard; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
};

void register_agents();
// The state of `ctx`, created on its first profiled launch (the calling thread has it current).
ContextState* context_state(CUcontext ctx, PortStatus* st);
// The state of `ctx` when it has one already, else null: no driver call.
ContextState* known_context_state(CUcontext ctx);
bool capturing(CUstream stream);

// The launch this thread is turning into a dispatch: the caller fills its kernel, dimensions, stream
// and arguments (app_launch_pending false when no application launch follows), then calls open_dispatch.
Launch& current_launch();
// Registers the kernel, reserves the dispatch id, applies the filters; for a selected launch takes the
// device's window lock, drains the device and takes the snapshot the plan needs. True when the launch is
// a dispatch: close_dispatch must then follow (after the application's launch, if there is one).
bool open_dispatch(CUcontext ctx, const char* symbol, uint32_t correlation);
// open_dispatch for a dispatch whose kernel is already described: `k` (a graph launched as one dispatch is
// described by its exec, graph_launch.cpp). The caller filled current_launch(), cs included.
struct KernelEntry;
bool open_dispatch_of(ContextState& cs, const KernelEntry& k, uint32_t correlation);
// Runs the replay service's passes for the open dispatch and releases what open_dispatch took.
void close_dispatch(uint32_t correlation);

// graph_launch.cpp: instantiate, update, destroy, exec edits and launches of CUDA graphs.
extern const CUpti_CallbackId kGraphIds[];
extern const size_t kGraphIdCount;
void on_graph_callback(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
// True when the callback belongs to the tool's own check that a graph launch can be redirected (it is
// then handled, whatever the guard says).
bool graph_probe_callback(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void forget_graph_context(CUcontext ctx);

}  // namespace gorocprof::cuda
