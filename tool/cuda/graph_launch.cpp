// CUDA graph launches profiled node by node (ncu's `--graph-profiling node`): at cuGraphLaunch's ENTER the
// tool runs the exec's nodes itself on the launch stream, in a topological order (graph_walk.*): every
// kernel node through the same path as a plain launch (a dispatch of its own, all passes, memory restored
// between them), memsets, copies, event and host nodes once. CUPTI cannot cancel the launch, so the
// callback then points the launch's parameters at an empty graph exec of the tool's: the application's
// launch still happens, in stream order, and runs nothing a second time. That redirection is checked once
// per context with a graph of the tool's own; where it does not hold, or the graph has a node the tool
// cannot run, graphs are launched as they are and the user is told once per exec. Under `--graph-profiling
// graph` a launch is instead one dispatch: every pass runs the whole graph (README.md, "Graphs as one
// workload"). See README.md, "Graphs".
#include "backend_state.hpp"
#include "core.hpp"
#include "dispatch_path.hpp"
#include "graph_walk.hpp"
#include "options.hpp"

#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <string>

namespace gorocprof::cuda {

const CUpti_CallbackId kGraphIds[] = {
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy,
    // Exec-level edits: the exec then runs what the tool's clone does not say.
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecHostNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecChildGraphNodeSetParams,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventRecordNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphExecEventWaitNodeSetEvent,
    CUPTI_DRIVER_TRACE_CBID_cuGraphNodeSetEnabled,
};
const size_t kGraphIdCount = std::size(kGraphIds);

namespace {

// The calls' parameter structs (generated_cuda_meta.h) start with these members, in this order.
struct InstantiateHead {
    CUgraphExec* exec;
    CUgraph graph;
};
struct UpdateHead {
    CUgraphExec exec;
    CUgraph graph;
};
struct ExecHead {
    CUgraphExec exec;
};

GraphExecs& execs() {
    static auto* e = new GraphExecs;  // never destroyed: callbacks may arrive during exit
    return *e;
}

// Per context: the empty exec launches are redirected to, and whether redirecting was seen to work.
struct Redirect {
    CUgraphExec empty = nullptr;
    bool works = false;
    std::string why;  // why not
};

std::mutex g_mu;  // guards the five below
std::map<CUcontext, Redirect> g_redirects;
std::set<CUgraphExec> g_warned;
// --graph-profiling graph: what a graph dispatch is described by, per context and exec (its name graph_<n>,
// n counting execs in the order of their first launch, kept across updates), made at the exec's first launch
// after it was instantiated or updated (its kernels decide whether it is a communication workload).
std::map<std::pair<CUcontext, CUgraphExec>, KernelEntry> g_graph_entries;
std::map<CUgraphExec, uint64_t> g_graph_numbers;
uint64_t g_next_graph_number = 1;

// The tool's own check: while set, a launch of t_probe_from is redirected to t_probe_to by its callback.
thread_local CUgraphExec t_probe_from = nullptr;
thread_local CUgraphExec t_probe_to = nullptr;
thread_local bool t_probe_seen = false;
// The application's exec while its launch runs the empty one (ENTER to EXIT).
thread_local CUgraphExec t_swapped = nullptr;

bool is_launch(CUpti_CallbackId cbid) {
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

cuGraphLaunch_params* launch_params(const CUpti_CallbackData* cb) {
    // The parameters the driver launches with: the redirection writes them.
    return static_cast<cuGraphLaunch_params*>(const_cast<void*>(cb->functionParams));
}

PortStatus instantiate_empty(CUgraphExec* out) {
    CUgraph g = nullptr;
    CUgraphNode n = nullptr;
    PortStatus st = cu(cuGraphCreate(&g, 0), "cuGraphCreate");
    if (st.ok) st = cu(cuGraphAddEmptyNode(&n, g, nullptr, 0), "cuGraphAddEmptyNode");
    if (st.ok) st = cu(cuGraphInstantiateWithFlags(out, g, 0), "cuGraphInstantiateWithFlags");
    if (g) keep_first(&st, cu(cuGraphDestroy(g), "cuGraphDestroy"));
    return st;
}

// Launches a graph whose one memset writes 1 into a zeroed word, redirected at its ENTER to `empty`: the
// word stays 0 only when the driver launches what the callback left in the parameters.
PortStatus probe_redirect(CUcontext ctx, CUstream stream, CUgraphExec empty, bool* works) {
    CUdeviceptr word = 0;
    CUgraph g = nullptr;
    CUgraphExec exec = nullptr;
    CUgraphNode n = nullptr;
    PortStatus st = cu(cuMemAlloc(&word, sizeof(uint32_t)), "cuMemAlloc");
    if (st.ok) st = cu(cuMemsetD32(word, 0, 1), "cuMemsetD32");
    if (st.ok) st = cu(cuGraphCreate(&g, 0), "cuGraphCreate");
    CUDA_MEMSET_NODE_PARAMS m{};
    m.dst = word;
    m.value = 1;
    m.elementSize = sizeof(uint32_t);
    m.width = 1;
    m.height = 1;
    if (st.ok) st = cu(cuGraphAddMemsetNode(&n, g, nullptr, 0, &m, ctx), "cuGraphAddMemsetNode");
    if (st.ok) st = cu(cuGraphInstantiateWithFlags(&exec, g, 0), "cuGraphInstantiateWithFlags");
    if (st.ok) {
        t_probe_from = exec;
        t_probe_to = empty;
        t_probe_seen = false;
        st = cu(cuGraphLaunch(exec, stream), "cuGraphLaunch");
        t_probe_from = nullptr;
        if (st.ok) st = cu(cuStreamSynchronize(stream), "cuStreamSynchronize");
    }
    uint32_t value = 1;
    if (st.ok) st = cu(cuMemcpyDtoH(&value, word, sizeof value), "cuMemcpyDtoH");
    *works = st.ok && t_probe_seen && value == 0;
    if (exec) keep_first(&st, cu(cuGraphExecDestroy(exec), "cuGraphExecDestroy"));
    if (g) keep_first(&st, cu(cuGraphDestroy(g), "cuGraphDestroy"));
    if (word) keep_first(&st, cu(cuMemFree(word), "cuMemFree"));
    return st;
}

// The empty exec of the launch's context, or null with the reason launches there run as they are.
CUgraphExec redirect_target(ContextState& cs, std::string* why) {
    std::lock_guard<std::mutex> lock(g_mu);
    auto [it, fresh] = g_redirects.try_emplace(cs.ctx);
    Redirect& r = it->second;
    if (fresh) {
        PortStatus st = instantiate_empty(&r.empty);
        bool works = false;
        if (st.ok) st = probe_redirect(cs.ctx, cs.copy_stream, r.empty, &works);
        r.works = st.ok && works;
        if (!st.ok) r.why = "checking that a graph launch can be redirected failed: " + st.message();
        else if (!works)
            r.why = t_probe_seen ? "the driver ran the graph exec a launch was called with, not the one the tool's "
                                   "callback put in its place"
                                 : "the tool's callback did not see its own graph launch";
    }
    if (!r.works) *why = r.why;
    return r.works ? r.empty : nullptr;
}

// The exec's graph dispatch entries are made again at its next launch (its kernels may have changed); an
// update keeps its number, a new exec (the handle reused) gets the next one.
void forget_graph_entries(CUgraphExec exec, bool keep_number) {
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto it = g_graph_entries.begin(); it != g_graph_entries.end();)
        it = it->first.second == exec ? g_graph_entries.erase(it) : std::next(it);
    if (!keep_number) g_graph_numbers.erase(exec);
}

void warn_once(CUgraphExec exec, const std::string& why) {
    {
        std::lock_guard<std::mutex> lock(g_mu);
        if (!g_warned.insert(exec).second) return;
    }
    core::Core::instance().warn("graph exec " + std::to_string(reinterpret_cast<uintptr_t>(exec)) +
                                " is launched as it is: its kernels run once, without dispatch records or "
                                "counters (" + why + ")");
}

// A kernel node: a dispatch like a plain launch, except that every pass, the first included, is the tool's.
PortStatus run_kernel(const GraphStep& s, CUstream stream, CUcontext ctx, uint32_t correlation) {
    const CUDA_KERNEL_NODE_PARAMS& k = s.kernel;
    Launch& l = current_launch();
    l = Launch{};
    l.api = LaunchApi::Kernel;
    PortStatus st = step_function(s, &l.f);
    if (!st.ok) return st;
    l.grid[0] = k.gridDimX, l.grid[1] = k.gridDimY, l.grid[2] = k.gridDimZ;
    l.block[0] = k.blockDimX, l.block[1] = k.blockDimY, l.block[2] = k.blockDimZ;
    l.shared_bytes = k.sharedMemBytes;
    l.stream = stream;
    l.params = k.kernelParams;
    l.extra = k.extra;
    l.app_launch_pending = false;
    // A node with cluster dimensions, a cooperative launch or a priority: every pass is a cuLaunchKernelEx
    // that carries them (the configuration lives until the dispatch is done).
    CUlaunchConfig config{};
    if (!s.attrs.empty()) {
        config = step_launch_config(s, stream);
        l.api = LaunchApi::KernelEx;
        l.config = &config;
    }
    if (open_dispatch(ctx, nullptr, correlation)) {
        close_dispatch(correlation);
        return PortStatus::success();
    }
    // Not selected (or not profiled): it still runs, once.
    return launch_kernel_step(s, stream);
}

// The entry a graph dispatch of `exec` carries in `cs` (g_graph_entries), made from the exec's steps: the
// kernels' own entries are made too (their modules' globals resolved, as a snapshot needs).
const KernelEntry& graph_entry(ContextState& cs, CUgraphExec exec, const std::vector<GraphStep>& steps) {
    {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_graph_entries.find({cs.ctx, exec});
        if (it != g_graph_entries.end()) return it->second;
    }
    KernelEntry e;
    for (const GraphStep& s : steps) {
        CUfunction f = nullptr;
        if (s.kind != StepKind::Kernel || !step_function(s, &f).ok) continue;
        const KernelEntry* k = kernel_entry(cs, f, nullptr, false);
        if (e.communication.empty() && !k->communication.empty()) e.communication = k->communication;
    }
    std::lock_guard<std::mutex> lock(g_mu);
    auto number = g_graph_numbers.try_emplace(exec, g_next_graph_number).first;
    if (number->second == g_next_graph_number) ++g_next_graph_number;
    core::KernelDesc desc;
    desc.mangled_name = graph_dispatch_name(number->second);
    desc.agent_id = cs.agent_id;
    e.name = desc.mangled_name;
    e.ref = core::Core::instance().register_kernel(desc);
    return g_graph_entries.emplace(std::make_pair(cs.ctx, exec), std::move(e)).first->second;
}

// --graph-profiling graph: the launch is one dispatch whose every pass runs the whole graph; a graph the
// filters leave out runs once. *ran is false when it failed before any of the graph ran (the application's
// launch then runs it as it is).
PortStatus run_whole(const std::vector<GraphStep>& steps, CUgraphExec exec, CUstream stream, ContextState& cs,
                     uint32_t correlation, bool* ran) {
    *ran = false;
    for (const GraphStep& s : steps) {
        CUfunction f = nullptr;
        if (s.kind != StepKind::Kernel) continue;
        PortStatus st = step_function(s, &f);
        if (!st.ok) return st;
    }
    const KernelEntry& g = graph_entry(cs, exec, steps);
    Launch& l = current_launch();
    l = Launch{};
    l.api = LaunchApi::Kernel;
    l.grid[0] = l.grid[1] = l.grid[2] = 0;  // no one grid: README.md, "Graphs as one workload"
    l.block[0] = l.block[1] = l.block[2] = 0;
    l.stream = stream;
    l.app_launch_pending = false;
    l.graph = &steps;
    l.graph_kernels = kernel_steps(steps);
    for (const GraphStep& s : steps) {
        CUfunction f = nullptr;
        if (s.kind != StepKind::Kernel || !step_function(s, &f).ok) continue;  // resolved above
        const KernelEntry* k = kernel_entry(cs, f, nullptr, false);
        l.graph_reach.push_back({k->module, s.kernel.kernelParams, s.kernel.extra, k->params_known ? &k->params : nullptr});
    }
    written_addresses(steps, &l.graph_writes);
    *ran = true;
    if (open_dispatch_of(cs, g, correlation)) {
        close_dispatch(correlation);
        return PortStatus::success();
    }
    return run_graph(steps, stream);
}

void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    cuGraphLaunch_params* p = launch_params(cb);
    CUstream stream = p->hStream;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz && !stream) stream = CU_STREAM_PER_THREAD;
    Guard g;
    if (capturing(stream)) return;  // becomes a child graph of the graph being captured
    register_agents();
    std::string why;
    const std::vector<GraphStep>* steps = execs().steps(p->hGraph, &why);
    PortStatus st;
    ContextState* cs = steps ? context_state(cb->context, &st) : nullptr;
    if (steps && !cs) why = "context setup: " + st.message();
    CUgraphExec empty = cs ? redirect_target(*cs, &why) : nullptr;
    for (size_t i = 0; empty && i < steps->size(); ++i)
        if ((*steps)[i].kind == StepKind::Kernel && (*steps)[i].kernel.ctx && (*steps)[i].kernel.ctx != cb->context) {
            why = "a kernel node runs in another context than the launch's";
            empty = nullptr;
        }
    if (!empty) {
        warn_once(p->hGraph, why);
        return;
    }
    if (options().graph_whole && kernel_steps(*steps) > 0) {
        bool ran = false;
        st = run_whole(*steps, p->hGraph, stream, *cs, cb->correlationId, &ran);
        if (!ran) {
            warn_once(p->hGraph, "--graph-profiling graph: " + st.message());
            return;
        }
        if (!st.ok)
            core::Core::instance().warn(std::string("graph exec ") + std::to_string(reinterpret_cast<uintptr_t>(p->hGraph)) +
                                        " (--graph-profiling graph): " + st.message() + "; the nodes after it did not run");
        t_swapped = p->hGraph;
        p->hGraph = empty;
        return;
    }
    for (const GraphStep& s : *steps) {
        st = s.kind == StepKind::Kernel ? run_kernel(s, stream, cb->context, cb->correlationId) : run_step(s, stream);
        if (!st.ok) {
            // The nodes before it ran; running the graph again would repeat them.
            core::Core::instance().warn(std::string("graph exec ") + std::to_string(reinterpret_cast<uintptr_t>(p->hGraph)) +
                                        ": a " + step_name(s.kind) + " node failed (" + st.message() +
                                        "); the nodes after it did not run");
            break;
        }
    }
    t_swapped = p->hGraph;
    p->hGraph = empty;
}

}  // namespace

bool graph_probe_callback(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    if (!t_probe_from || !is_launch(cbid)) return false;
    cuGraphLaunch_params* p = launch_params(cb);
    if (cb->callbackSite != CUPTI_API_ENTER) return p->hGraph == t_probe_to;
    if (p->hGraph != t_probe_from) return false;
    p->hGraph = t_probe_to;
    t_probe_seen = true;
    return true;
}

void on_graph_callback(CUpti_CallbackId cbid, const CUpti_CallbackData* cb) {
    const bool enter = cb->callbackSite == CUPTI_API_ENTER;
    if (is_launch(cbid)) {
        if (enter) {
            launch_enter(cbid, cb);
        } else if (t_swapped) {
            launch_params(cb)->hGraph = t_swapped;  // the application's parameters as it passed them
            t_swapped = nullptr;
        }
        return;
    }
    if (enter || *static_cast<const CUresult*>(cb->functionReturnValue) != CUDA_SUCCESS) return;
    Guard g;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz: {
        auto* h = static_cast<const InstantiateHead*>(cb->functionParams);
        if (h->exec && *h->exec) {
            execs().instantiate(*h->exec, h->graph);
            forget_graph_entries(*h->exec, false);
        }
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2: {
        auto* h = static_cast<const UpdateHead*>(cb->functionParams);
        execs().instantiate(h->exec, h->graph);
        forget_graph_entries(h->exec, true);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy: {
        CUgraphExec exec = static_cast<const ExecHead*>(cb->functionParams)->exec;
        execs().forget(exec);
        forget_graph_entries(exec, false);
        std::lock_guard<std::mutex> lock(g_mu);
        g_warned.erase(exec);  // the handle may come back for another exec
        break;
    }
    default:
        execs().edited(static_cast<const ExecHead*>(cb->functionParams)->exec,
                       cb->functionName ? cb->functionName : "an exec-level edit");
        break;
    }
}

void forget_graph_context(CUcontext ctx) {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_redirects.find(ctx);
    if (it == g_redirects.end()) return;
    // Not through cu(): the context is being destroyed, and its graph execs with it.
    if (it->second.empty) cuGraphExecDestroy(it->second.empty);
    g_redirects.erase(it);
}

}  // namespace gorocprof::cuda
