// Package backend is the seam between gorocprof and the GPUs it profiles: a Backend lists its agents,
// builds their counter catalogs and names the tool library to inject. Choose turns --backend into a
// Backend; it is the only place that knows the backends by name.
package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend/cuda"
	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/backend/rocm"
	"github.com/gorocprof/gorocprof/internal/backend/sim"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Backend is one kind of GPU gorocprof profiles.
type Backend interface {
	// Name is the backend's name, as plan.json and messages give it.
	Name() string
	// Serves reports whether the executable at app (a resolved path) is one of its applications.
	Serves(app string) bool
	// Agents lists the GPUs it profiles; its errors name the backend. ahead, when not nil, is the scope
	// the caller asks every agent's catalog for next (counters.CommonScope of a run's groups): a backend
	// may answer those catalog questions in the same query and keep the answers for Catalog.
	Agents(ctx context.Context, ahead *counters.Scope) ([]contract.Agent, error)
	// Catalog is the counter catalog of one of its agents. The catalog answers the planner's
	// question whether a group fits one pass (Catalog.Fits). With a nil scope it is the whole catalog
	// (avail lists it). Otherwise it may hold only the scope's counters, and holds every one of them
	// the agent offers; when the agent lacks one, it is whole, so that the planner can suggest the
	// names nearest to the missing one.
	Catalog(ctx context.Context, a contract.Agent, scope *counters.Scope) (*counters.Catalog, error)
	// Tool is the tool library injected into the application and the variables that inject it.
	Tool() (library string, env []string, err error)
	// NoRecords says why app, which wrote no record, never loaded the tool ("" when it cannot tell).
	NoRecords(app string) string
	// KernelReplay is nil when a run can replay every pass of a dispatch (kernel replay); otherwise
	// why not, and the run collects its passes by application replay. It is known once Agents answered.
	KernelReplay() error
	// Traces is what it traces for each tracing flag (docs/tracing.md): a table its package exports.
	Traces() tracing.Table
}

// Choice is what the command line says about the backend.
type Choice struct {
	Name     string // --backend
	ROCmRoot string // --rocm-root: where rocprofiler-sdk is (rocm.DefaultRoot when empty)
	// Ahead is the scope the run's catalogs will be asked for (counters.CommonScope of its groups; nil
	// when unknown): the agents are listed with it, auto's probe of CUDA included, so that the query
	// that lists them can answer the catalogs too (Backend.Agents).
	Ahead *counters.Scope
}

// Chooser turns a --backend choice into a Backend for an application ("" for none: avail, plan).
type Chooser func(ctx context.Context, c Choice, app string) (Backend, error)

// Auto is the --backend value resolved against the application.
const Auto = "auto"

// Names lists the values --backend accepts.
var Names = []string{Auto, sim.Name, cuda.Name, rocm.Name}

// InjectionVars are the variables any backend injects with: a child gets only its own backend's.
var InjectionVars = []string{contract.EnvSimInjection, contract.EnvCUDAInjection, rocm.EnvToolLibraries, rocm.EnvLibraryCtor}

// EnvROCmPath is ROCm's own variable for its root, the default of --rocm-root as for rocprofv3.
const EnvROCmPath = "ROCM_PATH"

// DefaultROCmRoot is --rocm-root's default: $ROCM_PATH, else /opt/rocm.
func DefaultROCmRoot() string {
	if p := os.Getenv(EnvROCmPath); p != "" {
		return p
	}
	return rocm.DefaultRoot
}

// ErrBackend marks errors choosing or finding a backend.
var ErrBackend = errors.New("backend")

// Choose returns the chosen backend. auto: an app that links the simulated runtime runs on the
// simulated agents; one that links HIP (libamdhip64.so) on rocm when the ROCm root holds
// rocprofiler-sdk; one that links neither HIP nor CUDA (a script, an interpreter, a launcher: how
// most AMD jobs start) on rocm too when the root holds the SDK, as rocprofv3 would profile it;
// otherwise CUDA when its files exist and its helper sees a GPU; with no app (nothing to profile
// yet) the simulated agents, which are always there. With an app, the backend's tool library must
// exist.
func Choose(ctx context.Context, c Choice, app string) (Backend, error) {
	var b Backend
	var err error
	switch c.Name {
	case Auto, "":
		b, err = chooseAuto(ctx, c, app)
	case rocm.Name:
		b = openROCm(c)
	case sim.Name, cuda.Name:
		b, err = open(c.Name)
	default:
		err = fmt.Errorf("%w: unknown backend %q (expected one of %s)", ErrBackend, c.Name, strings.Join(Names, ", "))
	}
	if err != nil {
		return nil, err
	}
	if app != "" {
		if _, _, err := b.Tool(); err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrBackend, b.Name(), err)
		}
	}
	return b, nil
}

// open finds the files of a backend that ships them in the library directory.
func open(name string) (Backend, error) {
	libDir, err := helper.LibDir()
	if err != nil {
		return nil, err
	}
	var b Backend
	switch name {
	case sim.Name:
		var s *sim.Backend
		if s, err = sim.New(libDir); err == nil {
			b = s
		}
	case cuda.Name:
		var c *cuda.Backend
		if c, err = cuda.New(libDir, querycache.Open(), os.Stderr); err == nil {
			b = c
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrBackend, name, err)
	}
	return b, nil
}

// openROCm is the rocm backend of the choice's root; without the library directory it can still
// list the KFD topology's agents.
func openROCm(c Choice) *rocm.Backend {
	libDir, _ := helper.LibDir()
	return rocm.New(rocm.Config{
		Root: c.ROCmRoot, LibDir: libDir, SysfsRoot: os.Getenv(rocm.EnvSysfsRoot), Warnings: os.Stderr,
		Preload: os.Getenv("LD_PRELOAD"), LibraryPath: os.Getenv("LD_LIBRARY_PATH"),
	})
}

func chooseAuto(ctx context.Context, c Choice, app string) (Backend, error) {
	root := orDefault(c.ROCmRoot, rocm.DefaultRoot)
	if app != "" {
		path, err := launch.Resolve(app)
		switch {
		case err != nil:
		case sim.LinksRuntime(path):
			return open(sim.Name)
		case rocm.LinksHIP(path):
			if r := openROCm(c); r.HasSDK() {
				return r, nil
			}
			return nil, fmt.Errorf("%w auto: %s links %s (a HIP application) but the ROCm root %s has no rocprofiler-sdk (lib/librocprofiler-sdk.so); pass --rocm-root",
				ErrBackend, app, rocm.HIPRuntime, root)
		case !linksCUDA(path):
			// A script or an interpreter starts the GPU runtime later, in a child or by dlopen: the
			// SDK under the root profiles whatever HIP starts there.
			if r := openROCm(c); r.HasSDK() {
				return r, nil
			}
		}
	}
	b, cudaErr := open(cuda.Name)
	if cudaErr == nil {
		if list, err := b.(*cuda.Backend).List(ctx, c.Ahead); err == nil && len(list) > 0 {
			return b, nil
		} else if err != nil {
			cudaErr = err
		} else {
			cudaErr = fmt.Errorf("no NVIDIA GPU found")
		}
	}
	if app == "" {
		if s, err := open(sim.Name); err == nil {
			return s, nil
		}
	}
	if app == "" {
		return nil, fmt.Errorf("%w auto: no usable backend (CUDA: %v); pass --backend sim for apps of the simulated agent",
			ErrBackend, cudaErr)
	}
	return nil, fmt.Errorf("%w auto: no usable backend for %s: the ROCm root %s has no rocprofiler-sdk (lib/librocprofiler-sdk.so) and CUDA is not usable (%v); "+
		"pass --backend rocm with --rocm-root naming the ROCm root for an AMD job, or --backend sim for apps of the simulated agent",
		ErrBackend, app, root, cudaErr)
}

// linksCUDA reports whether the executable at path links the CUDA driver or runtime: such an app is
// CUDA's, whatever ROCm root the machine has.
func linksCUDA(path string) bool {
	return helper.LinksLibrary(path, "libcuda.so") || helper.LinksLibrary(path, "libcudart.so")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
