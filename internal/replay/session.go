package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gorocprof/gorocprof/internal/agents"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/querycache"
)

// Session is what a run knows before launch: the backend, its agents and their counter catalogs.
type Session struct {
	Backend launch.Backend
	Agents  []contract.Agent
	Targets []counters.Target
}

// OpenSession chooses the backend (resolving auto against the application, when one is given), asks
// its query helper for the agents (CUDA's from the query cache when this machine answered before) and
// builds each agent's catalog.
func OpenSession(ctx context.Context, backend, app string) (*Session, error) {
	if backend == launch.BackendROCm && app == "" {
		return openKFDSession()
	}
	libDir, err := launch.LibDir()
	if err != nil {
		return nil, err
	}
	store := querycache.Open()
	began := time.Now()
	b, list, err := chooseBackend(ctx, store, backend, app, libDir)
	if err != nil {
		return nil, err
	}
	if list == nil {
		if list, err = listAgents(ctx, store, b); err != nil {
			return nil, fmt.Errorf("listing the agents of backend %s: %w", b.Name, err)
		}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend %s reports no agents", b.Name)
	}
	tracePhase("backend and agents", began)
	began = time.Now()
	s, err := newSession(ctx, store, b, list)
	if err != nil {
		return nil, err
	}
	tracePhase("counter catalogs", began)
	return s, nil
}

// newSession builds the counter catalog of each of the backend's agents.
func newSession(ctx context.Context, store *querycache.Store, b launch.Backend, list []contract.Agent) (*Session, error) {
	s := &Session{Backend: b, Agents: list}
	cats := catalogs{store: store, byChip: map[string]*counters.Catalog{}}
	for _, a := range list {
		cat, err := cats.forAgent(ctx, b, a)
		if err != nil {
			return nil, err
		}
		s.Targets = append(s.Targets, counters.Target{Index: a.Index, Name: a.Name, Catalog: cat, Consts: counters.ConstsFromProps(a.Props)})
	}
	return s, nil
}

// processStart is when this package was initialised, close enough to the process's start to show what
// the time before planning (loading the binary, the runtime) costs.
var processStart = time.Now()

// traceOut is where planning phases are traced (stderr when agents.EnvTrace is 1); tests replace it.
var traceOut io.Writer = os.Stderr

// tracePhase prints, with GOROCPROF_QUERY_TRACE=1, how long a planning phase took: together with the
// helper calls the query package traces, where a run's time before launch goes.
func tracePhase(phase string, began time.Time) {
	if os.Getenv(agents.EnvTrace) == "1" {
		fmt.Fprintf(traceOut, "gorocprof: planning: %s: %d ms\n", phase, time.Since(began).Milliseconds())
	}
}

// chooseBackend resolves --backend. auto: an app that links the simulated runtime runs on the
// simulated agents; otherwise the CUDA backend when its files exist and it sees a GPU. The agents are
// returned when finding the backend already listed them (nil otherwise).
func chooseBackend(ctx context.Context, store *querycache.Store, name, app, libDir string) (launch.Backend, []contract.Agent, error) {
	if name != launch.BackendAuto && name != "" {
		b, err := launch.FindBackend(name, libDir)
		return b, nil, err
	}
	if app != "" {
		if path, err := launch.Resolve(app); err == nil && launch.LinksSimRuntime(path) {
			b, err := launch.FindBackend(launch.BackendSim, libDir)
			return b, nil, err
		}
	}
	cuda, cudaErr := launch.FindBackend(launch.BackendCUDA, libDir)
	if cudaErr == nil {
		if list, err := listAgents(ctx, store, cuda); err == nil && len(list) > 0 {
			return cuda, list, nil
		} else if err != nil {
			cudaErr = err
		} else {
			cudaErr = fmt.Errorf("no NVIDIA GPU found")
		}
	}
	if app == "" {
		// Nothing to profile yet (avail, plan): the simulated agents are always there.
		if sim, err := launch.FindBackend(launch.BackendSim, libDir); err == nil {
			return sim, nil, nil
		}
	}
	return launch.Backend{}, nil, fmt.Errorf("%w auto: no usable backend for %s (CUDA: %v); pass --backend sim for apps of the simulated agent",
		launch.ErrBackend, orDash(app), cudaErr)
}

// listAgents asks the backend's query helper for its agents. CUDA's list comes from the query cache
// when this machine, with the same GPUs and visibility variables, answered before: listing them
// starts CUDA in the helper, most of a warm run's planning time. The simulated agents are always asked.
func listAgents(ctx context.Context, store *querycache.Store, b launch.Backend) ([]contract.Agent, error) {
	if b.Name != launch.BackendCUDA {
		return agents.Query(ctx, b.QueryHelper)
	}
	entry, err := store.Agents(b.QueryHelper)
	if err != nil {
		warnCache(err)
	}
	if list, ok := entry.Load(); ok {
		return list, nil
	}
	list, err := agents.Query(ctx, b.QueryHelper)
	if err != nil {
		return nil, err
	}
	if err := entry.Save(list); err != nil {
		warnCache(err)
	}
	return list, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// catalogs builds the agents' counter catalogs: one per NVIDIA chip, however many agents have it,
// read from the query cache when this machine answered before.
type catalogs struct {
	store  *querycache.Store
	byChip map[string]*counters.Catalog
}

// forAgent builds the counter catalog of one agent.
func (cs *catalogs) forAgent(ctx context.Context, b launch.Backend, a contract.Agent) (*counters.Catalog, error) {
	if b.Name != launch.BackendCUDA {
		cat, err := counters.LoadAMD(strings.ToLower(a.Name))
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", a.Index, err)
		}
		return cat, nil
	}
	chip := a.Strings["chip"]
	if cat := cs.byChip[chip]; cat != nil {
		return cat, nil
	}
	entry, err := cs.store.Chip(b.QueryHelper, chip)
	if err != nil {
		warnCache(err)
	}
	metrics, cached := entry.Metrics()
	name := chip
	if !cached {
		// Helper calls run one at a time: CUPTI's profiler host serves one process per device at a
		// time (a concurrent call fails with CUPTI_ERROR_HARDWARE_BUSY, seen on the H200).
		reply, err := agents.QueryMetrics(ctx, b.QueryHelper, a.Index)
		if err != nil {
			return nil, fmt.Errorf("reading the metrics of agent %d (%s): %w", a.Index, a.Name, err)
		}
		metrics, name = reply.Metrics, reply.Chip
		if reply.Chip != chip {
			entry = nil // the agent and its catalog name different chips: file nothing under either
		} else if err := entry.SaveMetrics(metrics); err != nil {
			warnCache(err)
		}
	}
	cat := counters.NewNVIDIA(name, metrics, cachedOracle(entry, agents.PassesOracle(ctx, b.QueryHelper, a.Index)))
	if chip != "" {
		cs.byChip[chip] = cat
	}
	return cat, nil
}

// cachedOracle answers pass-count questions from the cache entry first and files the helper's
// answers there. Errors are never filed: they are asked again next time.
func cachedOracle(entry *querycache.Chip, ask func([]string) (int, error)) func([]string) (int, error) {
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
				warnCache(werr)
			}
		}
		return n, err
	}
}

// cacheWarnings is where a query cache that cannot be read or written says so; the run goes on
// asking the helper.
var cacheWarnings io.Writer = os.Stderr

func warnCache(err error) {
	fmt.Fprintf(cacheWarnings, "gorocprof: warning: %v (set %s=off to stop using the cache)\n", err, querycache.EnvCache)
}

// Plan plans the groups onto the session's agents.
func (s *Session) Plan(groups []counters.Group) (*counters.Plan, error) {
	return counters.NewPlan(groups, s.Targets)
}

// EnvSysfsRoot points AMD agent discovery at another root than "/" (tests use fixture trees).
const EnvSysfsRoot = "GOROCPROF_SYSFS_ROOT"

// openKFDSession describes the AMD GPUs of this machine from the KFD topology, so that `avail` and
// `plan` work on a ROCm machine: profiling there needs the rocm tool library, which is not built yet,
// so the session has no tool files and Run refuses it before launch.
func openKFDSession() (*Session, error) {
	root := os.Getenv(EnvSysfsRoot)
	if root == "" {
		root = "/"
	}
	list, err := agents.DiscoverKFD(root)
	if err != nil {
		return nil, fmt.Errorf("backend rocm: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend rocm: the KFD topology under %s lists no GPU", root)
	}
	s := &Session{Backend: launch.Backend{Name: launch.BackendROCm}, Agents: list}
	for _, a := range list {
		cat, err := counters.LoadAMD(strings.ToLower(a.Name))
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", a.Index, err)
		}
		s.Targets = append(s.Targets, counters.Target{Index: a.Index, Name: a.Name, Catalog: cat, Consts: counters.ConstsFromProps(a.Props)})
	}
	return s, nil
}
