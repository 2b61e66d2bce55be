#include "options.hpp"

#include <cstdlib>
#include <cstring>

namespace gorocprof::cuda {
namespace {

// A diagnostic switch: on unless the variable starts with 0.
bool unless_zero(const char* v) { return !(v && *v == '0'); }

}  // namespace

CacheControl parse_cache_control(const char* value, std::string* problem) {
    problem->clear();
    if (!value || !*value || std::strcmp(value, "all") == 0) return CacheControl::All;
    if (std::strcmp(value, "none") == 0) return CacheControl::None;
    *problem = std::string("GOROCPROF_CACHE_CONTROL=") + value + ": expected all or none; caches are flushed (all)";
    return CacheControl::All;
}

int64_t parse_replay_timeout(const char* value, std::string* problem) {
    problem->clear();
    if (!value || !*value) return 0;
    char* end = nullptr;
    const double seconds = std::strtod(value, &end);
    // Up to a year: beyond that the bound is no guard, and nanoseconds would overflow far later anyway.
    if (end && *end == '\0' && seconds > 0 && seconds <= 3.2e7) return static_cast<int64_t>(seconds * 1e9);
    *problem = std::string("GOROCPROF_CUDA_REPLAY_TIMEOUT=") + value +
               ": expected a positive number of seconds; the bound is derived from each kernel's unprofiled time";
    return 0;
}

size_t parse_window_dispatches(const char* value, std::string* problem) {
    problem->clear();
    if (!value || !*value) return Options::kDefaultWindowDispatches;
    char* end = nullptr;
    const unsigned long n = std::strtoul(value, &end, 10);
    // The counter data image grows with the ranges a window may hold; beyond a few thousand a window saves
    // nothing more and costs memory.
    if (end && *end == '\0' && *value != '-' && n <= 4096) return static_cast<size_t>(n);
    *problem = std::string("GOROCPROF_CUDA_WINDOW_DISPATCHES=") + value + ": expected a whole number from 0 to 4096; " +
               std::to_string(Options::kDefaultWindowDispatches) + " dispatches per window";
    return Options::kDefaultWindowDispatches;
}

bool parse_graph_profiling(const char* value, std::string* problem) {
    problem->clear();
    if (!value || !*value || std::strcmp(value, "node") == 0) return false;
    if (std::strcmp(value, "graph") == 0) return true;
    *problem = std::string("GOROCPROF_GRAPH_PROFILING=") + value + ": expected node or graph; graphs are profiled per kernel node";
    return false;
}

Options read_options(const std::function<const char*(const char*)>& env) {
    Options o;
    std::string problem;
    o.cache_control = parse_cache_control(env("GOROCPROF_CACHE_CONTROL"), &problem);
    if (!problem.empty()) o.problems.push_back(problem);
    o.graph_whole = parse_graph_profiling(env("GOROCPROF_GRAPH_PROFILING"), &problem);
    if (!problem.empty()) o.problems.push_back(problem);
    const char* graph_range = env("GOROCPROF_CUDA_GRAPH_RANGE");
    o.graph_user_range = !(graph_range && std::strcmp(graph_range, "kernels") == 0);
    if (graph_range && *graph_range && std::strcmp(graph_range, "kernels") != 0 && std::strcmp(graph_range, "user") != 0)
        o.problems.push_back(std::string("GOROCPROF_CUDA_GRAPH_RANGE=") + graph_range +
                             ": expected user or kernels; each pass is one user range around the graph (user)");
    const char* restore = env("GOROCPROF_CUDA_RESTORE");
    o.restore_all = restore && std::string(restore) == "all";
    o.unprofiled_time = unless_zero(env("GOROCPROF_CUDA_UNPROFILED_TIME"));
    o.windows = unless_zero(env("GOROCPROF_CUDA_WINDOW"));
    o.window_dispatches = parse_window_dispatches(env("GOROCPROF_CUDA_WINDOW_DISPATCHES"), &problem);
    if (!problem.empty()) o.problems.push_back(problem);
    o.duration_metric = unless_zero(env("GOROCPROF_CUDA_DURATION_METRIC"));
    o.lasting_replayed = unless_zero(env("GOROCPROF_CUDA_LASTING_REPLAYED"));
    o.eager_profiler = unless_zero(env("GOROCPROF_CUDA_EAGER_PROFILER"));
    o.union_sessions = unless_zero(env("GOROCPROF_CUDA_UNION_SESSIONS"));
    o.union_runs = unless_zero(env("GOROCPROF_CUDA_UNION_RUNS"));
    o.partial_sessions = unless_zero(env("GOROCPROF_CUDA_PARTIAL_SESSIONS"));
    o.reenable_on_switch = unless_zero(env("GOROCPROF_CUDA_REENABLE_ON_SWITCH"));
    o.hold_other_threads = unless_zero(env("GOROCPROF_CUDA_HOLD_OTHER_THREADS"));
    o.replay_timeout_ns = parse_replay_timeout(env("GOROCPROF_CUDA_REPLAY_TIMEOUT"), &problem);
    if (!problem.empty()) o.problems.push_back(problem);
    if (const char* dir = env("GOROCPROF_CUDA_AVAILABILITY_DIR")) o.availability_dir = dir;
    const char* timing = env("GOROCPROF_CUDA_TIMING");
    o.timing = timing && *timing && *timing != '0';
    if (const char* nvtx = env("NVTX_INJECTION64_PATH")) o.nvtx_injection_path = nvtx;
    o.async_kernel_trace = unless_zero(env("GOROCPROF_CUDA_ASYNC_KERNEL_TRACE"));
    o.api_activity = unless_zero(env("GOROCPROF_CUDA_API_ACTIVITY"));
    return o;
}

const Options& options() {
    static const Options* o = new Options(read_options([](const char* name) { return std::getenv(name); }));
    return *o;  // never destroyed: callbacks may arrive during exit
}

}  // namespace gorocprof::cuda
