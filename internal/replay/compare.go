package replay

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
)

// DefaultDerivedRTol is compare's relative tolerance for derived counters when the user gives none.
// A derived counter is evaluated in floating point from integer base counts, so the same counts may
// give results that differ in the last bits; one part in a million absorbs that and nothing a user
// would call a different measurement. Base counters are integer counts and must agree exactly.
const DefaultDerivedRTol = 1e-6

// CompareRequest is one comparison of kernel replay with application replay on the same
// application and counters. Mode, output and divergence settings of Request are ignored.
type CompareRequest struct {
	Request
	RTol float64 // relative tolerance for every counter; negative selects the defaults
}

// CompareReport is the outcome of a comparison.
type CompareReport struct {
	App         string       `json:"app"`
	Args        []string     `json:"args"`
	Kernel      ModeRun      `json:"kernel_replay"`
	Application ModeRun      `json:"application_replay"`
	WallRatio   float64      `json:"wall_time_ratio"` // application replay's wall time over kernel replay's
	Rows        []CompareRow `json:"counters"`
	Divergences []Divergence `json:"divergences"`
	Differences int          `json:"differences"` // rows that disagree plus divergences
}

// ModeRun is how one mode went.
type ModeRun struct {
	WallSeconds float64 `json:"wall_seconds"`
	Dispatches  uint64  `json:"dispatches"` // logical dispatches measured
	ExitCode    int     `json:"exit_code"`
	Signal      string  `json:"signal,omitempty"`
}

// CompareRow is one counter of one kernel on one agent, as the mean over the kernel's dispatches of
// the value summed over hardware instances (the summary table's value).
type CompareRow struct {
	Kernel                string   `json:"kernel"`
	Agent                 int      `json:"agent"`           // the agent's index, its GPU number
	AgentNumber           int64    `json:"logical_node_id"` // its number in the files (Agent_Id)
	Counter               string   `json:"counter"`
	Derived               bool     `json:"derived"`
	KernelDispatches      int      `json:"kernel_replay_dispatches"`
	ApplicationDispatches int      `json:"application_replay_dispatches"`
	KernelValue           *float64 `json:"kernel_replay_mean"`      // nil when that mode has no value
	ApplicationValue      *float64 `json:"application_replay_mean"` // nil when that mode has no value
	Difference            *float64 `json:"difference"`              // application minus kernel
	RTol                  float64  `json:"rtol"`
	Agree                 bool     `json:"agree"`
}

// Compare runs the application under kernel replay, then under application replay, and compares
// every counter of every kernel. Nothing is written but the report; the application's output goes
// to the request's Stderr so that Stdout holds the report alone. An error means a run failed (the
// report says how far it got); disagreement is not an error but counted in Differences.
func Compare(ctx context.Context, creq CompareRequest) (CompareReport, error) {
	return NewComparer(Prepare)(ctx, creq)
}

// NewComparer returns a Compare that prepares the request with prepare once: both modes run the
// same groups on the same agents, so they share one session and one plan (on CUDA each planning
// may start the query helper).
func NewComparer(prepare func(context.Context, Request) (Request, error)) func(context.Context, CompareRequest) (CompareReport, error) {
	return func(ctx context.Context, creq CompareRequest) (CompareReport, error) {
		return compare(ctx, prepare, creq)
	}
}

// compare is Compare with the preparer NewComparer was given.
func compare(ctx context.Context, prepare func(context.Context, Request) (Request, error), creq CompareRequest) (CompareReport, error) {
	rep := CompareReport{App: creq.App, Args: creq.Args, Divergences: []Divergence{}, Rows: []CompareRow{}}
	base := creq.Request
	base.Formats, base.Quiet, base.DryRun = nil, true, false
	base.Stdout = writerOr(creq.Stderr, os.Stderr)
	base.Mode = "" // the runs set their own modes; the rules Prepare checks for one (rotation) concern neither
	base, err := prepare(ctx, base)
	if err != nil {
		return rep, err
	}

	kernel, app := newModeStats(), newModeStats()
	for _, s := range []*modeStats{kernel, app} {
		s.mangled, s.truncate = creq.Mangled, creq.Truncate
	}
	kreq := base
	kreq.Mode = contract.ModeKernel
	kreq.sinks = []output.Sink{kernel}
	kres, err := Run(ctx, kreq)
	rep.Kernel = modeRun(kres, kernel)
	if err != nil || kres.ExitCode != 0 || kres.Signal != "" {
		return rep, errors.Join(fmt.Errorf("kernel replay run of %s failed", creq.App), err)
	}

	areq := base
	areq.Mode = contract.ModeApplication
	areq.AllowDivergence, areq.ownDivergences = true, true
	areq.sinks = []output.Sink{app}
	ares, err := Run(ctx, areq)
	rep.Application = modeRun(ares, app)
	rep.Divergences = append(rep.Divergences, ares.Divergences...)
	if err != nil || ares.ExitCode != 0 || ares.Signal != "" {
		return rep, errors.Join(fmt.Errorf("application replay runs of %s failed", creq.App), err)
	}
	if rep.Kernel.WallSeconds > 0 {
		rep.WallRatio = rep.Application.WallSeconds / rep.Kernel.WallSeconds
	}
	rep.Rows = compareRows(kernel, app, creq.RTol)
	for _, r := range rep.Rows {
		if !r.Agree {
			rep.Differences++
		}
	}
	rep.Differences += len(rep.Divergences)
	return rep, nil
}

func modeRun(res Result, s *modeStats) ModeRun {
	return ModeRun{WallSeconds: res.Elapsed.Seconds(), Dispatches: s.dispatches, ExitCode: res.ExitCode, Signal: res.Signal}
}

// compareRows pairs the two modes' means, ordered by kernel, agent and counter.
func compareRows(kernel, app *modeStats, rtol float64) []CompareRow {
	keys := map[valueKey]bool{}
	for k := range kernel.values {
		keys[k] = true
	}
	for k := range app.values {
		keys[k] = true
	}
	sorted := make([]valueKey, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		switch {
		case a.kernel != b.kernel:
			return a.kernel < b.kernel
		case a.agent != b.agent:
			return a.agent < b.agent
		}
		return a.counter < b.counter
	})
	rows := make([]CompareRow, 0, len(sorted))
	for _, k := range sorted {
		kk := kernelAgent{k.kernel, k.agent}
		row := CompareRow{Kernel: k.kernel, Agent: k.agent, AgentNumber: cmp.Or(kernel.numbers[k.agent], app.numbers[k.agent]), Counter: k.counter,
			Derived:          kernel.derived[k.counter] || app.derived[k.counter],
			KernelDispatches: kernel.calls[kk], ApplicationDispatches: app.calls[kk],
			KernelValue: kernel.mean(k), ApplicationValue: app.mean(k)}
		row.RTol = rtol
		if rtol < 0 {
			row.RTol = 0
			if row.Derived {
				row.RTol = DefaultDerivedRTol
			}
		}
		if row.KernelValue != nil && row.ApplicationValue != nil {
			d := *row.ApplicationValue - *row.KernelValue
			row.Difference = &d
			row.Agree = row.KernelDispatches == row.ApplicationDispatches && agree(*row.KernelValue, *row.ApplicationValue, row.RTol)
		}
		rows = append(rows, row)
	}
	return rows
}

// agree reports whether two values are equal within a relative tolerance of the larger one. Two
// NaNs agree: the same expression failed the same way on both sides.
func agree(a, b, rtol float64) bool {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return math.IsNaN(a) && math.IsNaN(b)
	case a == b:
		return true
	}
	return math.Abs(a-b) <= rtol*math.Max(math.Abs(a), math.Abs(b))
}

// modeStats accumulates one mode's per-kernel means from the evaluated dispatches of its result,
// one logical dispatch at a time: the state is per kernel and counter, whatever the number of
// dispatches. It is a sink of the mode's run (output.Sink).
type modeStats struct {
	values     map[valueKey]*meanAcc
	calls      map[kernelAgent]int
	numbers    map[int]int64 // agent index: its number in the files
	derived    map[string]bool
	dispatches uint64
	mangled    bool // kernel names as -M and -T give them
	truncate   bool
	proc       *output.Process
	taken      map[string]bool
}

type valueKey struct {
	kernel  string
	agent   int
	counter string
}

type kernelAgent struct {
	kernel string
	agent  int
}

type meanAcc struct {
	sum float64
	n   int
}

func newModeStats() *modeStats {
	return &modeStats{values: map[valueKey]*meanAcc{}, calls: map[kernelAgent]int{}, numbers: map[int]int64{}, derived: map[string]bool{}, taken: map[string]bool{}}
}

func (s *modeStats) mean(k valueKey) *float64 {
	a := s.values[k]
	if a == nil || a.n == 0 {
		return nil
	}
	m := a.sum / float64(a.n)
	return &m
}

// Begin starts one process of the mode's result.
func (s *modeStats) Begin(p *output.Process) error {
	s.proc = p
	return nil
}

// End ends it.
func (s *modeStats) End(failed error) error { return failed }

// Dispatch adds one logical dispatch: each counter from the lowest pass that reports it, never
// a sum over passes.
func (s *modeStats) Dispatch(d *output.Dispatch) error {
	first := d.Passes[0].Record
	agent := 0
	if a, ok := s.proc.Agent(first.AgentID); ok {
		agent = a.Index
		s.numbers[agent] = a.LogicalNodeID()
	}
	name := fmt.Sprintf("<kernel %d>", first.KernelID)
	if k, ok := s.proc.Kernels[first.KernelID]; ok {
		name = output.KernelName(k, s.mangled, s.truncate)
	}
	s.dispatches++
	s.calls[kernelAgent{name, agent}]++
	clear(s.taken)
	for _, p := range d.Passes {
		for _, c := range p.Counters {
			if s.taken[c.Name] {
				continue
			}
			// A counter that could not be evaluated is the files' to report; its mean shows as "-".
			if c.Evaluated || s.proc.Counters.Describe(agent, c.Name).Derived {
				s.derived[c.Name] = true
			}
			s.taken[c.Name] = true
			var sum float64
			for _, v := range c.Values {
				sum += v
			}
			k := valueKey{name, agent, c.Name}
			a := s.values[k]
			if a == nil {
				a = &meanAcc{}
				s.values[k] = a
			}
			a.sum += sum
			a.n++
		}
	}
	return nil
}
