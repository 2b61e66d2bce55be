// Host-side test of the CUDA backend's options (options.*): each variable's default, what turns it
// off or on, and a value that is not understood.
#include "../testkit/check.hpp"

#include "options.hpp"

#include <map>
#include <string>

using gorocprof::cuda::CacheControl;
using gorocprof::cuda::Options;
using gorocprof::cuda::read_options;

namespace {

Options from(const std::map<std::string, std::string>& env) {
    return read_options([&env](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}

std::string describe(const Options& o) {
    std::string s;
    s += o.cache_control == CacheControl::All ? "cache=all" : "cache=none";
    s += o.graph_whole ? " graphs=whole" : "";
    s += o.graph_user_range ? "" : " graphrange=kernels";
    s += o.restore_all ? " restore=all" : " restore=reach";
    s += o.unprofiled_time ? " unprofiled" : "";
    s += o.windows ? " windows" : "";
    s += o.eager_profiler ? " eager" : "";
    s += o.union_sessions ? " union" : "";
    s += o.reenable_on_switch ? " reenable" : "";
    s += o.hold_other_threads ? "" : " nohold";
    s += o.duration_metric ? "" : " noduration";
    s += o.lasting_replayed ? "" : " nolastingreplayed";
    s += o.partial_sessions ? "" : " nopartial";
    s += o.union_runs ? "" : " nounionruns";
    s += o.timing ? " timing" : "";
    s += o.replay_timeout_ns ? " timeout=" + std::to_string(o.replay_timeout_ns) : "";
    s += o.async_kernel_trace ? "" : " noasync";
    s += o.api_activity ? "" : " apicallbacks";
    s += o.nvtx_injection_path.empty() ? "" : " nvtx=" + o.nvtx_injection_path;
    s += " problems=" + std::to_string(o.problems.size());
    return s;
}

}  // namespace

TEST_CASE(options_read_each_variable_and_default_the_rest) {
    const std::string defaults = "cache=all restore=reach unprofiled windows eager union reenable problems=0";
    struct Row {
        std::map<std::string, std::string> env;
        std::string want;
    } rows[] = {
        {{}, defaults},
        {{{"GOROCPROF_CACHE_CONTROL", "none"}}, "cache=none restore=reach unprofiled windows eager union reenable problems=0"},
        {{{"GOROCPROF_CACHE_CONTROL", "off"}}, "cache=all restore=reach unprofiled windows eager union reenable problems=1"},
        {{{"GOROCPROF_GRAPH_PROFILING", "graph"}}, "cache=all graphs=whole restore=reach unprofiled windows eager union reenable problems=0"},
        {{{"GOROCPROF_GRAPH_PROFILING", "node"}}, defaults},
        {{{"GOROCPROF_CUDA_GRAPH_RANGE", "kernels"}}, "cache=all graphrange=kernels restore=reach unprofiled windows eager union reenable problems=0"},
        {{{"GOROCPROF_CUDA_GRAPH_RANGE", "user"}}, defaults},
        {{{"GOROCPROF_CUDA_GRAPH_RANGE", "range"}}, defaults.substr(0, defaults.size() - 11) + " problems=1"},
        {{{"GOROCPROF_GRAPH_PROFILING", ""}}, defaults},
        {{{"GOROCPROF_GRAPH_PROFILING", "Graph"}}, defaults.substr(0, defaults.size() - 11) + " problems=1"},
        {{{"GOROCPROF_CUDA_RESTORE", "all"}}, "cache=all restore=all unprofiled windows eager union reenable problems=0"},
        {{{"GOROCPROF_CUDA_RESTORE", "reach"}}, defaults},
        {{{"GOROCPROF_CUDA_UNPROFILED_TIME", "0"}}, "cache=all restore=reach windows eager union reenable problems=0"},
        {{{"GOROCPROF_CUDA_WINDOW", "0"}}, "cache=all restore=reach unprofiled eager union reenable problems=0"},
        {{{"GOROCPROF_CUDA_EAGER_PROFILER", "0"}}, "cache=all restore=reach unprofiled windows union reenable problems=0"},
        {{{"GOROCPROF_CUDA_UNION_SESSIONS", "0"}}, "cache=all restore=reach unprofiled windows eager reenable problems=0"},
        {{{"GOROCPROF_CUDA_REENABLE_ON_SWITCH", "0"}}, "cache=all restore=reach unprofiled windows eager union problems=0"},
        {{{"GOROCPROF_CUDA_WINDOW", "1"}, {"GOROCPROF_CUDA_TIMING", "1"}}, defaults.substr(0, defaults.size() - 11) + " timing problems=0"},
        {{{"GOROCPROF_CUDA_TIMING", "0"}}, defaults},
        {{{"GOROCPROF_CUDA_HOLD_OTHER_THREADS", "0"}}, defaults.substr(0, defaults.size() - 11) + " nohold problems=0"},
        {{{"GOROCPROF_CUDA_HOLD_OTHER_THREADS", "1"}}, defaults},
        {{{"GOROCPROF_CUDA_DURATION_METRIC", "0"}}, defaults.substr(0, defaults.size() - 11) + " noduration problems=0"},
        {{{"GOROCPROF_CUDA_LASTING_REPLAYED", "0"}}, defaults.substr(0, defaults.size() - 11) + " nolastingreplayed problems=0"},
        {{{"GOROCPROF_CUDA_PARTIAL_SESSIONS", "0"}}, defaults.substr(0, defaults.size() - 11) + " nopartial problems=0"},
        {{{"GOROCPROF_CUDA_UNION_RUNS", "0"}}, defaults.substr(0, defaults.size() - 11) + " nounionruns problems=0"},
        {{{"GOROCPROF_CUDA_UNION_RUNS", "1"}}, defaults},
        {{{"GOROCPROF_CUDA_DURATION_METRIC", "1"}, {"GOROCPROF_CUDA_LASTING_REPLAYED", "1"}}, defaults},
        {{{"GOROCPROF_CUDA_REPLAY_TIMEOUT", "0.25"}}, defaults.substr(0, defaults.size() - 11) + " timeout=250000000 problems=0"},
        {{{"GOROCPROF_CUDA_REPLAY_TIMEOUT", "30"}}, defaults.substr(0, defaults.size() - 11) + " timeout=30000000000 problems=0"},
        {{{"GOROCPROF_CUDA_REPLAY_TIMEOUT", ""}}, defaults},
        {{{"GOROCPROF_CUDA_REPLAY_TIMEOUT", "0"}}, defaults.substr(0, defaults.size() - 11) + " problems=1"},
        {{{"GOROCPROF_CUDA_REPLAY_TIMEOUT", "5s"}}, defaults.substr(0, defaults.size() - 11) + " problems=1"},
        {{{"GOROCPROF_CUDA_REPLAY_TIMEOUT", "-1"}}, defaults.substr(0, defaults.size() - 11) + " problems=1"},
        {{{"GOROCPROF_CUDA_TIMING", ""}}, defaults},
        {{{"GOROCPROF_CUDA_ASYNC_KERNEL_TRACE", "0"}}, defaults.substr(0, defaults.size() - 11) + " noasync problems=0"},
        {{{"GOROCPROF_CUDA_ASYNC_KERNEL_TRACE", "1"}}, defaults},
        {{{"GOROCPROF_CUDA_API_ACTIVITY", "0"}}, defaults.substr(0, defaults.size() - 11) + " apicallbacks problems=0"},
        {{{"GOROCPROF_CUDA_API_ACTIVITY", "1"}}, defaults},
        {{{"NVTX_INJECTION64_PATH", "/x/libgorocprof_tool_cuda.so"}}, defaults.substr(0, defaults.size() - 11) + " nvtx=/x/libgorocprof_tool_cuda.so problems=0"},
        {{{"NVTX_INJECTION64_PATH", ""}}, defaults},
    };
    for (const Row& r : rows) {
        const std::string got = describe(from(r.env));
        if (got != r.want) {
            std::string env;
            for (const auto& [k, v] : r.env) env += k + "=" + v + " ";
            check::fail(__FILE__, __LINE__, "env {" + env + "}: got \"" + got + "\", want \"" + r.want + "\"");
        }
    }
}
