// Tracing (docs/tracing.md) on CUDA: the application's runtime and driver API calls, its memory copies and
// memsets, and its NVTX ranges and marks, written through tool/core/trace.hpp.
//
// - API calls: CUPTI's RUNTIME and DRIVER activity records (GOROCPROF_CUDA_API_ACTIVITY=0: CUPTI's runtime and
//   driver callback domains instead, each call's ENTER opening a core::trace::ApiCall and its EXIT closing it).
//   From activity records the lines carry CUPTI's correlation ids and core's own (markers) are kept above 2^32;
//   a launch's dispatch and a copy take the innermost traced call's id: the driver call's when the driver
//   domain is traced, else the enclosing runtime call's (its launch and copy callbacks are enabled for that).
//   The tool's own calls (its guard up: relaunches, snapshots, restores, cache flushes, timing runs, queries)
//   are marked with an external correlation id and dropped (ToolCalls); with callbacks they never
//   reach these hooks (injection.cpp returns first).
// - Copies and memsets: their device times come from CUPTI's activity buffers (MEMCPY, MEMCPY2, MEMSET),
//   on the records' clock through cuptiActivityRegisterTimestampCallback. Each application memory call's
//   driver ENTER registers its CUPTI correlation id; an activity record whose id was never registered
//   is the tool's own copy (its calls run under the guard and register nothing) and is dropped.
// - Markers: the NVTX injection of nvtx_injection.cpp (NVTX_INJECTION64_PATH names this library).
#pragma once

#include "check.hpp"
#include "core.hpp"

#include <cupti.h>

#include <cstdint>

namespace gorocprof::cuda::tracing {

// Turns on what the plan traces: the callback domains and activity kinds, the CPU agent's record when
// copies are traced, NVTX_INJECTION64_PATH when markers are. Called once from InitializeInjection after
// the launch callbacks are subscribed.
PortStatus start(CUpti_SubscriberHandle subscriber);

// Whether the driver callback domain is enabled whole (API calls traced from callbacks).
bool driver_domain_traced();

// Whether API lines carry CUPTI's correlation ids (an API domain traced from activity records).
bool api_ids_from_cupti();
// Keeps core's own correlation ids (markers) above CUPTI's 32-bit range when api_ids_from_cupti(): called
// before the first marker (NVTX may start before CUDA) and at start.
void keep_core_ids_apart();

// The tool's own driver work on this thread begins and ends (each tool callback's work and the exit handler's,
// ToolCalls): the API records of the calls in between are the tool's, not the
// application's. begin says whether it marked them (API calls traced from activity records); end takes that.
bool tool_calls_begin();
void tool_calls_end(bool marked);
// The same for a scope: each tool callback's work (injection.cpp), whose driver calls CUPTI records under
// the id of the application's call the callback belongs to, and the exit handler's.
struct ToolCalls {
    ToolCalls() : marked(tool_calls_begin()) {}
    ~ToolCalls() { tool_calls_end(marked); }
    ToolCalls(const ToolCalls&) = delete;
    ToolCalls& operator=(const ToolCalls&) = delete;
    const bool marked;
};

// injection.cpp's dispatcher calls these for every runtime and driver callback of the application (the
// tool's guard down): the ENTER hook first, before the callback's own work, and the EXIT hook last, after it.
void on_api_enter(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
void on_api_exit(CUpti_CallbackDomain domain);

// The correlation id a dispatch records for the launch whose CUPTI correlation id is `cupti_id`: the
// innermost traced API call's when an API domain is traced, CUPTI's own otherwise (docs/tracing.md).
uint64_t dispatch_correlation(uint32_t cupti_id);

// A plan without counters (--kernel-trace, --sys-trace or API tracing alone): no launch is waited for. With
// the kernel trace a launch's dispatch takes its times from CUPTI's kernel activity (CONCURRENT_KERNEL)
// instead of events the launch would wait for; without it a launch is no dispatch at all. So the
// application's launches stay asynchronous. GOROCPROF_CUDA_ASYNC_KERNEL_TRACE=0 keeps the synchronous path.
bool launches_not_waited();
// The application's launch whose driver ENTER has CUPTI correlation id `cupti_id` is this dispatch: its
// record is written when CUPTI delivers the kernel's activity record (on CUPTI's thread).
void defer_dispatch(const core::DispatchFacts& facts, uint32_t cupti_id);
// The launch failed: nothing ran, no record.
void cancel_dispatch(uint32_t cupti_id);

// Delivers every buffered activity record now (the exit flush, before core's end record).
void flush();

}  // namespace gorocprof::cuda::tracing
