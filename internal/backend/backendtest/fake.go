// Package backendtest is an in-memory backend for tests: a couple of agents of one NVIDIA-style chip
// with a small catalog, whose every call is counted, so that tests of planning and sessions need
// neither a GPU, a query helper nor a library directory.
package backendtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Fake is a backend whose agents and catalog are given. Its zero value is not usable: see New.
type Fake struct {
	name    string
	agents  []contract.Agent
	metrics []contract.Metric
	// SlotsPerPass and Slots model the hardware: a metric costs Slots[name] (1 when absent) and a
	// set of metrics fits one pass when its slots add up to at most SlotsPerPass.
	SlotsPerPass int
	Slots        map[string]int
	// Reason is what NoRecords says.
	Reason string
	// NoTool makes Tool fail, as a backend without a tool library does.
	NoTool bool
	// NoKernelReplay is what KernelReplay answers (nil: kernel replay is possible).
	NoKernelReplay error
	// TraceTable is what Traces answers.
	TraceTable tracing.Table

	mu    sync.Mutex
	calls []string
}

var _ backend.Backend = (*Fake)(nil)

// New returns a backend named name with n agents (indices 0..n-1) of chip "FAKE1" offering the
// metrics given, every set of which fits one pass until SlotsPerPass says otherwise.
func New(name string, n int, metrics ...string) *Fake {
	f := &Fake{name: name, Slots: map[string]int{}}
	for i := range n {
		f.agents = append(f.agents, contract.Agent{Index: i, ID: uint64(i + 1), Name: "FAKE1", Strings: map[string]string{"chip": "FAKE1"}})
	}
	for _, m := range metrics {
		f.metrics = append(f.metrics, contract.Metric{Name: m, Description: "fake metric " + m})
	}
	return f
}

// Chooser returns a chooser that hands out f for any name and application.
func (f *Fake) Chooser() backend.Chooser {
	return func(context.Context, backend.Choice, string) (backend.Backend, error) { return f, nil }
}

// Calls returns the calls made so far ("agents", "catalog 0", "catalog 0 a.sum", "passes 0 [a.sum b.sum]")
// and forgets them.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

func (f *Fake) record(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
}

// Name is the name New was given.
func (f *Fake) Name() string { return f.name }

// Serves is true for every application.
func (f *Fake) Serves(string) bool { return true }

// Agents are the agents New made; the call is recorded as "agents", or "agents ahead a.sum,b.sum" with
// the scope the caller announced.
func (f *Fake) Agents(_ context.Context, ahead *counters.Scope) ([]contract.Agent, error) {
	if ahead == nil {
		f.record("agents")
	} else {
		f.record("agents ahead %s", strings.Join(ahead.Names, ","))
	}
	return f.agents, nil
}

// Catalog is an NVIDIA-style catalog of the metrics, whose pass oracle counts slots: with a scope, of
// the scope's metrics alone, or of every metric when the scope names one it lacks (as the seam says).
// The call is recorded as "catalog 0" (whole) or "catalog 0 a.sum,b.sum" (the scope's names).
func (f *Fake) Catalog(_ context.Context, a contract.Agent, scope *counters.Scope) (*counters.Catalog, error) {
	metrics := f.metrics
	if scope == nil {
		f.record("catalog %d", a.Index)
	} else {
		f.record("catalog %d %s", a.Index, strings.Join(scope.Names, ","))
		if picked, ok := f.pick(scope.Names); ok {
			metrics = picked
		}
	}
	return counters.NewNVIDIA("FAKE1", metrics, func(set []string) (int, error) {
		f.record("passes %d %v", a.Index, set)
		slots := 0
		for _, m := range set {
			s, ok := f.Slots[m]
			if !ok {
				s = 1
			}
			slots += s
		}
		if f.SlotsPerPass <= 0 {
			return 1, nil
		}
		return max(1, (slots+f.SlotsPerPass-1)/f.SlotsPerPass), nil
	}), nil
}

// pick returns the metrics named, and whether the fake has them all.
func (f *Fake) pick(names []string) ([]contract.Metric, bool) {
	var out []contract.Metric
	for _, n := range names {
		i := slices.IndexFunc(f.metrics, func(m contract.Metric) bool { return m.Name == n })
		if i < 0 {
			return nil, false
		}
		out = append(out, f.metrics[i])
	}
	return out, true
}

// Tool injects nothing: an application launched on a fake backend runs without a tool library and
// writes no record. With NoTool it fails.
func (f *Fake) Tool() (string, []string, error) {
	if f.NoTool {
		return "", nil, errors.New("a fake backend without a tool launches nothing")
	}
	return "", nil, nil
}

// KernelReplay is NoKernelReplay.
func (f *Fake) KernelReplay() error { return f.NoKernelReplay }

// Traces is TraceTable.
func (f *Fake) Traces() tracing.Table { return f.TraceTable }

// NoRecords is Reason.
func (f *Fake) NoRecords(string) string { return f.Reason }
