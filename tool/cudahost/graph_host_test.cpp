// Host-side tests of how the CUDA backend runs a graph node by node (graph_walk.*), against the fake
// driver's graphs (fake_graph.cpp): the order of the steps, child graphs walked in place, nodes it
// refuses, the exec registry across graph destroy, update and exec-level edits, and the steps that are
// not kernels running once on the stream.
#include "../testkit/check.hpp"

#include "fake_driver.hpp"
#include "graph_walk.hpp"

#include <cstdint>
#include <string>
#include <vector>

using gorocprof::cuda::GraphExecs;
using gorocprof::cuda::GraphStep;
using gorocprof::cuda::run_step;
using gorocprof::cuda::StepKind;
using gorocprof::cuda::walk_graph;

namespace {

// Kernels are told apart by their function handle: the address of one of these names.
const char* const kKernels[] = {"a", "b", "c", "d", "e", "f"};
CUfunction kernel(int i) { return reinterpret_cast<CUfunction>(const_cast<char*>(kKernels[i])); }

CUgraphNode add_kernel(CUgraph g, int k, std::vector<CUgraphNode> deps = {}) {
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = kernel(k);
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = p.blockDimY = p.blockDimZ = 32;
    CUgraphNode n = nullptr;
    CHECK_EQ(cuGraphAddKernelNode(&n, g, deps.data(), deps.size(), &p), CUDA_SUCCESS);
    return n;
}

// The steps as words: a kernel by its name, the others by kind.
std::string describe(const std::vector<GraphStep>& steps) {
    std::string s;
    for (const GraphStep& st : steps) {
        if (!s.empty()) s += ' ';
        if (st.kind == StepKind::Kernel) s += reinterpret_cast<const char*>(st.kernel.func);
        else s += gorocprof::cuda::step_name(st.kind);
    }
    return s;
}

std::string walked(CUgraph g) {
    std::vector<GraphStep> steps;
    const auto st = walk_graph(g, &steps);
    if (!st.ok) return "error: " + st.message();
    return describe(steps);
}

CUgraph graph() {
    CUgraph g = nullptr;
    CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
    return g;
}

}  // namespace

TEST_CASE(graph_walk_runs_each_node_after_its_dependencies) {
    struct Row {
        const char* name;
        void (*build)(CUgraph);
        std::string want;
    } rows[] = {
        {"a chain", [](CUgraph g) { add_kernel(g, 1, {add_kernel(g, 0)}); }, "a b"},
        {"nodes added before what they depend on is not possible; independent nodes keep the graph's order",
         [](CUgraph g) {
             add_kernel(g, 2);
             add_kernel(g, 0);
             add_kernel(g, 1);
         },
         "c a b"},
        {"a diamond: the join waits for both branches, the branches in the graph's order",
         [](CUgraph g) {
             CUgraphNode top = add_kernel(g, 0);
             CUgraphNode right = add_kernel(g, 2, {top});
             CUgraphNode left = add_kernel(g, 1, {top});
             add_kernel(g, 3, {left, right});
         },
         "a c b d"},
        {"among the nodes ready, the lowest index runs first: a chain goes on before a node ready from the start",
         [](CUgraph g) {
             CUgraphNode a = add_kernel(g, 0);
             CUgraphNode b = add_kernel(g, 1, {a});
             add_kernel(g, 2, {b});
             add_kernel(g, 3);
         },
         "a b c d"},
        {"empty nodes are dropped but still order what follows them",
         [](CUgraph g) {
             CUgraphNode a = add_kernel(g, 0);
             CUgraphNode e = nullptr;
             CHECK_EQ(cuGraphAddEmptyNode(&e, g, &a, 1), CUDA_SUCCESS);
             add_kernel(g, 1, {e});
         },
         "a b"},
    };
    for (const Row& r : rows) {
        CUgraph g = graph();
        r.build(g);
        const std::string got = walked(g);
        if (got != r.want) check::fail(__FILE__, __LINE__, std::string(r.name) + ": got " + got + ", want " + r.want);
        cuGraphDestroy(g);
    }
}

TEST_CASE(graph_walk_runs_a_child_graph_where_its_node_stands) {
    CUgraph inner = graph();
    add_kernel(inner, 3, {add_kernel(inner, 2)});
    CUgraph middle = graph();
    CUgraphNode m0 = add_kernel(middle, 1);
    CUgraphNode in = nullptr;
    CHECK_EQ(cuGraphAddChildGraphNode(&in, middle, &m0, 1, inner), CUDA_SUCCESS);
    CUgraph outer = graph();
    CUgraphNode o0 = add_kernel(outer, 0);
    CUgraphNode mid = nullptr;
    CHECK_EQ(cuGraphAddChildGraphNode(&mid, outer, &o0, 1, middle), CUDA_SUCCESS);
    add_kernel(outer, 4, {mid});
    CHECK_EQ(walked(outer), std::string("a b c d e"));
    cuGraphDestroy(outer);
    cuGraphDestroy(middle);
    cuGraphDestroy(inner);
}

TEST_CASE(graph_walk_refuses_a_node_it_cannot_run_and_names_it) {
    CUgraph g = graph();
    CUgraphNode a = add_kernel(g, 0);
    fakecuda::add_alloc_node(g, &a, 1);
    const std::string got = walked(g);
    CHECK(got.find("error: walk_graph: node 1 is of type 10") == 0);
    cuGraphDestroy(g);
}

TEST_CASE(graph_execs_keep_the_nodes_after_the_app_destroys_its_graph) {
    GraphExecs execs;
    CUgraphExec exec = reinterpret_cast<CUgraphExec>(0x100);
    CUgraph g = graph();
    add_kernel(g, 1, {add_kernel(g, 0)});
    execs.instantiate(exec, g);
    cuGraphDestroy(g);  // as PyTorch does after instantiating
    std::string why;
    const std::vector<GraphStep>* steps = execs.steps(exec, &why);
    CHECK(steps != nullptr);
    if (steps) CHECK_EQ(describe(*steps), std::string("a b"));

    // cuGraphExecUpdate with a graph of the same shape and other kernels: the next launch runs those.
    CUgraph update = graph();
    add_kernel(update, 3, {add_kernel(update, 2)});
    execs.instantiate(exec, update);
    cuGraphDestroy(update);
    steps = execs.steps(exec, &why);
    CHECK(steps != nullptr);
    if (steps) CHECK_EQ(describe(*steps), std::string("c d"));
    CHECK_EQ(fakecuda::live_graphs(), size_t(1));  // the one clone, the first freed at the update

    execs.edited(exec, "cuGraphExecKernelNodeSetParams");
    CHECK(execs.steps(exec, &why) == nullptr);
    CHECK(why.find("cuGraphExecKernelNodeSetParams changed the graph exec") == 0);

    execs.forget(exec);
    CHECK_EQ(fakecuda::live_graphs(), size_t(0));
    CHECK(execs.steps(exec, &why) == nullptr);
    CHECK(why.find("instantiated before the tool was loaded") != std::string::npos);

    CUgraph bad = graph();
    fakecuda::add_alloc_node(bad, nullptr, 0);
    execs.instantiate(exec, bad);
    cuGraphDestroy(bad);
    CHECK(execs.steps(exec, &why) == nullptr);
    CHECK(why.find("node 0 is of type 10") != std::string::npos);
}

TEST_CASE(graph_steps_that_are_not_kernels_run_once_on_the_stream) {
    std::vector<uint32_t> dev(16, 0);
    std::vector<uint32_t> copy(16, 0);
    const auto at = [](void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); };
    CUgraph g = graph();
    CUDA_MEMSET_NODE_PARAMS ms{};
    ms.dst = at(dev.data());
    ms.value = 7;
    ms.elementSize = 4;
    ms.width = 8;
    ms.height = 1;
    CUgraphNode set = nullptr;
    CHECK_EQ(cuGraphAddMemsetNode(&set, g, nullptr, 0, &ms, nullptr), CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS rows{};  // two rows of four 16-bit values, 16 bytes apart, in the upper half
    rows.dst = at(dev.data() + 8);
    rows.pitch = 16;
    rows.value = 0x0101;
    rows.elementSize = 2;
    rows.width = 4;
    rows.height = 2;
    CUgraphNode set2 = nullptr;
    CHECK_EQ(cuGraphAddMemsetNode(&set2, g, &set, 1, &rows, nullptr), CUDA_SUCCESS);
    CUDA_MEMCPY3D cp{};
    cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    cp.srcDevice = at(dev.data());
    cp.dstMemoryType = CU_MEMORYTYPE_HOST;
    cp.dstHost = copy.data();
    cp.WidthInBytes = 16 * sizeof(uint32_t);
    cp.Height = cp.Depth = 1;
    CUgraphNode get = nullptr;
    CHECK_EQ(cuGraphAddMemcpyNode(&get, g, &set2, 1, &cp, nullptr), CUDA_SUCCESS);
    int calls = 0;
    CUDA_HOST_NODE_PARAMS hp{[](void* p) { ++*static_cast<int*>(p); }, &calls};
    CUgraphNode h = nullptr;
    CHECK_EQ(cuGraphAddHostNode(&h, g, &get, 1, &hp), CUDA_SUCCESS);
    CUevent ev = reinterpret_cast<CUevent>(0x40);
    CUgraphNode rec = nullptr, wait = nullptr;
    CHECK_EQ(cuGraphAddEventRecordNode(&rec, g, &h, 1, ev), CUDA_SUCCESS);
    CHECK_EQ(cuGraphAddEventWaitNode(&wait, g, &rec, 1, ev), CUDA_SUCCESS);

    std::vector<GraphStep> steps;
    CHECK(walk_graph(g, &steps).ok);
    CHECK_EQ(describe(steps), std::string("memset memset memcpy host event record event wait"));
    for (const GraphStep& s : steps) CHECK(run_step(s, nullptr).ok);
    CHECK_EQ(fakecuda::state().memsets, size_t(2));
    CHECK_EQ(fakecuda::state().copies, size_t(1));
    CHECK_EQ(calls, 1);
    const std::vector<uint32_t> want = {7, 7, 7, 7, 7, 7, 7, 7, 0x01010101, 0x01010101, 0, 0, 0x01010101, 0x01010101, 0, 0};
    CHECK_EQ(copy, want);
    CHECK_EQ(fakecuda::state().stream_ops.size(), size_t(3));
    if (fakecuda::state().stream_ops.size() == 3) {
        CHECK(fakecuda::state().stream_ops[1].rfind("record ", 0) == 0);
        CHECK(fakecuda::state().stream_ops[2].rfind("wait ", 0) == 0);
    }
    // A kernel step is a dispatch of its own: run_step does not run it.
    GraphStep k;
    k.kind = StepKind::Kernel;
    CHECK(!run_step(k, nullptr).ok);
    cuGraphDestroy(g);
}

TEST_CASE(graph_walk_keeps_the_launch_attributes_a_kernel_node_sets) {
    CUgraph g = graph();
    CUgraphNode plain = add_kernel(g, 0);
    CUgraphNode cluster = add_kernel(g, 1, {plain});
    CUgraphNode both = add_kernel(g, 2, {cluster});
    CUgraphNode ones = add_kernel(g, 3, {both});
    CUkernelNodeAttrValue v{};
    v.clusterDim.x = 2, v.clusterDim.y = 1, v.clusterDim.z = 1;
    CHECK_EQ(cuGraphKernelNodeSetAttribute(cluster, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v), CUDA_SUCCESS);
    CHECK_EQ(cuGraphKernelNodeSetAttribute(both, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &v), CUDA_SUCCESS);
    CUkernelNodeAttrValue c{};
    c.cooperative = 1;
    CHECK_EQ(cuGraphKernelNodeSetAttribute(both, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &c), CUDA_SUCCESS);
    CUkernelNodeAttrValue one{};
    one.clusterDim.x = one.clusterDim.y = one.clusterDim.z = 1;  // a cluster of one is no cluster
    CHECK_EQ(cuGraphKernelNodeSetAttribute(ones, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, &one), CUDA_SUCCESS);

    std::vector<GraphStep> steps;
    CHECK(walk_graph(g, &steps).ok);
    CHECK_EQ(steps.size(), size_t(4));
    if (steps.size() == 4) {
        CHECK(steps[0].attrs.empty());
        CHECK_EQ(steps[1].attrs.size(), size_t(1));
        CHECK_EQ(steps[2].attrs.size(), size_t(2));
        CHECK(steps[3].attrs.empty());
        if (steps[1].attrs.size() == 1) {
            CHECK_EQ(static_cast<int>(steps[1].attrs[0].id), static_cast<int>(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION));
            CHECK_EQ(steps[1].attrs[0].value.clusterDim.x, 2u);
        }
        if (steps[2].attrs.size() == 2)
            CHECK_EQ(steps[2].attrs[1].value.cooperative, 1);
    }
    cuGraphDestroy(g);
}

int main(int argc, char** argv) {
    check::Options options;
    options.reset = [] { fakecuda::reset(); };
    return check::run(argc, argv, options);
}
