package replay

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/gorocprof/gorocprof/internal/agents"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
)

// Session is what a run knows before launch: the backend, its agents and their counter catalogs.
type Session struct {
	Backend launch.Backend
	Agents  []contract.Agent
	Targets []counters.Target
}

// OpenSession chooses the backend (resolving auto against the application, when one is given), asks
// its query helper for the agents and builds each agent's catalog.
func OpenSession(ctx context.Context, backend, app string) (*Session, error) {
	if backend == launch.BackendROCm && app == "" {
		return openKFDSession()
	}
	libDir, err := launch.LibDir()
	if err != nil {
		return nil, err
	}
	b, list, err := chooseBackend(ctx, backend, app, libDir)
	if err != nil {
		return nil, err
	}
	if list == nil {
		if list, err = agents.Query(ctx, b.QueryHelper); err != nil {
			return nil, fmt.Errorf("listing the agents of backend %s: %w", b.Name, err)
		}
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend %s reports no agents", b.Name)
	}
	s := &Session{Backend: b, Agents: list}
	for _, a := range list {
		cat, err := catalogFor(ctx, b, a)
		if err != nil {
			return nil, err
		}
		s.Targets = append(s.Targets, counters.Target{Index: a.Index, Name: a.Name, Catalog: cat, Consts: counters.ConstsFromProps(a.Props)})
	}
	return s, nil
}

// chooseBackend resolves --backend. auto: an app that links the simulated runtime runs on the
// simulated agents; otherwise the CUDA backend when its files exist and it sees a GPU. The agents are
// returned when finding the backend already listed them (nil otherwise).
func chooseBackend(ctx context.Context, name, app, libDir string) (launch.Backend, []contract.Agent, error) {
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
		if list, err := agents.Query(ctx, cuda.QueryHelper); err == nil && len(list) > 0 {
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// catalogFor builds the counter catalog of one agent.
func catalogFor(ctx context.Context, b launch.Backend, a contract.Agent) (*counters.Catalog, error) {
	switch b.Name {
	case launch.BackendCUDA:
		// Helper calls run one at a time: CUPTI's profiler host serves one process per device at a
		// time (a concurrent call fails with CUPTI_ERROR_HARDWARE_BUSY, seen on the H200).
		reply, err := agents.QueryMetrics(ctx, b.QueryHelper, a.Index)
		if err != nil {
			return nil, fmt.Errorf("reading the metrics of agent %d (%s): %w", a.Index, a.Name, err)
		}
		return counters.NewNVIDIA(reply.Chip, reply.Metrics, agents.PassesOracle(ctx, b.QueryHelper, a.Index)), nil
	default:
		cat, err := counters.LoadAMD(strings.ToLower(a.Name))
		if err != nil {
			return nil, fmt.Errorf("agent %d: %w", a.Index, err)
		}
		return cat, nil
	}
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
