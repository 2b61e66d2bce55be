package backend

import "fmt"

// The values --graph-profiling accepts (ncu's flag and its values): node, the default, makes every kernel
// node of a graph launch a dispatch of its own; graph makes every graph launch one dispatch, the whole
// graph measured as one workload per pass.
const (
	GraphProfilingNode  = "node"
	GraphProfilingGraph = "graph"
)

// GraphProfilingModes lists the values --graph-profiling accepts.
var GraphProfilingModes = []string{GraphProfilingNode, GraphProfilingGraph}

// WholeGraphs is the capability of a backend whose tool can measure a graph launch as one workload
// (--graph-profiling graph). A backend without it profiles graph launches per kernel node or not at all.
type WholeGraphs interface {
	ProfilesWholeGraphs() bool
}

// CheckGraphProfiling refuses, before launch, a --graph-profiling that b cannot honour: graph on a backend
// that does not measure whole graphs. node (or nothing) is every backend's.
func CheckGraphProfiling(b Backend, mode string) error {
	if mode == "" || mode == GraphProfilingNode {
		return nil
	}
	if w, ok := b.(WholeGraphs); ok && w.ProfilesWholeGraphs() {
		return nil
	}
	return fmt.Errorf("--graph-profiling %s: backend %s does not profile graph launches as whole workloads "+
		"(CUDA graphs only, under the cuda backend); use --graph-profiling node", mode, b.Name())
}
