// Every environment variable the CUDA backend reads, read once into one struct at injection
// (InitializeInjection calls options() first). The contract variable is documented in
// docs/record-format.md, section 1; the diagnostics below it in the same table.
#pragma once

#include "cache_flush.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gorocprof::cuda {

struct Options {
    // GOROCPROF_CACHE_CONTROL (contract, from --cache-control): flush the L2 before every pass.
    CacheControl cache_control = CacheControl::All;
    // GOROCPROF_GRAPH_PROFILING=graph (contract, from --graph-profiling): each graph launch is one dispatch,
    // the whole graph run per pass (README.md, "Graphs as one workload"); node (the default): each kernel node.
    bool graph_whole = false;
    // GOROCPROF_CUDA_GRAPH_RANGE: a graph dispatch's pass is one Range Profiler user range around the whole
    // graph (`user`, the default: what ncu's range around a graph counts, memset and copy nodes included), or
    // its kernels' auto ranges combined (`kernels`).
    bool graph_user_range = true;
    // GOROCPROF_CUDA_RESTORE=all: snapshots copy every tracked allocation instead of what a launch can reach.
    bool restore_all = false;
    // GOROCPROF_CUDA_UNPROFILED_TIME=0: no timing run; passes report their own event time.
    bool unprofiled_time = true;
    // GOROCPROF_CUDA_WINDOW=0: one Range Profiler Start/Stop per pass instead of windows of passes.
    bool windows = true;
    // GOROCPROF_CUDA_WINDOW_DISPATCHES=<n>: how many passes one counter window across dispatches may hold
    // before it is decoded (lasting_window.hpp; a dispatch that is not replayed has one); 0 gives each
    // dispatch its own Start/Stop.
    size_t window_dispatches = kDefaultWindowDispatches;
    static constexpr size_t kDefaultWindowDispatches = 32;
    // GOROCPROF_CUDA_DURATION_METRIC=0: the configuration every pass measures when it never changes
    // (RangeCounters::steady) does not take gpu__time_duration.sum for the records' durations.
    bool duration_metric = true;
    // GOROCPROF_CUDA_LASTING_REPLAYED=0: replayed dispatches keep a window each (their timing run outside
    // any session) instead of joining the window across dispatches when their durations come from the
    // configuration and their snapshot needs no reach scan.
    bool lasting_replayed = true;
    // GOROCPROF_CUDA_EAGER_PROFILER=0: the Range Profiler is enabled at a context's first launch instead of
    // at its creation.
    bool eager_profiler = true;
    // GOROCPROF_CUDA_UNION_SESSIONS=0: windows of configuration runs instead of union sessions.
    bool union_sessions = true;
    // GOROCPROF_CUDA_UNION_RUNS=0: every replay pass runs its kernel (once per hardware pass of its
    // configuration) instead of a dispatch running it once per hardware pass of its groups' union, every pass
    // reading its group from those runs (RangeCounters::union_runs).
    bool union_runs = true;
    // GOROCPROF_CUDA_PARTIAL_SESSIONS=0: a further session of union sessions reruns every pass of the window,
    // not only those up to the last whose group it measures (RangeCounters::session_runs).
    bool partial_sessions = true;
    // GOROCPROF_CUDA_REENABLE_ON_SWITCH=0: keep one profiler object across configuration changes (shows
    // why the object is re-created: the other configuration's metrics then read 0).
    bool reenable_on_switch = true;
    // GOROCPROF_CUDA_REPLAY_TIMEOUT=<seconds> (> 0): the timeout guard's bound for every replayed run; 0 (unset)
    // derives it from the kernel's unprofiled time (bounded_wait.hpp).
    int64_t replay_timeout_ns = 0;
    // GOROCPROF_CUDA_HOLD_OTHER_THREADS=0 (test-only, docs/environment.md): other threads' memory calls do not
    // wait for a replay window, so a copy can land between two passes and be reverted; the negative control
    // of tests/threads.cu, never for a real run.
    bool hold_other_threads = true;
    // GOROCPROF_CUDA_AVAILABILITY_DIR=<dir>: where the devices' counter availability images are kept between
    // processes (availability_cache.hpp); the front end points it into its query cache. Empty: read from the
    // driver by every process.
    std::string availability_dir;
    // GOROCPROF_CUDA_TIMING=1 (any value not empty and not starting with 0): time per phase on stderr at exit.
    bool timing = false;
    // NVTX_INJECTION64_PATH (NVTX's own variable; the front end sets it when markers are traced): the NVTX injection
    // the application loads. When markers are traced and it is empty, the tool names itself there (tracing.cpp).
    std::string nvtx_injection_path;
    // GOROCPROF_CUDA_ASYNC_KERNEL_TRACE=0: a kernel trace without counters waits for each launch (events) instead
    // of taking its times from CUPTI's kernel activity (tracing.hpp).
    bool async_kernel_trace = true;
    // GOROCPROF_CUDA_API_ACTIVITY=0: API calls are traced from CUPTI's callbacks (a callback per call on the
    // application's thread) instead of its RUNTIME and DRIVER activity records (tracing.hpp).
    bool api_activity = true;
    // A value the backend did not understand, one sentence each (the default was taken instead).
    std::vector<std::string> problems;
};

// GOROCPROF_CACHE_CONTROL's value: empty or absent is `all`; anything but `all` or `none` is `all` too,
// with `problem` saying so.
CacheControl parse_cache_control(const char* value, std::string* problem);

// GOROCPROF_GRAPH_PROFILING's value: true for `graph`; empty, absent or `node` is false, and so is anything
// else, with `problem` saying so.
bool parse_graph_profiling(const char* value, std::string* problem);

// GOROCPROF_CUDA_REPLAY_TIMEOUT's value in nanoseconds: empty or absent is 0 (derived); anything but a
// positive number of seconds is 0 too, with `problem` saying so.
int64_t parse_replay_timeout(const char* value, std::string* problem);

// GOROCPROF_CUDA_WINDOW_DISPATCHES's value: empty or absent is the default; anything but a whole number from
// 0 to 4096 is the default too, with `problem` saying so.
size_t parse_window_dispatches(const char* value, std::string* problem);

// The options from `env` (getenv's shape: null when unset).
Options read_options(const std::function<const char*(const char*)>& env);

// The process's options, read from the environment on the first call.
const Options& options();

}  // namespace gorocprof::cuda
