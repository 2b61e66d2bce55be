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
)

// Backend is one kind of GPU gorocprof profiles.
type Backend interface {
	// Name is the backend's name, as plan.json and messages give it.
	Name() string
	// Serves reports whether the executable at app (a resolved path) is one of its applications.
	Serves(app string) bool
	// Agents lists the GPUs it profiles; its errors name the backend.
	Agents(ctx context.Context) ([]contract.Agent, error)
	// Catalog is the counter catalog of one of its agents. The catalog answers the planner's
	// question whether a group fits one pass (Catalog.Fits).
	Catalog(ctx context.Context, a contract.Agent) (*counters.Catalog, error)
	// Tool is the tool library injected into the application and the variables that inject it.
	Tool() (library string, env []string, err error)
	// NoRecords says why app, which wrote no record, never loaded the tool ("" when it cannot tell).
	NoRecords(app string) string
}

// Chooser turns a --backend value into a Backend for an application ("" for none: avail, plan).
type Chooser func(ctx context.Context, name, app string) (Backend, error)

// Auto is the --backend value resolved against the application.
const Auto = "auto"

// Names lists the values --backend accepts.
var Names = []string{Auto, sim.Name, cuda.Name, rocm.Name}

// InjectionVars are the variables any backend injects with: a child gets only its own backend's.
var InjectionVars = []string{contract.EnvSimInjection, contract.EnvCUDAInjection}

// ErrBackend marks errors choosing or finding a backend.
var ErrBackend = errors.New("backend")

// Choose returns the named backend. auto: an app that links the simulated runtime runs on the
// simulated agents; otherwise CUDA when its files exist and its helper sees a GPU; with no app
// (nothing to profile yet) the simulated agents, which are always there. With an app, the backend's
// tool library must exist.
func Choose(ctx context.Context, name, app string) (Backend, error) {
	var b Backend
	var err error
	switch name {
	case Auto, "":
		b, err = chooseAuto(ctx, app)
	case rocm.Name:
		b = rocm.New(os.Getenv(rocm.EnvSysfsRoot))
	case sim.Name, cuda.Name:
		b, err = open(name)
	default:
		err = fmt.Errorf("%w: unknown backend %q (expected one of %s)", ErrBackend, name, strings.Join(Names, ", "))
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

func chooseAuto(ctx context.Context, app string) (Backend, error) {
	if app != "" {
		if path, err := launch.Resolve(app); err == nil && sim.LinksRuntime(path) {
			return open(sim.Name)
		}
	}
	b, cudaErr := open(cuda.Name)
	if cudaErr == nil {
		if list, err := b.(*cuda.Backend).List(ctx); err == nil && len(list) > 0 {
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
	return nil, fmt.Errorf("%w auto: no usable backend for %s (CUDA: %v); pass --backend sim for apps of the simulated agent",
		ErrBackend, orDash(app), cudaErr)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
