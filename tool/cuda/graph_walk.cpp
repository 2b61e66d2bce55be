#include "graph_walk.hpp"

#include <functional>
#include <queue>
#include <unordered_map>

namespace gorocprof::cuda {
namespace {

// The nodes `node` depends on. CUDA 12.3 added edge data (cuGraphNodeGetDependencies_v2); CUDA 13 made
// that the function's only form. No edge data asked for: an edge that carries some (a programmatic
// dependency) fails the query, and the graph is then launched as it is.
PortStatus dependencies(CUgraphNode node, std::vector<CUgraphNode>* out) {
    size_t n = 0;
#if CUDA_VERSION >= 13000
    auto get = [&](CUgraphNode* deps) { return cuGraphNodeGetDependencies(node, deps, nullptr, &n); };
#elif CUDA_VERSION >= 12030
    auto get = [&](CUgraphNode* deps) { return cuGraphNodeGetDependencies_v2(node, deps, nullptr, &n); };
#else
    auto get = [&](CUgraphNode* deps) { return cuGraphNodeGetDependencies(node, deps, &n); };
#endif
    PortStatus st = cu(get(nullptr), "cuGraphNodeGetDependencies");
    if (!st.ok) return st;
    out->assign(n, nullptr);
    if (n == 0) return st;
    st = cu(get(out->data()), "cuGraphNodeGetDependencies");
    out->resize(n);
    return st;
}

// The attributes of kernel node `node` that a launch must carry: cluster dimensions other than none, a
// cooperative launch, a priority. An attribute the driver does not answer for is left out.
void kernel_attributes(CUgraphNode node, std::vector<CUlaunchAttribute>* out) {
    out->clear();
    const CUlaunchAttributeID ids[] = {CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
                                       CU_LAUNCH_ATTRIBUTE_PRIORITY};
    for (CUlaunchAttributeID id : ids) {
        CUkernelNodeAttrValue v{};
        if (!cu(cuGraphKernelNodeGetAttribute(node, id, &v), "cuGraphKernelNodeGetAttribute").ok) continue;
        const bool set = id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
                             ? v.clusterDim.x * v.clusterDim.y * v.clusterDim.z > 1
                             : (id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE ? v.cooperative != 0 : v.priority != 0);
        if (!set) continue;
        CUlaunchAttribute a{};
        a.id = id;
        a.value = v;
        out->push_back(a);
    }
}

// The nodes of `graph` in the order the walk visits them (see walk_graph).
PortStatus topological(CUgraph graph, std::vector<CUgraphNode>* order) {
    size_t n = 0;
    PortStatus st = cu(cuGraphGetNodes(graph, nullptr, &n), "cuGraphGetNodes");
    if (!st.ok) return st;
    std::vector<CUgraphNode> nodes(n);
    if (n && !(st = cu(cuGraphGetNodes(graph, nodes.data(), &n), "cuGraphGetNodes")).ok) return st;
    nodes.resize(n);
    std::unordered_map<CUgraphNode, size_t> index;
    for (size_t i = 0; i < n; ++i) index[nodes[i]] = i;
    std::vector<size_t> waiting(n, 0);
    std::vector<std::vector<size_t>> dependents(n);
    std::vector<CUgraphNode> deps;
    for (size_t i = 0; i < n; ++i) {
        if (!(st = dependencies(nodes[i], &deps)).ok) return st;
        for (CUgraphNode d : deps) {
            auto it = index.find(d);
            if (it == index.end())
                return PortStatus::failure("cuGraphNodeGetDependencies", "a node depends on a node outside its graph");
            dependents[it->second].push_back(i);
            ++waiting[i];
        }
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < n; ++i)
        if (waiting[i] == 0) ready.push(i);
    order->clear();
    while (!ready.empty()) {
        const size_t i = ready.top();
        ready.pop();
        order->push_back(nodes[i]);
        for (size_t j : dependents[i])
            if (--waiting[j] == 0) ready.push(j);
    }
    if (order->size() != n) return PortStatus::failure("cuGraphGetNodes", "the graph's dependencies form a cycle");
    return st;
}

PortStatus walk_into(CUgraph graph, int depth, std::vector<GraphStep>* out) {
    if (depth > 64) return PortStatus::failure("cuGraphChildGraphNodeGetGraph", "child graphs nested over 64 deep");
    std::vector<CUgraphNode> order;
    PortStatus st = topological(graph, &order);
    for (size_t i = 0; st.ok && i < order.size(); ++i) {
        CUgraphNode node = order[i];
        CUgraphNodeType type;
        if (!(st = cu(cuGraphNodeGetType(node, &type), "cuGraphNodeGetType")).ok) break;
        GraphStep s;
        s.node = node;
        switch (type) {
        case CU_GRAPH_NODE_TYPE_KERNEL:
            s.kind = StepKind::Kernel;
            st = cu(cuGraphKernelNodeGetParams(node, &s.kernel), "cuGraphKernelNodeGetParams");
            if (st.ok) kernel_attributes(node, &s.attrs);
            break;
        case CU_GRAPH_NODE_TYPE_MEMSET:
            s.kind = StepKind::Memset;
            st = cu(cuGraphMemsetNodeGetParams(node, &s.memset), "cuGraphMemsetNodeGetParams");
            break;
        case CU_GRAPH_NODE_TYPE_MEMCPY:
            s.kind = StepKind::Memcpy;
            st = cu(cuGraphMemcpyNodeGetParams(node, &s.memcpy), "cuGraphMemcpyNodeGetParams");
            break;
        case CU_GRAPH_NODE_TYPE_HOST:
            s.kind = StepKind::Host;
            st = cu(cuGraphHostNodeGetParams(node, &s.host), "cuGraphHostNodeGetParams");
            break;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
            s.kind = StepKind::EventRecord;
            st = cu(cuGraphEventRecordNodeGetEvent(node, &s.event), "cuGraphEventRecordNodeGetEvent");
            break;
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
            s.kind = StepKind::EventWait;
            st = cu(cuGraphEventWaitNodeGetEvent(node, &s.event), "cuGraphEventWaitNodeGetEvent");
            break;
        case CU_GRAPH_NODE_TYPE_EMPTY:
            continue;
        case CU_GRAPH_NODE_TYPE_GRAPH: {
            CUgraph child = nullptr;
            st = cu(cuGraphChildGraphNodeGetGraph(node, &child), "cuGraphChildGraphNodeGetGraph");
            if (st.ok) st = walk_into(child, depth + 1, out);
            continue;
        }
        default:
            return PortStatus::failure("walk_graph", "node " + std::to_string(i) + " is of type " +
                                                         std::to_string(static_cast<int>(type)) +
                                                         " (not a kernel, memset, memcpy, host, event or child graph "
                                                         "node), which the tool does not run node by node");
        }
        if (st.ok) out->push_back(s);
    }
    return st;
}

}  // namespace

PortStatus walk_graph(CUgraph graph, std::vector<GraphStep>* out) {
    out->clear();
    return walk_into(graph, 0, out);
}

PortStatus run_step(const GraphStep& s, CUstream stream) {
    switch (s.kind) {
    case StepKind::Memset: {
        const CUDA_MEMSET_NODE_PARAMS& m = s.memset;
        const bool rows = m.height > 1;
        switch (m.elementSize) {
        case 1:
            return rows ? cu(cuMemsetD2D8Async(m.dst, m.pitch, static_cast<unsigned char>(m.value), m.width, m.height,
                                               stream), "cuMemsetD2D8Async")
                        : cu(cuMemsetD8Async(m.dst, static_cast<unsigned char>(m.value), m.width, stream),
                             "cuMemsetD8Async");
        case 2:
            return rows ? cu(cuMemsetD2D16Async(m.dst, m.pitch, static_cast<unsigned short>(m.value), m.width,
                                                m.height, stream), "cuMemsetD2D16Async")
                        : cu(cuMemsetD16Async(m.dst, static_cast<unsigned short>(m.value), m.width, stream),
                             "cuMemsetD16Async");
        case 4:
            return rows ? cu(cuMemsetD2D32Async(m.dst, m.pitch, m.value, m.width, m.height, stream),
                             "cuMemsetD2D32Async")
                        : cu(cuMemsetD32Async(m.dst, m.value, m.width, stream), "cuMemsetD32Async");
        default:
            return PortStatus::failure("run_step", "memset node of element size " + std::to_string(m.elementSize));
        }
    }
    case StepKind::Memcpy:
        return cu(cuMemcpy3DAsync(&s.memcpy, stream), "cuMemcpy3DAsync");
    case StepKind::EventRecord:
        return cu(cuEventRecord(s.event, stream), "cuEventRecord");
    case StepKind::EventWait:
        return cu(cuStreamWaitEvent(stream, s.event, 0), "cuStreamWaitEvent");
    case StepKind::Host:
        return cu(cuLaunchHostFunc(stream, s.host.fn, s.host.userData), "cuLaunchHostFunc");
    case StepKind::Kernel:
        break;
    }
    return PortStatus::failure("run_step", "a kernel step is a dispatch, not run here");
}

PortStatus step_function(const GraphStep& s, CUfunction* f) {
    *f = s.kernel.func;
    if (*f || !s.kernel.kern) return PortStatus::success();
    return cu(cuKernelGetFunction(f, s.kernel.kern), "cuKernelGetFunction");
}

PortStatus launch_kernel_step(const GraphStep& s, CUstream stream) {
    const CUDA_KERNEL_NODE_PARAMS& k = s.kernel;
    CUfunction f = nullptr;
    PortStatus st = step_function(s, &f);
    if (!st.ok) return st;
    if (s.attrs.empty())
        return cu(cuLaunchKernel(f, k.gridDimX, k.gridDimY, k.gridDimZ, k.blockDimX, k.blockDimY, k.blockDimZ,
                                 k.sharedMemBytes, stream, k.kernelParams, k.extra),
                  "cuLaunchKernel");
    CUlaunchConfig config = step_launch_config(s, stream);
    return cu(cuLaunchKernelEx(&config, f, k.kernelParams, k.extra), "cuLaunchKernelEx");
}

CUlaunchConfig step_launch_config(const GraphStep& s, CUstream stream) {
    const CUDA_KERNEL_NODE_PARAMS& k = s.kernel;
    CUlaunchConfig config{};
    config.gridDimX = k.gridDimX, config.gridDimY = k.gridDimY, config.gridDimZ = k.gridDimZ;
    config.blockDimX = k.blockDimX, config.blockDimY = k.blockDimY, config.blockDimZ = k.blockDimZ;
    config.sharedMemBytes = k.sharedMemBytes;
    config.hStream = stream;
    config.attrs = const_cast<CUlaunchAttribute*>(s.attrs.data());
    config.numAttrs = static_cast<unsigned>(s.attrs.size());
    return config;
}

PortStatus run_graph(const std::vector<GraphStep>& steps, CUstream stream) {
    for (size_t i = 0; i < steps.size(); ++i) {
        const GraphStep& s = steps[i];
        PortStatus st = s.kind == StepKind::Kernel ? launch_kernel_step(s, stream) : run_step(s, stream);
        if (!st.ok) {
            st.reason += " (step " + std::to_string(i) + " of the graph, a " + step_name(s.kind) + " node)";
            return st;
        }
    }
    return PortStatus::success();
}

std::string graph_dispatch_name(uint64_t n) { return "graph_" + std::to_string(n); }

size_t kernel_steps(const std::vector<GraphStep>& steps) {
    size_t n = 0;
    for (const GraphStep& s : steps) n += s.kind == StepKind::Kernel;
    return n;
}

void written_addresses(const std::vector<GraphStep>& steps, std::vector<CUdeviceptr>* out) {
    out->clear();
    for (const GraphStep& s : steps) {
        if (s.kind == StepKind::Memset && s.memset.dst) out->push_back(s.memset.dst);
        if (s.kind == StepKind::Memcpy && (s.memcpy.dstMemoryType == CU_MEMORYTYPE_DEVICE || s.memcpy.dstMemoryType == CU_MEMORYTYPE_UNIFIED) &&
            s.memcpy.dstDevice)
            out->push_back(s.memcpy.dstDevice);
    }
}

// The clones below are the tool's own copies: a failed destroy only leaves one allocated until exit, so the
// results of cuGraphDestroy are not checked through cu() here.
GraphExecs::~GraphExecs() {
    for (auto& [exec, e] : execs_)
        if (e.clone) cuGraphDestroy(e.clone);
}

void GraphExecs::instantiate(CUgraphExec exec, CUgraph graph) {
    Entry e;
    PortStatus st = cu(cuGraphClone(&e.clone, graph), "cuGraphClone");
    if (!st.ok) e.clone = nullptr;
    if (st.ok) st = walk_graph(e.clone, &e.steps);
    if (!st.ok) {
        e.steps.clear();
        e.why = st.message();
    }
    std::lock_guard<std::mutex> lock(mu_);
    Entry& slot = execs_[exec];
    if (slot.clone) cuGraphDestroy(slot.clone);
    slot = std::move(e);
}

void GraphExecs::forget(CUgraphExec exec) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = execs_.find(exec);
    if (it == execs_.end()) return;
    if (it->second.clone) cuGraphDestroy(it->second.clone);
    execs_.erase(it);
}

void GraphExecs::edited(CUgraphExec exec, const std::string& call) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = execs_.find(exec);
    if (it == execs_.end() || !it->second.why.empty()) return;
    it->second.why = call + " changed the graph exec after it was instantiated; the tool runs only what the graph "
                            "it was instantiated or updated from says";
}

const std::vector<GraphStep>* GraphExecs::steps(CUgraphExec exec, std::string* why) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = execs_.find(exec);
    if (it == execs_.end()) {
        *why = "the graph exec was instantiated before the tool was loaded, or by a call it does not follow";
        return nullptr;
    }
    if (!it->second.why.empty()) {
        *why = it->second.why;
        return nullptr;
    }
    return &it->second.steps;
}

const char* step_name(StepKind k) {
    switch (k) {
    case StepKind::Kernel: return "kernel";
    case StepKind::Memset: return "memset";
    case StepKind::Memcpy: return "memcpy";
    case StepKind::EventRecord: return "event record";
    case StepKind::EventWait: return "event wait";
    case StepKind::Host: return "host";
    }
    return "?";
}

}  // namespace gorocprof::cuda
