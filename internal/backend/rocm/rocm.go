// Package rocm is the backend of AMD GPUs under ROCm: the agents come from the KFD topology in sysfs
// and the counters from the AMD catalogs. Profiling needs the rocm tool library (rocprofiler-sdk),
// which is not built yet, so the backend plans and lists but has no tool to inject.
package rocm

import (
	"context"
	"errors"
	"fmt"

	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// Name is the backend's name on the command line.
const Name = "rocm"

// EnvSysfsRoot points agent discovery at another root than "/" (tests use fixture trees).
const EnvSysfsRoot = "GOROCPROF_SYSFS_ROOT"

// Backend is the AMD GPUs whose KFD topology lies under a root directory.
type Backend struct {
	root string
}

// New returns the backend reading the topology under root ("/" when empty).
func New(root string) *Backend {
	if root == "" {
		root = "/"
	}
	return &Backend{root: root}
}

// Name is "rocm".
func (b *Backend) Name() string { return Name }

// Serves is false: no application can be profiled until the rocm tool library exists.
func (b *Backend) Serves(string) bool { return false }

// Agents are the GPU nodes of the KFD topology.
func (b *Backend) Agents(context.Context) ([]contract.Agent, error) {
	list, err := DiscoverKFD(b.root)
	if err != nil {
		return nil, fmt.Errorf("backend rocm: %w", err)
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend rocm: the KFD topology under %s lists no GPU", b.root)
	}
	return list, nil
}

// Catalog is the AMD catalog of the agent's architecture.
func (b *Backend) Catalog(_ context.Context, a contract.Agent) (*counters.Catalog, error) {
	return helper.AMDCatalog(a)
}

// ErrNoTool is Tool's answer: there is no rocm tool library to inject.
var ErrNoTool = errors.New("profiling AMD GPUs needs the rocm tool library (rocprofiler-sdk), which this version of gorocprof does not build; " +
	"`avail` and `plan` work with --backend rocm (agents from the KFD topology), profiling with --backend sim or cuda")

// Tool refuses: see ErrNoTool.
func (b *Backend) Tool() (string, []string, error) { return "", nil, ErrNoTool }

// NoRecords has nothing to add: no application is launched on this backend.
func (b *Backend) NoRecords(string) string { return "" }
