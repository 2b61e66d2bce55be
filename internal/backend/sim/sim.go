// Package sim is the backend of the simulated agents: their applications link libgorocprof_sim.so,
// which loads the tool library named by GOROCPROF_SIM_INJECTION_PATH; the query helper lists the
// agents, whose counters are the AMD catalogs of their architectures.
package sim

import (
	"context"
	"fmt"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Name is the backend's name on the command line and in plan.json.
const Name = "sim"

// RuntimeSoname is the library every app of the simulated agent links against.
const RuntimeSoname = "libgorocprof_sim.so"

// The backend's files in the library directory.
const (
	toolLibrary = "libgorocprof_tool_sim.so"
	queryHelper = "gorocprof-query-sim"
)

// Backend is the simulated agents, with its files found in a library directory.
type Backend struct {
	tool, helper string
}

// New returns the backend whose tool library and query helper are in libDir.
func New(libDir string) (*Backend, error) {
	paths, err := helper.Require(libDir, "build it with `make`", toolLibrary, queryHelper)
	if err != nil {
		return nil, err
	}
	return &Backend{tool: paths[0], helper: paths[1]}, nil
}

// Name is "sim".
func (b *Backend) Name() string { return Name }

// Serves reports whether the executable at app links the simulated agents' runtime.
func (b *Backend) Serves(app string) bool { return LinksRuntime(app) }

// Agents asks the query helper for the simulated agents; they are always asked, never cached.
func (b *Backend) Agents(ctx context.Context, _ *counters.Scope) ([]contract.Agent, error) {
	list, err := helper.Agents(ctx, b.helper)
	if err != nil {
		return nil, fmt.Errorf("listing the agents of backend %s: %w", Name, err)
	}
	return list, nil
}

// Catalog is the AMD catalog of the agent's architecture, whole whatever the scope (it is built in memory).
func (b *Backend) Catalog(_ context.Context, a contract.Agent, _ *counters.Scope) (*counters.Catalog, error) {
	return helper.AMDCatalog(a)
}

// Tool is the tool library and the variable the simulated runtime loads it from.
func (b *Backend) Tool() (string, []string, error) {
	return b.tool, []string{contract.EnvSimInjection + "=" + b.tool}, nil
}

// KernelReplay is always possible: the simulated runtime replays through tool/replay.
func (b *Backend) KernelReplay() error { return nil }

// NoRecords says why app wrote no record: it does not link the runtime, or never called it.
func (b *Backend) NoRecords(app string) string {
	if path, err := launch.Resolve(app); err == nil && !LinksRuntime(path) {
		return fmt.Sprintf("it does not link %s, the runtime of the simulated agents: is it one of their applications, or does it start one?", RuntimeSoname)
	}
	return "it made no call to the simulated agents' runtime"
}

// LinksRuntime reports whether the executable at path is an ELF file that links the simulated
// agent's runtime, which is how `--backend auto` recognises apps of the simulated agent.
func LinksRuntime(path string) bool { return helper.LinksLibrary(path, RuntimeSoname) }

// Traces is what the simulated runtime traces: its HIP-like API, roctx-like markers and copies.
var Traces = tracing.Table{
	Domains: map[tracing.Flag][]string{
		tracing.HIPRuntime:  {tracing.DomainHIPRuntime},
		tracing.HIPCompiler: {tracing.DomainHIPCompiler},
		tracing.Marker:      {tracing.DomainMarker},
		tracing.MemoryCopy:  {tracing.DomainMemoryCopy},
	},
	Lacks: map[tracing.Flag]string{tracing.HSA: "the simulated runtime has no HSA layer"},
}

// Traces is the backend's tracing table.
func (b *Backend) Traces() tracing.Table { return Traces }
