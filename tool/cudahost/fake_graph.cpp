// The fake driver's CUDA graphs (fake/cuda.h): a graph is its nodes in creation order, each with its
// type, dependencies and the parameters it was added with; cuGraphClone copies nodes and child graphs.
// Memsets and copies act on host memory; event records, waits and host functions are logged in
// state().stream_ops (host functions also run).
#include "fake_driver.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

struct CUgraphNode_st {
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    std::vector<CUgraphNode> deps;
    CUDA_KERNEL_NODE_PARAMS kernel{};
    CUDA_MEMSET_NODE_PARAMS memset{};
    CUDA_MEMCPY3D memcpy{};
    CUDA_HOST_NODE_PARAMS host{};
    CUevent event = nullptr;
    CUgraph child = nullptr;  // owned: the graph's own copy, as the driver keeps it
    std::map<int, CUlaunchAttributeValue> attrs;  // kernel nodes: what SetAttribute set (else all zero)
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};

namespace {

size_t g_live = 0;

CUresult add(CUgraphNode* out, CUgraph g, const CUgraphNode* deps, size_t n, CUgraphNodeType type,
             CUgraphNode_st** made = nullptr) {
    if (!g || !out) return CUDA_ERROR_INVALID_VALUE;
    auto node = std::make_unique<CUgraphNode_st>();
    node->type = type;
    node->deps.assign(deps, deps + n);
    *out = node.get();
    if (made) *made = node.get();
    g->nodes.push_back(std::move(node));
    return CUDA_SUCCESS;
}

// A node of `type` whose `field` holds what it was added with.
template <typename T>
CUresult add_with(CUgraphNode* out, CUgraph g, const CUgraphNode* deps, size_t n, CUgraphNodeType type,
                  T CUgraphNode_st::*field, const T& value) {
    CUgraphNode_st* made = nullptr;
    const CUresult r = add(out, g, deps, n, type, &made);
    if (made) made->*field = value;
    return r;
}

char* host(CUdeviceptr p) { return reinterpret_cast<char*>(static_cast<uintptr_t>(p)); }

template <typename T>
void fill(CUdeviceptr dst, size_t pitch, T value, size_t w, size_t h) {
    ++fakecuda::state().memsets;
    for (size_t r = 0; r < h; ++r) {
        T* row = reinterpret_cast<T*>(host(dst) + r * pitch);
        for (size_t i = 0; i < w; ++i) row[i] = value;
    }
}

std::string address(const void* p) {
    char b[32];
    std::snprintf(b, sizeof b, "%p", p);
    return b;
}

}  // namespace

namespace fakecuda {

CUgraphNode add_alloc_node(CUgraph graph, const CUgraphNode* deps, size_t n) {
    CUgraphNode node = nullptr;
    add(&node, graph, deps, n, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
    return node;
}

size_t live_graphs() { return g_live; }

}  // namespace fakecuda

extern "C" {

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream) { return fill(dst, 0, v, n, 1), CUDA_SUCCESS; }
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream) { return fill(dst, 0, v, n, 1), CUDA_SUCCESS; }
CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char v, size_t w, size_t h, CUstream) {
    return fill(dst, pitch, v, w, h), CUDA_SUCCESS;
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short v, size_t w, size_t h, CUstream) {
    return fill(dst, pitch, v, w, h), CUDA_SUCCESS;
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int v, size_t w, size_t h, CUstream) {
    return fill(dst, pitch, v, w, h), CUDA_SUCCESS;
}

CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D* c, CUstream) {
    if (!c || c->Height != 1 || c->Depth != 1) return CUDA_ERROR_INVALID_VALUE;  // linear copies only
    ++fakecuda::state().copies;
    const void* src = c->srcMemoryType == CU_MEMORYTYPE_HOST ? c->srcHost : host(c->srcDevice);
    void* dst = c->dstMemoryType == CU_MEMORYTYPE_HOST ? c->dstHost : host(c->dstDevice);
    std::memcpy(dst, src, c->WidthInBytes);
    return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent ev, CUstream) {
    fakecuda::state().stream_ops.push_back("record " + address(ev));
    return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream, CUevent ev, unsigned int) {
    fakecuda::state().stream_ops.push_back("wait " + address(ev));
    return CUDA_SUCCESS;
}
CUresult cuLaunchHostFunc(CUstream, CUhostFn fn, void* data) {
    fakecuda::state().stream_ops.push_back("host");
    fn(data);
    return CUDA_SUCCESS;
}

CUresult cuGraphCreate(CUgraph* g, unsigned int) {
    *g = new CUgraph_st;
    ++g_live;
    return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph g) {
    if (!g) return CUDA_ERROR_INVALID_VALUE;
    for (auto& n : g->nodes)
        if (n->child) cuGraphDestroy(n->child);
    delete g;
    --g_live;
    return CUDA_SUCCESS;
}

CUresult cuGraphClone(CUgraph* clone, CUgraph g) {
    if (!g) return CUDA_ERROR_INVALID_VALUE;
    cuGraphCreate(clone, 0);
    std::unordered_map<CUgraphNode, CUgraphNode> map;
    for (auto& n : g->nodes) {
        auto c = std::make_unique<CUgraphNode_st>(*n);
        for (CUgraphNode& d : c->deps) d = map.at(d);
        if (n->child) cuGraphClone(&c->child, n->child);
        map[n.get()] = c.get();
        (*clone)->nodes.push_back(std::move(c));
    }
    return CUDA_SUCCESS;
}

CUresult cuGraphAddKernelNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n,
                              const CUDA_KERNEL_NODE_PARAMS* p) {
    return add_with(node, g, deps, n, CU_GRAPH_NODE_TYPE_KERNEL, &CUgraphNode_st::kernel, *p);
}
CUresult cuGraphAddMemsetNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n,
                              const CUDA_MEMSET_NODE_PARAMS* p, CUcontext) {
    return add_with(node, g, deps, n, CU_GRAPH_NODE_TYPE_MEMSET, &CUgraphNode_st::memset, *p);
}
CUresult cuGraphAddMemcpyNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n, const CUDA_MEMCPY3D* p,
                              CUcontext) {
    return add_with(node, g, deps, n, CU_GRAPH_NODE_TYPE_MEMCPY, &CUgraphNode_st::memcpy, *p);
}
CUresult cuGraphAddHostNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n,
                            const CUDA_HOST_NODE_PARAMS* p) {
    return add_with(node, g, deps, n, CU_GRAPH_NODE_TYPE_HOST, &CUgraphNode_st::host, *p);
}
CUresult cuGraphAddEventRecordNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n, CUevent ev) {
    return add_with(node, g, deps, n, CU_GRAPH_NODE_TYPE_EVENT_RECORD, &CUgraphNode_st::event, ev);
}
CUresult cuGraphAddEventWaitNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n, CUevent ev) {
    return add_with(node, g, deps, n, CU_GRAPH_NODE_TYPE_WAIT_EVENT, &CUgraphNode_st::event, ev);
}
CUresult cuGraphAddEmptyNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n) {
    return add(node, g, deps, n, CU_GRAPH_NODE_TYPE_EMPTY);
}
CUresult cuGraphAddChildGraphNode(CUgraphNode* node, CUgraph g, const CUgraphNode* deps, size_t n, CUgraph child) {
    CUgraphNode_st* made = nullptr;
    CUresult r = add(node, g, deps, n, CU_GRAPH_NODE_TYPE_GRAPH, &made);
    if (made) cuGraphClone(&made->child, child);  // the driver embeds a copy of the child graph
    return r;
}

CUresult cuGraphGetNodes(CUgraph g, CUgraphNode* nodes, size_t* n) {
    if (!g || !n) return CUDA_ERROR_INVALID_VALUE;
    if (nodes)
        for (size_t i = 0; i < *n && i < g->nodes.size(); ++i) nodes[i] = g->nodes[i].get();
    *n = g->nodes.size();
    return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetDependencies(CUgraphNode node, CUgraphNode* deps, CUgraphEdgeData*, size_t* n) {
    if (!node || !n) return CUDA_ERROR_INVALID_VALUE;
    if (deps)
        for (size_t i = 0; i < *n && i < node->deps.size(); ++i) deps[i] = node->deps[i];
    *n = node->deps.size();
    return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetType(CUgraphNode node, CUgraphNodeType* type) {
    *type = node->type;
    return CUDA_SUCCESS;
}

CUresult cuGraphKernelNodeGetAttribute(CUgraphNode node, CUkernelNodeAttrID attr, CUkernelNodeAttrValue* value) {
    if (!node || node->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    auto it = node->attrs.find(attr);
    *value = it == node->attrs.end() ? CUlaunchAttributeValue{} : it->second;
    return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeSetAttribute(CUgraphNode node, CUkernelNodeAttrID attr, const CUkernelNodeAttrValue* value) {
    if (!node || node->type != CU_GRAPH_NODE_TYPE_KERNEL) return CUDA_ERROR_INVALID_VALUE;
    node->attrs[attr] = *value;
    return CUDA_SUCCESS;
}

#define FAKE_GETTER(fn, kind, field, T)                             \
    CUresult fn(CUgraphNode node, T* out) {                         \
        if (!node || node->type != (kind)) return CUDA_ERROR_INVALID_VALUE; \
        *out = node->field;                                         \
        return CUDA_SUCCESS;                                        \
    }
FAKE_GETTER(cuGraphKernelNodeGetParams, CU_GRAPH_NODE_TYPE_KERNEL, kernel, CUDA_KERNEL_NODE_PARAMS)
FAKE_GETTER(cuGraphMemsetNodeGetParams, CU_GRAPH_NODE_TYPE_MEMSET, memset, CUDA_MEMSET_NODE_PARAMS)
FAKE_GETTER(cuGraphMemcpyNodeGetParams, CU_GRAPH_NODE_TYPE_MEMCPY, memcpy, CUDA_MEMCPY3D)
FAKE_GETTER(cuGraphHostNodeGetParams, CU_GRAPH_NODE_TYPE_HOST, host, CUDA_HOST_NODE_PARAMS)
FAKE_GETTER(cuGraphEventRecordNodeGetEvent, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event, CUevent)
FAKE_GETTER(cuGraphEventWaitNodeGetEvent, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event, CUevent)
FAKE_GETTER(cuGraphChildGraphNodeGetGraph, CU_GRAPH_NODE_TYPE_GRAPH, child, CUgraph)
#undef FAKE_GETTER

}  // extern "C"
