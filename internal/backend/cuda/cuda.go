// Package cuda is the backend of NVIDIA GPUs: CUDA loads the tool library named by
// CUDA_INJECTION64_PATH, and the query helper (CUDA and CUPTI in a process of its own) lists the agents,
// each chip's metrics and the hardware passes a metric set needs. Its answers are kept in the query
// cache (querycache), so that a repeated run on the same machine starts no helper at all.
package cuda

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
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
	agents []contract.Agent             // listed once per backend value
	byChip map[string]*counters.Catalog // one catalog per chip, however many agents have it
}

// New returns the backend whose tool library and query helper are in libDir, keeping the helper's
// answers in store (nil: no cache) and warning on warnings when the cache fails.
func New(libDir string, store *querycache.Store, warnings io.Writer) (*Backend, error) {
	paths, err := helper.Require(libDir, "it is built by `make` on a machine with a CUDA toolkit", toolLibrary, queryHelper)
	if err != nil {
		return nil, err
	}
	return &Backend{tool: paths[0], helper: paths[1], store: store, warnings: warnings, byChip: map[string]*counters.Catalog{}}, nil
}

// Name is "cuda".
func (b *Backend) Name() string { return Name }

// Serves is true for any application: whether it starts CUDA shows only when it runs.
func (b *Backend) Serves(string) bool { return true }

// Agents lists the GPUs the query helper sees.
func (b *Backend) Agents(ctx context.Context) ([]contract.Agent, error) {
	list, err := b.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the agents of backend %s: %w", Name, err)
	}
	return list, nil
}

// List is Agents with the helper's error as it is. The list comes from the query cache when this
// machine, with the same GPUs and visibility variables, answered before: listing them starts CUDA in
// the helper, most of a warm run's planning time.
func (b *Backend) List(ctx context.Context) ([]contract.Agent, error) {
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
	list, err := helper.Agents(ctx, b.helper)
	if err != nil {
		return nil, err
	}
	if err := entry.Save(list); err != nil {
		b.warn(err)
	}
	b.agents = list
	return list, nil
}

// Catalog builds the counter catalog of one agent: one per chip, read from the query cache when this
// machine answered before. Whether a group fits one pass is asked of the helper (`passes`), through
// the cache.
func (b *Backend) Catalog(ctx context.Context, a contract.Agent) (*counters.Catalog, error) {
	chip := a.Strings["chip"]
	b.mu.Lock()
	defer b.mu.Unlock()
	if cat := b.byChip[chip]; cat != nil {
		return cat, nil
	}
	entry, err := b.store.Chip(b.helper, chip)
	if err != nil {
		b.warn(err)
	}
	metrics, cached := entry.Metrics()
	name := chip
	if !cached {
		// Helper calls run one at a time: CUPTI's profiler host serves one process per device at a
		// time (a concurrent call fails with CUPTI_ERROR_HARDWARE_BUSY).
		reply, err := queryMetrics(ctx, b.helper, a.Index)
		if err != nil {
			return nil, fmt.Errorf("reading the metrics of agent %d (%s): %w", a.Index, a.Name, err)
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

// Tool is the tool library and the variable CUDA loads it from.
func (b *Backend) Tool() (string, []string, error) {
	return b.tool, []string{contract.EnvCUDAInjection + "=" + b.tool}, nil
}

// KernelReplay is always possible: the tool library replays through tool/replay.
func (b *Backend) KernelReplay() error { return nil }

// NoRecords says why app wrote no record: CUDA loads the tool library when it initialises.
func (b *Backend) NoRecords(string) string {
	return "it never initialised CUDA, which loads the tool library"
}
