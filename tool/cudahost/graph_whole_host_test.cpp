// Host-side tests of `--graph-profiling graph` (a graph launch profiled as one dispatch), against the fake
// driver's graphs and kernels (fake_graph.cpp, fake_driver.*) and the fake CUPTI (fake_cupti.*): what a pass
// runs (the whole graph, kernels and the nodes that are not kernels alike), what the snapshot starts from
// (every kernel's arguments and what the memsets and copies write), and the pass's counters (the graph's
// kernels combined). The port's own loop (cuda_port.cpp) builds only with the toolkit: the passes here
// restore the snapshot the way its restore does, from the allocations the reach marks say.
#include "../testkit/check.hpp"

#include "counter_plans.hpp"
#include "fake_cupti.hpp"
#include "fake_driver.hpp"
#include "graph_walk.hpp"
#include "names.hpp"
#include "range_counters.hpp"
#include "reach.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using gorocprof::core::CounterSample;
using gorocprof::core::PlanPass;
using gorocprof::replay::PortStatus;
using gorocprof::cuda::Allocation;
using gorocprof::cuda::GraphStep;
using gorocprof::cuda::KernelReach;
using gorocprof::cuda::ParamSlot;
using gorocprof::cuda::RangeCounters;
using gorocprof::cuda::Rollup;
using gorocprof::cuda::StepKind;

namespace {

constexpr size_t kWords = 8;
constexpr size_t kFlushKernel = 999999;

// Two application kernels with host bodies, told apart by the address of their names: `inc` adds 1 to every
// word of its buffer (so a pass that ran on unrestored memory shows), `twice` doubles every word of its.
const char kInc[] = "inc";
const char kTwice[] = "twice";
CUfunction fn(const char* name) { return reinterpret_cast<CUfunction>(const_cast<char*>(name)); }
uint32_t* words(void** params) { return *static_cast<uint32_t**>(params[0]); }

CUdeviceptr at(const void* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); }

// The fake CUPTI's kernel id of each application kernel (values differ per kernel).
size_t kernel_id(CUfunction f) { return f == fn(kInc) ? 1 : 2; }

void install_kernels() {
    fakecuda::state().kernels[fn(kInc)] = [](void** p) {
        for (size_t i = 0; i < kWords; ++i) words(p)[i] += 1;
    };
    fakecuda::state().kernels[fn(kTwice)] = [](void** p) {
        for (size_t i = 0; i < kWords; ++i) words(p)[i] *= 2;
    };
    fakecuda::state().on_kernel = [](CUfunction f) { fakecupti::kernel(kernel_id(f)); };
}

// memset(a, 5) -> inc(a) -> copy a to b -> twice(b) -> host node; and memset(c, 9), which no kernel names.
// One run leaves a = 6, b = 12, c = 9; d is never touched.
struct Graph {
    std::vector<uint32_t> a = std::vector<uint32_t>(kWords), b = std::vector<uint32_t>(kWords),
                          c = std::vector<uint32_t>(kWords), d = std::vector<uint32_t>(kWords, 42);
    uint32_t* pa = a.data();
    uint32_t* pb = b.data();
    void* inc_args[1] = {&pa};
    void* twice_args[1] = {&pb};
    int host_calls = 0;
    CUgraph g = nullptr;
    std::vector<GraphStep> steps;

    Graph() {
        CHECK_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
        CUDA_MEMSET_NODE_PARAMS m{};
        m.dst = at(a.data());
        m.value = 5;
        m.elementSize = 4;
        m.width = kWords;
        m.height = 1;
        CUgraphNode set = nullptr, inc = nullptr, copy = nullptr, twice = nullptr, host = nullptr, setc = nullptr;
        CHECK_EQ(cuGraphAddMemsetNode(&set, g, nullptr, 0, &m, nullptr), CUDA_SUCCESS);
        CUDA_KERNEL_NODE_PARAMS k{};
        k.func = fn(kInc);
        k.gridDimX = k.gridDimY = k.gridDimZ = 1;
        k.blockDimX = k.blockDimY = k.blockDimZ = 32;
        k.kernelParams = inc_args;
        CHECK_EQ(cuGraphAddKernelNode(&inc, g, &set, 1, &k), CUDA_SUCCESS);
        CUDA_MEMCPY3D cp{};
        cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        cp.srcDevice = at(a.data());
        cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        cp.dstDevice = at(b.data());
        cp.WidthInBytes = kWords * sizeof(uint32_t);
        cp.Height = cp.Depth = 1;
        CHECK_EQ(cuGraphAddMemcpyNode(&copy, g, &inc, 1, &cp, nullptr), CUDA_SUCCESS);
        k.func = fn(kTwice);
        k.kernelParams = twice_args;
        CHECK_EQ(cuGraphAddKernelNode(&twice, g, &copy, 1, &k), CUDA_SUCCESS);
        CUDA_HOST_NODE_PARAMS hp{[](void* p) { ++*static_cast<int*>(p); }, &host_calls};
        CHECK_EQ(cuGraphAddHostNode(&host, g, &twice, 1, &hp), CUDA_SUCCESS);
        m.dst = at(c.data());
        m.value = 9;
        CHECK_EQ(cuGraphAddMemsetNode(&setc, g, nullptr, 0, &m, nullptr), CUDA_SUCCESS);
        CHECK(gorocprof::cuda::walk_graph(g, &steps).ok);
    }
    ~Graph() { cuGraphDestroy(g); }

    // The tracked allocations, sorted by base, as the tracker lists them.
    std::vector<Allocation> allocations() const {
        std::vector<Allocation> out;
        uint64_t serial = 0;
        for (const std::vector<uint32_t>* v : {&a, &b, &c, &d}) {
            Allocation x;
            x.base = at(v->data());
            x.size = v->size() * sizeof(uint32_t);
            x.serial = ++serial;
            out.push_back(x);
        }
        std::sort(out.begin(), out.end(), [](const Allocation& l, const Allocation& r) { return l.base < r.base; });
        return out;
    }
};

const std::vector<ParamSlot> kOnePointer = {{0, sizeof(void*)}};

// What the port's snapshot of a graph dispatch starts from: each kernel step's arguments and the written
// addresses (cuda_port.cpp's snapshot_set for a graph does the same before the scan).
std::vector<char> reached(const Graph& g, const std::vector<Allocation>& allocs, bool* readable) {
    std::vector<KernelReach> kernels;
    for (const GraphStep& s : g.steps)
        if (s.kind == StepKind::Kernel) kernels.push_back({nullptr, s.kernel.kernelParams, s.kernel.extra, &kOnePointer});
    std::vector<CUdeviceptr> written;
    gorocprof::cuda::written_addresses(g.steps, &written);
    std::vector<char> marks(allocs.size(), 0);
    *readable = gorocprof::cuda::mark_workload(allocs, kernels, written, &marks);
    return marks;
}

bool marked(const std::vector<Allocation>& allocs, const std::vector<char>& marks, const void* p) {
    for (size_t i = 0; i < allocs.size(); ++i)
        if (allocs[i].base == at(p)) return marks[i] != 0;
    return false;
}

}  // namespace

TEST_CASE(graph_whole_snapshot_covers_every_kernel_and_what_memsets_and_copies_write) {
    Graph g;
    const std::vector<Allocation> allocs = g.allocations();
    bool readable = false;
    const std::vector<char> marks = reached(g, allocs, &readable);
    CHECK(readable);
    CHECK(marked(allocs, marks, g.a.data()));   // inc's argument, and memset's
    CHECK(marked(allocs, marks, g.b.data()));   // twice's argument, and the copy's destination
    CHECK(marked(allocs, marks, g.c.data()));   // only a memset writes it
    CHECK(!marked(allocs, marks, g.d.data()));  // nothing of the graph names it
    std::vector<CUdeviceptr> written;
    gorocprof::cuda::written_addresses(g.steps, &written);
    CHECK_EQ(written.size(), size_t(3));  // two memsets and the copy
    // A kernel whose parameter layout is not known: the snapshot cannot tell, so it copies everything.
    std::vector<KernelReach> unknown = {{nullptr, g.inc_args, nullptr, nullptr}};
    std::vector<char> none(allocs.size(), 0);
    CHECK(!gorocprof::cuda::mark_workload(allocs, unknown, written, &none));
}

TEST_CASE(graph_whole_runs_the_whole_graph_once_per_pass_from_restored_memory) {
    // Three passes of one graph dispatch, as the port runs them: pass 0 from the snapshot, every later pass
    // after the restore. Each pass runs every node, the memsets, the copy and the host node included, and
    // each leaves what one run of the graph leaves.
    install_kernels();
    Graph g;
    CHECK_EQ(gorocprof::cuda::kernel_steps(g.steps), size_t(2));
    const std::vector<Allocation> allocs = g.allocations();
    bool readable = false;
    const std::vector<char> marks = reached(g, allocs, &readable);
    std::map<CUdeviceptr, std::vector<char>> snapshot;
    for (size_t i = 0; i < allocs.size(); ++i)
        if (marks[i]) {
            const char* p = reinterpret_cast<const char*>(static_cast<uintptr_t>(allocs[i].base));
            snapshot[allocs[i].base].assign(p, p + allocs[i].size);
        }
    const std::vector<uint32_t> a1(kWords, 6), b1(kWords, 12), c1(kWords, 9), d0(kWords, 42);
    for (int pass = 0; pass < 3; ++pass) {
        if (pass > 0)
            for (const auto& [base, bytes] : snapshot)
                std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(base)), bytes.data(), bytes.size());
        CHECK(gorocprof::cuda::run_graph(g.steps, nullptr).ok);
        CHECK_EQ(g.a, a1);
        CHECK_EQ(g.b, b1);
        CHECK_EQ(g.c, c1);
        CHECK_EQ(g.d, d0);
    }
    CHECK_EQ(fakecuda::state().app_launches, size_t(6));  // two kernels, three passes
    CHECK_EQ(fakecuda::state().memsets, size_t(6));       // two memsets per pass
    CHECK_EQ(fakecuda::state().copies, size_t(3));
    CHECK_EQ(g.host_calls, 3);
}

TEST_CASE(graph_whole_launches_a_kernel_node_with_its_attributes_and_names_a_failing_step) {
    install_kernels();
    Graph g;
    for (GraphStep& s : g.steps)
        if (s.kind == StepKind::Kernel && s.kernel.func == fn(kTwice)) {
            CUlaunchAttribute attr{};
            attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attr.value.cooperative = 1;
            s.attrs.push_back(attr);
            s.kernel.kern = reinterpret_cast<CUkernel>(s.kernel.func);  // a CUkernel node: resolved first
            s.kernel.func = nullptr;
        }
    CHECK(gorocprof::cuda::run_graph(g.steps, nullptr).ok);
    CHECK_EQ(fakecuda::state().ex_launches, size_t(1));
    CHECK_EQ(fakecuda::state().app_launches, size_t(2));
    // A kernel the driver refuses: the steps before it ran, the error names the step.
    fakecuda::state().kernels.erase(fn(kTwice));
    const auto st = gorocprof::cuda::run_graph(g.steps, nullptr);
    CHECK(!st.ok);
    CHECK(st.message().find("a kernel node") != std::string::npos);
}

TEST_CASE(graph_whole_dispatch_names_stay_whole_demangled_and_truncated) {
    // On the H200 a name with a space ("graph 1") truncated to "1" under -T.
    for (uint64_t n : {1u, 12u}) {
        const std::string name = gorocprof::cuda::graph_dispatch_name(n);
        CHECK_EQ(name, "graph_" + std::to_string(n));
        CHECK_EQ(gorocprof::core::demangle(name), name);
        CHECK_EQ(gorocprof::core::truncate_name(gorocprof::core::demangle(name)), name);
    }
}

TEST_CASE(graph_whole_rollups_follow_the_metric_name) {
    struct Row {
        const char* metric;
        Rollup want;
    } rows[] = {
        {"sm__inst_executed.sum", Rollup::Sum},
        {"dram__bytes_read.sum", Rollup::Sum},
        {"sm__cycles_elapsed.max", Rollup::Max},
        {"sm__cycles_elapsed.min", Rollup::Min},
        {"sm__cycles_elapsed.avg", Rollup::None},
        {"dram__bytes_read.sum.per_second", Rollup::None},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", Rollup::None},
        {"summary", Rollup::None},
    };
    for (const Row& r : rows)
        if (gorocprof::cuda::rollup_of(r.metric) != r.want) check::fail(__FILE__, __LINE__, std::string(r.metric));
}

TEST_CASE(graph_whole_counters_combine_the_graph_kernels_of_a_pass) {
    // One pass of a graph dispatch measures every kernel of the graph: its counters are their values added up
    // (.sum), their largest (.max) and smallest (.min); an average is empty, with the reason. With the cache
    // flush before the pass (inside the session or ahead of its Start), with a configuration of two hardware
    // passes (whose further session runs the whole graph again), and with a node the driver runs as a kernel
    // of its own (part of the graph's work, as in a range around the graph); a pass that fills the room armed
    // for such kernels may have lost some, and is empty.
    using counter_plans::value;
    constexpr size_t kNodeKernel = 3;
    struct Row {
        const char* name;
        bool flush, lead;
        std::map<std::string, int> cost;
        size_t node_kernels;  // kernels the driver runs for nodes that are not kernel nodes
    } rows[] = {
        {"no flush", false, false, {}, 0},
        {"flush inside the session", true, false, {}, 0},
        {"flush before the start", true, true, {}, 0},
        {"two hardware passes", true, false, {{"x.sum", 3}}, 0},
        {"a node run as a kernel", true, false, {}, 1},
        {"the room for node kernels filled", true, false, {}, 2},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        fakecuda::reset();
        install_kernels();
        Graph g;
        const std::vector<PlanPass> passes = counter_plans::plan({{"x.sum", "y.max", "z.min", "w.avg"}});
        fakecupti::state().value = value;
        fakecupti::state().cost = r.cost;
        RangeCounters rc(reinterpret_cast<CUcontext>(0x10), "GH100");
        rc.plan_passes(passes);
        rc.set_kernels_per_pass(r.flush ? 2 : 1);
        const auto* group = &passes[0].counters;
        const bool lead = r.lead && rc.flush_may_lead(group, 1);
        CHECK_EQ(lead, r.lead);
        if (lead) fakecupti::kernel(kFlushKernel);  // before the Start: not a range
        std::string note;
        CHECK(rc.arm(group, &note, 1, lead, gorocprof::cuda::kernel_steps(g.steps)).ok);
        auto run = [&] {
            if (r.flush && !lead) fakecupti::kernel(kFlushKernel);
            for (size_t k = 0; k < r.node_kernels; ++k) fakecupti::kernel(kNodeKernel);
            return gorocprof::cuda::run_graph(g.steps, nullptr);
        };
        CHECK(run().ok);
        size_t sessions = 0;
        CHECK(rc.finish_sessions(run, &sessions).ok);  // the port's rerun: restore, flush, the whole graph
        CHECK_EQ(sessions, r.cost.empty() ? size_t(0) : size_t(1));
        std::vector<CounterSample> out;
        const auto st = rc.collect(&out);
        CHECK(!st.ok);
        CHECK_EQ(out.size(), size_t(4));
        if (out.size() != 4) continue;
        if (r.node_kernels == 2) {
            CHECK(st.message().find("room for more is full") != std::string::npos);
            for (const CounterSample& c : out) CHECK(c.values.size() == 1 && std::isnan(c.values[0]));
            continue;
        }
        CHECK(st.message().find("w.avg") != std::string::npos);  // it has no rollup
        std::vector<size_t> ids = {1, 2};
        if (r.node_kernels) ids.push_back(kNodeKernel);
        double want[3] = {0, value("y.max", 1), value("z.min", 1)};
        for (size_t id : ids) {
            want[0] += value("x.sum", id);
            want[1] = std::max(want[1], value("y.max", id));
            want[2] = std::min(want[2], value("z.min", id));
        }
        for (size_t i = 0; i < 3; ++i)
            if (out[i].values.size() != 1 || out[i].values[0] != want[i])
                check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + out[i].counter->name + " is " +
                                                    std::to_string(out[i].values.empty() ? -1 : out[i].values[0]) +
                                                    ", want " + std::to_string(want[i]));
        CHECK(out[3].values.size() == 1 && std::isnan(out[3].values[0]));
    }
}

TEST_CASE(graph_whole_user_range_measures_the_whole_graph_in_one_range) {
    // GOROCPROF_CUDA_GRAPH_RANGE=user: the pass is one user range pushed around the whole graph, so everything the
    // device runs inside it counts (a node the driver runs as a kernel too), every metric of the group comes from
    // that one range (the fake adds the kernels' values, as hardware counters add), and the flush before it
    // does not count. With two hardware passes the further session runs the graph in a range of its own again.
    using counter_plans::value;
    constexpr size_t kNodeKernel = 3;
    struct Row {
        const char* name;
        std::map<std::string, int> cost;
        size_t node_kernels;
    } rows[] = {
        {"one hardware pass", {}, 0},
        {"a node run as a kernel", {}, 1},
        {"two hardware passes", {{"x.sum", 3}}, 1},
    };
    for (const Row& r : rows) {
        fakecupti::reset();
        fakecuda::reset();
        install_kernels();
        Graph g;
        const std::vector<PlanPass> passes = counter_plans::plan({{"x.sum", "y.max", "w.avg"}});
        fakecupti::state().value = value;
        fakecupti::state().cost = r.cost;
        RangeCounters rc(reinterpret_cast<CUcontext>(0x10), "GH100");
        rc.plan_passes(passes);
        rc.set_kernels_per_pass(2);
        const auto* group = &passes[0].counters;
        std::string note;
        CHECK(rc.arm(group, &note, 1, false, gorocprof::cuda::kernel_steps(g.steps), true).ok);
        auto run = [&] {
            fakecupti::kernel(kFlushKernel);  // outside the range
            PortStatus st = rc.push_range();
            for (size_t k = 0; st.ok && k < r.node_kernels; ++k) fakecupti::kernel(kNodeKernel);
            if (st.ok) st = gorocprof::cuda::run_graph(g.steps, nullptr);
            if (st.ok) st = rc.pop_range();
            return st;
        };
        CHECK(run().ok);
        size_t sessions = 0;
        CHECK(rc.finish_sessions(run, &sessions).ok);
        CHECK_EQ(sessions, r.cost.empty() ? size_t(0) : size_t(1));
        std::vector<CounterSample> out;
        const auto st = rc.collect(&out);
        CHECK(st.ok);
        CHECK_EQ(out.size(), size_t(3));
        for (size_t i = 0; i < out.size(); ++i) {
            double want = value(out[i].counter->name, 1) + value(out[i].counter->name, 2);
            if (r.node_kernels) want += value(out[i].counter->name, kNodeKernel);
            if (out[i].values.size() != 1 || out[i].values[0] != want)
                check::fail(__FILE__, __LINE__, std::string(r.name) + ": " + out[i].counter->name + " is " +
                                                    std::to_string(out[i].values.empty() ? -1 : out[i].values[0]) +
                                                    ", want " + std::to_string(want));
        }
    }
    // A pass of auto ranges after one of user ranges gets a new profiler object (and back), as a change of
    // configuration does: an object keeps what its first SetConfig said.
    fakecupti::reset();
    const std::vector<PlanPass> one = counter_plans::plan({{"x.sum"}});
    fakecupti::state().value = value;
    RangeCounters rc(reinterpret_cast<CUcontext>(0x10), "GH100");
    rc.plan_passes(one);
    std::string note;
    std::vector<CounterSample> out;
    for (bool user : {true, false, true}) {
        CHECK(rc.arm(&one[0].counters, &note, 1, false, 2, user).ok);
        CHECK(rc.push_range().ok);
        fakecupti::kernel(1);
        fakecupti::kernel(2);
        CHECK(rc.pop_range().ok);
        CHECK(rc.collect(&out).ok || !user);  // auto ranges: no rollup problem for x.sum either
        CHECK(out.size() == 1 && out[0].values.size() == 1 && out[0].values[0] == value("x.sum", 1) + value("x.sum", 2));
    }
    CHECK_EQ(fakecupti::state().enables, size_t(3));
}

int main(int argc, char** argv) {
    check::Options options;
    options.reset = [] {
        fakecuda::reset();
        fakecupti::reset();
    };
    return check::run(argc, argv, options);
}
