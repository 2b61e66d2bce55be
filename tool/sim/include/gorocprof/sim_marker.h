/*
 * gorocprof simulated GPU runtime: markers, as roctx (rocprofiler-sdk-roctx/roctx.h) has them. A
 * profiler sees them through the API callback of sim_tool.h (domain SIM_API_DOMAIN_MARKER); without
 * one they only keep the thread's nesting depth and the range ids.
 *
 * C11-compatible. Part of libgorocprof_sim.
 */
#ifndef GOROCPROF_SIM_MARKER_H
#define GOROCPROF_SIM_MARKER_H

#include <gorocprof/sim.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t simRangeId_t;

/* An instant event. */
GOROCPROF_SIM_API void simMarkA(const char* message);

/* Nested ranges, per thread. Push returns the 0-based level of the range it starts; pop ends the
 * innermost range and returns its level, or -1 when the thread has no range open. */
GOROCPROF_SIM_API int simRangePushA(const char* message);
GOROCPROF_SIM_API int simRangePop(void);

/* A range that may end on another thread: start returns its id (1, 2, ... per process). The runtime
 * keeps no table of open ranges: stop only reports the call, pairing is the profiler's. */
GOROCPROF_SIM_API simRangeId_t simRangeStartA(const char* message);
GOROCPROF_SIM_API void simRangeStop(simRangeId_t id);

#ifdef __cplusplus
}
#endif

#endif /* GOROCPROF_SIM_MARKER_H */
