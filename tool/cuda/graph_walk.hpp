// CUDA graphs executed node by node under the tool (`--graph-profiling node`, ncu's default): a graph is
// flattened into the steps one stream runs in a topological order (child graphs inlined where their node
// stands); kernel steps become dispatches of their own, the others run once. See README.md, "Graphs".
#pragma once

#include "check.hpp"

#include <cuda.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace gorocprof::cuda {

enum class StepKind { Kernel, Memset, Memcpy, EventRecord, EventWait, Host };

// One node the tool runs: its kind and what the node's getter returned (the pointers inside stay valid
// while the graph the node belongs to lives).
struct GraphStep {
    StepKind kind = StepKind::Kernel;
    CUgraphNode node = nullptr;
    CUDA_KERNEL_NODE_PARAMS kernel{};
    CUDA_MEMSET_NODE_PARAMS memset{};
    CUDA_MEMCPY3D memcpy{};
    CUDA_HOST_NODE_PARAMS host{};
    CUevent event = nullptr;
    // Kernel nodes: the launch attributes that change how the kernel runs (cluster dimensions, cooperative,
    // priority) when the node sets them; the tool then launches it with cuLaunchKernelEx and these.
    std::vector<CUlaunchAttribute> attrs;
};

// The steps of `graph` in the order one stream runs them: a node after every node it depends on, ties
// broken by cuGraphGetNodes' order (so the same graph always gives the same order); empty nodes dropped,
// child graphs walked in place. Fails, naming the node, when a node is of a kind the tool cannot run
// faithfully on one stream (memory allocation or free, conditional, batch memory operation, semaphore).
PortStatus walk_graph(CUgraph graph, std::vector<GraphStep>* out);

// Runs a step that is not a kernel on `stream` (memset, memcpy, event record or wait, host function).
PortStatus run_step(const GraphStep& s, CUstream stream);

// The function kernel step `s` launches: the node's CUfunction, or its CUkernel's function in the current
// context.
PortStatus step_function(const GraphStep& s, CUfunction* f);

// Launches kernel step `s` once on `stream` as its node would run: cuLaunchKernelEx with the node's launch
// attributes when it sets any, else cuLaunchKernel.
PortStatus launch_kernel_step(const GraphStep& s, CUstream stream);
// The cuLaunchKernelEx configuration that launches kernel step `s` on `stream` with its attributes (cluster
// dimensions, cooperative, priority); `s` must outlive it, since the configuration points at its attributes.
CUlaunchConfig step_launch_config(const GraphStep& s, CUstream stream);

// Runs every step once on `stream`, in order, kernels included: one run of the whole graph, what each pass
// of a graph launched as one dispatch runs (--graph-profiling graph). On failure the steps before the one
// that failed have run; the status names its kind.
PortStatus run_graph(const std::vector<GraphStep>& steps, CUstream stream);

// How many of `steps` are kernels.
size_t kernel_steps(const std::vector<GraphStep>& steps);

// The device addresses the memset and memcpy steps write (a copy into host memory writes none): with the
// kernels' arguments, where a snapshot of the whole graph starts looking for what it must copy.
void written_addresses(const std::vector<GraphStep>& steps, std::vector<CUdeviceptr>* out);

// The kernel name a graph dispatch carries (--graph-profiling graph): graph_<n>, n counting graph execs in the
// order of their first launch. One word, so that demangling and truncation (-T) leave it whole.
std::string graph_dispatch_name(uint64_t n);

// "kernel", "memset", ...: for messages.
const char* step_name(StepKind k);

// What the tool knows of each graph exec: a clone of the graph it was instantiated (or last updated)
// from, kept because applications destroy their graph right after instantiating it (PyTorch does), and
// the clone's steps, walked once. There is no cuGraphExecGetGraph: this is the only way back to the nodes.
class GraphExecs {
public:
    ~GraphExecs();
    // cuGraphInstantiate* and a successful cuGraphExecUpdate (at EXIT): the exec now runs `graph`.
    void instantiate(CUgraphExec exec, CUgraph graph);
    // cuGraphExecDestroy.
    void forget(CUgraphExec exec);
    // An exec-level edit (cuGraphExec*SetParams, cuGraphNodeSetEnabled): the clone no longer says what
    // the exec runs, so its launches run as they are from now on (until an update or a new instantiate).
    void edited(CUgraphExec exec, const std::string& call);
    // The steps a launch of `exec` runs, or null with the reason it runs as it is. The pointer stays
    // valid until the exec is instantiated again, updated or destroyed (by the thread launching it).
    const std::vector<GraphStep>* steps(CUgraphExec exec, std::string* why) const;

private:
    struct Entry {
        CUgraph clone = nullptr;
        std::vector<GraphStep> steps;
        std::string why;  // not empty: the exec's launches are not run node by node
    };
    mutable std::mutex mu_;
    std::map<CUgraphExec, Entry> execs_;
};

}  // namespace gorocprof::cuda
