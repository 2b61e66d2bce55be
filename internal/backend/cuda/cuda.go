// Package cuda is the backend of NVIDIA GPUs: CUDA loads the tool library named by
// CUDA_INJECTION64_PATH, and the query helper (CUDA and CUPTI in a process of its own) lists the agents,
// each chip's metrics and the hardware passes a metric set needs. Its answers are kept in the query
// cache (querycache), so that a repeated run on the same machine starts no helper at all.
package cuda

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Name is the backend's name on the command line and in plan.json.
const Name = "cuda"

// The backend's files in the library directory.
const (
	toolLibrary = "libgorocprof_tool_cuda.so"
	queryHelper = "gorocprof-query-cuda"
)

// Backend is the NVIDIA GPUs its query helper sees.
type Backend struct {
	tool, helper string
	store        *querycache.Store
	warnings     io.Writer // where a cache that cannot be read or written says so

	mu     sync.Mutex
	agents []contract.Agent                 // listed once per backend value
	byChip map[string]*counters.Catalog     // one whole catalog per chip, however many agents have it
	scoped map[string]*counters.Catalog     // chip and scope -> the catalog of the scope's metrics
	ahead  map[string]contract.MetricsReply // chip and scope -> the lookup the agents call answered
}

// New returns the backend whose tool library and query helper are in libDir, keeping the helper's
// answers in store (nil: no cache) and warning on warnings when the cache fails.
func New(libDir string, store *querycache.Store, warnings io.Writer) (*Backend, error) {
	paths, err := helper.Require(libDir, "it is built by `make` on a machine with a CUDA toolkit", toolLibrary, queryHelper)
	if err != nil {
		return nil, err
	}
	return &Backend{tool: paths[0], helper: paths[1], store: store, warnings: warnings, byChip: map[string]*counters.Catalog{}, scoped: map[string]*counters.Catalog{}, ahead: map[string]contract.MetricsReply{}}, nil
}

// Name is "cuda".
func (b *Backend) Name() string { return Name }

// Serves is true for any application: whether it starts CUDA shows only when it runs.
func (b *Backend) Serves(string) bool { return true }

// Agents lists the GPUs the query helper sees (List says what ahead does).
func (b *Backend) Agents(ctx context.Context, ahead *counters.Scope) ([]contract.Agent, error) {
	list, err := b.List(ctx, ahead)
	if err != nil {
		return nil, fmt.Errorf("listing the agents of backend %s: %w", Name, err)
	}
	return list, nil
}

// List is Agents with the helper's error as it is. The list comes from the query cache when this
// machine, with the same GPUs and visibility variables, answered before: listing them starts CUDA in
// the helper, most of a warm run's planning time. When the helper is asked and ahead names metrics
// that no catalog of this helper in the cache answers (a first run on the machine), the same helper
// call looks them up on each chip (`agents --only`), one CUDA start instead of two; Catalog then uses
// those answers. Where the cache would answer them the agents are asked alone, since the lookup costs
// the helper CUPTI's start-up.
func (b *Backend) List(ctx context.Context, ahead *counters.Scope) ([]contract.Agent, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.agents != nil {
		return b.agents, nil
	}
	entry, err := b.store.Agents(b.helper)
	if err != nil {
		b.warn(err)
	}
	if list, ok := entry.Load(); ok {
		b.agents = list
		return list, nil
	}
	var list []contract.Agent
	if ahead != nil && !b.store.Answers(b.helper, ahead.Names) {
		list, err = b.agentsAhead(ctx, ahead)
	} else {
		list, err = helper.Agents(ctx, b.helper)
	}
	if err != nil {
		return nil, err
	}
	if err := entry.Save(list); err != nil {
		b.warn(err)
	}
	b.agents = list
	return list, nil
}

// agentsAhead lists the agents with each chip's lookup of ahead, kept for Catalog.
func (b *Backend) agentsAhead(ctx context.Context, ahead *counters.Scope) ([]contract.Agent, error) {
	list, catalogs, err := queryAgents(ctx, b.helper, ahead)
	if err != nil {
		return nil, err
	}
	for _, c := range catalogs {
		i := slices.IndexFunc(list, func(a contract.Agent) bool { return a.Index == c.Agent })
		if i >= 0 && list[i].Strings["chip"] == c.Chip {
			b.ahead[c.Chip+"\x00"+ahead.Key()] = c
		}
	}
	return list, nil
}

// Catalog builds the counter catalog of one agent: one per chip, read from the query cache when this
// machine answered before. Whether a group fits one pass is asked of the helper (`passes`), through
// the cache. With a scope (a run's counters) it is a catalog of those counters alone when the chip has
// them all: listing the whole catalog is most of a first run's planning (docs/perf.md, "Cold start").
func (b *Backend) Catalog(ctx context.Context, a contract.Agent, scope *counters.Scope) (*counters.Catalog, error) {
	chip := a.Strings["chip"]
	b.mu.Lock()
	defer b.mu.Unlock()
	if cat := b.byChip[chip]; cat != nil {
		return cat, nil // the whole catalog answers any scope
	}
	entry, err := b.store.Chip(b.helper, chip)
	if err != nil {
		b.warn(err)
	}
	if scope == nil {
		return b.wholeLocked(ctx, a, entry)
	}
	key := chip + "\x00" + scope.Key()
	if cat := b.scoped[key]; cat != nil {
		return cat, nil
	}
	cat, err := b.scopedLocked(ctx, a, entry, scope)
	if err == nil && chip != "" && cat != b.byChip[chip] {
		b.scoped[key] = cat
	}
	return cat, err
}

// wholeLocked is the agent's whole catalog, from the cache entry or the helper.
func (b *Backend) wholeLocked(ctx context.Context, a contract.Agent, entry *querycache.Chip) (*counters.Catalog, error) {
	chip := a.Strings["chip"]
	metrics, cached := entry.Metrics()
	name := chip
	if !cached {
		// Helper calls run one at a time: CUPTI's profiler host serves one process per device at a
		// time (a concurrent call fails with CUPTI_ERROR_HARDWARE_BUSY).
		reply, err := queryMetrics(ctx, b.helper, a.Index, nil)
		if err != nil {
			return nil, fmt.Errorf("reading the metrics of %s: %w", a.Label(), err)
		}
		metrics, name = reply.Metrics, reply.Chip
		if reply.Chip != chip {
			entry = nil // the agent and its catalog name different chips: file nothing under either
		} else if err := entry.SaveMetrics(metrics); err != nil {
			b.warn(err)
		}
	}
	cat := counters.NewNVIDIA(name, metrics, b.cachedOracle(entry, passesOracle(ctx, b.helper, a.Index)))
	if chip != "" {
		b.byChip[chip] = cat
	}
	return cat, nil
}

// scopedLocked is the catalog of the scope's metrics: from the metrics looked up before, else the whole
// catalog when the cache holds it, else one helper call that looks the metrics up and counts the passes
// of the scope's sets. When the chip lacks one of the metrics it is the whole catalog, whose names the
// planner suggests from.
func (b *Backend) scopedLocked(ctx context.Context, a contract.Agent, entry *querycache.Chip, scope *counters.Scope) (*counters.Catalog, error) {
	chip := a.Strings["chip"]
	ask := passesOracle(ctx, b.helper, a.Index)
	if len(scope.Names) == 0 {
		return counters.NewNVIDIA(chip, nil, ask), nil
	}
	if metrics, ok := entry.Lookup(scope.Names); ok {
		return counters.NewNVIDIA(chip, metrics, b.cachedOracle(entry, ask)), nil
	}
	if _, ok := entry.Metrics(); ok {
		return b.wholeLocked(ctx, a, entry)
	}
	reply, ok := b.ahead[chip+"\x00"+scope.Key()] // answered with the agents
	if !ok {
		var err error
		if reply, err = queryMetrics(ctx, b.helper, a.Index, scope); err != nil {
			return nil, fmt.Errorf("looking up the metrics of %s: %w", a.Label(), err)
		}
	}
	if len(reply.Missing) > 0 {
		return b.wholeLocked(ctx, a, entry)
	}
	answered := map[string]int{}
	for _, p := range reply.Passes {
		answered[strings.Join(p.Metrics, ",")] = p.Passes
	}
	if reply.Chip != chip {
		entry = nil // as in wholeLocked
	} else {
		for _, err := range []error{entry.SaveLookups(reply.Metrics), entry.SaveAllPasses(answered)} {
			if err != nil {
				b.warn(err)
			}
		}
	}
	// The sets' counts serve this catalog even where no cache files them.
	known := func(set []string) (int, error) {
		if n, ok := answered[strings.Join(set, ",")]; ok {
			return n, nil
		}
		return ask(set)
	}
	return counters.NewNVIDIA(reply.Chip, reply.Metrics, b.cachedOracle(entry, known)), nil
}

// cachedOracle answers pass-count questions from the cache entry first and files the helper's
// answers there. Errors are never filed: they are asked again next time.
func (b *Backend) cachedOracle(entry *querycache.Chip, ask func([]string) (int, error)) func([]string) (int, error) {
	if entry == nil {
		return ask
	}
	return func(metrics []string) (int, error) {
		set := slices.Sorted(slices.Values(metrics))
		key := strings.Join(set, ",")
		if n, ok := entry.Passes(key); ok {
			return n, nil
		}
		n, err := ask(set)
		if err == nil {
			if werr := entry.SavePasses(key, n); werr != nil {
				b.warn(werr)
			}
		}
		return n, err
	}
}

// warn says that the query cache failed; the run goes on asking the helper.
func (b *Backend) warn(err error) {
	fmt.Fprintf(b.warnings, "gorocprof: warning: %v (set %s=off to stop using the cache)\n", err, querycache.EnvCache)
}

// Tool is the tool library and the variable CUDA loads it from, and, with a query cache, where the tool
// keeps the devices' counter availability between processes (every run of an application replay is one).
func (b *Backend) Tool() (string, []string, error) {
	env := []string{contract.EnvCUDAInjection + "=" + b.tool}
	if dir := b.store.Dir(); dir != "" {
		env = append(env, contract.EnvCUDAAvailabilityDir+"="+filepath.Join(dir, "availability"))
	}
	return b.tool, env, nil
}

// KernelReplay is always possible: the tool library replays through tool/replay.
func (b *Backend) KernelReplay() error { return nil }

// ProfilesWholeGraphs: the tool runs a graph launch as one dispatch under --graph-profiling graph
// (backend.WholeGraphs).
func (b *Backend) ProfilesWholeGraphs() bool { return true }

// NoRecords says why app wrote no record: CUDA loads the tool library when it initialises.
func (b *Backend) NoRecords(string) string {
	return "it never initialised CUDA, which loads the tool library"
}

// Traces is what the CUDA tool library traces through CUPTI: the CUDA runtime API for the HIP
// flags, the driver API for --hsa-trace (the layer below the runtime, as HSA is below HIP), NVTX
// ranges and marks, and copies and memsets.
var Traces = tracing.Table{
	Domains: map[tracing.Flag][]string{
		tracing.HIPRuntime: {tracing.DomainCUDARuntime},
		tracing.HSA:        {tracing.DomainCUDADriver},
		tracing.Marker:     {tracing.DomainMarker},
		tracing.MemoryCopy: {tracing.DomainMemoryCopy},
	},
	Lacks: map[tracing.Flag]string{tracing.HIPCompiler: "CUDA has no counterpart of the HIP compiler API"},
}

// Traces is the backend's tracing table.
func (b *Backend) Traces() tracing.Table { return Traces }

// EnvNVTXInjection is NVTX's variable naming the library it hands its calls to, read once, at an
// application's first NVTX call.
const EnvNVTXInjection = "NVTX_INJECTION64_PATH"

// TraceVars: with markers traced, NVTX is pointed at the tool library, which takes NVTX's calls
// (InitializeInjectionNvtx2). The tool also sets the variable when CUDA loads it, which is too late
// for an application whose first NVTX call comes before its first CUDA call.
func (b *Backend) TraceVars(domains []string) []string {
	if slices.Contains(domains, tracing.DomainMarker) {
		return []string{EnvNVTXInjection + "=" + b.tool}
	}
	return nil
}
