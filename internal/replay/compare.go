package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
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
	Agent                 int      `json:"agent"`
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
	rep := CompareReport{App: creq.App, Args: creq.Args, Divergences: []Divergence{}, Rows: []CompareRow{}}
	base := creq.Request
	base.Formats, base.Quiet, base.DryRun = nil, true, false
	base.OutputDir, base.OutputFile = os.TempDir(), "unused"
	base.Stdout = writerOr(creq.Stderr, os.Stderr)

	kernel, app := newModeStats(), newModeStats()
	kreq := base
	kreq.Mode = contract.ModeKernel
	kreq.inspect = kernel.inspect(creq.Mangled, creq.Truncate)
	kres, err := Run(ctx, kreq)
	rep.Kernel = modeRun(kres, kernel)
	if err != nil || kres.ExitCode != 0 || kres.Signal != "" {
		return rep, errors.Join(fmt.Errorf("kernel replay run of %s failed", creq.App), err)
	}

	areq := base
	areq.Mode = contract.ModeApplication
	areq.AllowDivergence, areq.ownDivergences = true, true
	areq.inspect = app.inspect(creq.Mangled, creq.Truncate)
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
		row := CompareRow{Kernel: k.kernel, Agent: k.agent, Counter: k.counter,
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

// modeStats accumulates one mode's per-kernel means from its records, one logical dispatch at a
// time: the state is per kernel and counter, whatever the number of dispatches.
type modeStats struct {
	values     map[valueKey]*meanAcc
	calls      map[kernelAgent]int
	derived    map[string]bool
	dispatches uint64
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
	return &modeStats{values: map[valueKey]*meanAcc{}, calls: map[kernelAgent]int{}, derived: map[string]bool{}}
}

func (s *modeStats) mean(k valueKey) *float64 {
	a := s.values[k]
	if a == nil || a.n == 0 {
		return nil
	}
	m := a.sum / float64(a.n)
	return &m
}

func (s *modeStats) inspect(mangled, truncate bool) func(string, *counters.Plan) error {
	return func(runDir string, plan *counters.Plan) error {
		return s.addRunDir(runDir, plan, mangled, truncate)
	}
}

// addRunDir reads every record file of a run directory.
func (s *modeStats) addRunDir(runDir string, cs output.Counters, mangled, truncate bool) error {
	paths, err := filepath.Glob(filepath.Join(runDir, contract.RecordsDir, "*.ndjson"))
	if err != nil {
		return fmt.Errorf("listing records of %s: %w", runDir, err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := s.addFile(p, cs, mangled, truncate); err != nil {
			return err
		}
	}
	return nil
}

func (s *modeStats) addFile(path string, cs output.Counters, mangled, truncate bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading records: %w", err)
	}
	defer f.Close()
	agents := map[uint64]int{}
	kernels := map[uint64]string{}
	var passes []*contract.Dispatch
	flush := func() {
		if len(passes) > 0 {
			s.addLogical(passes, agents, kernels, cs)
			passes = passes[:0]
		}
	}
	dec := records.NewDecoder(f)
	for {
		rec, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading records %s: %w", path, err)
		}
		switch rec.Type {
		case contract.RecAgent:
			agents[rec.Agent.ID] = rec.Agent.Index
		case contract.RecKernel:
			kernels[rec.Kernel.KernelID] = output.KernelName(*rec.Kernel, mangled, truncate)
		case contract.RecDispatch:
			// Passes of a logical dispatch are consecutive lines (kernel replay and merged files alike).
			if len(passes) > 0 && passes[0].DispatchID != rec.Dispatch.DispatchID {
				flush()
			}
			passes = append(passes, rec.Dispatch)
		}
	}
	flush()
	return nil
}

// addLogical adds one logical dispatch: each counter from the lowest pass that reports it, never
// a sum over passes.
func (s *modeStats) addLogical(passes []*contract.Dispatch, agents map[uint64]int, kernels map[uint64]string, cs output.Counters) {
	sort.SliceStable(passes, func(i, j int) bool { return passes[i].Pass < passes[j].Pass })
	first := passes[0]
	agent := agents[first.AgentID]
	name, ok := kernels[first.KernelID]
	if !ok {
		name = fmt.Sprintf("<kernel %d>", first.KernelID)
	}
	s.dispatches++
	s.calls[kernelAgent{name, agent}]++
	taken := map[string]bool{}
	for _, d := range passes {
		if len(d.Counters) == 0 {
			continue
		}
		base := make(map[string][]float64, len(d.Counters))
		for _, c := range d.Counters {
			vals := make([]float64, len(c.Values))
			for i, v := range c.Values {
				if v != nil {
					vals[i] = *v
				}
			}
			base[c.Name] = vals
		}
		for _, counter := range cs.Requested(agent, d.Pass) {
			if taken[counter] {
				continue
			}
			vals, ok := base[counter]
			if !ok {
				var err error
				if vals, err = cs.Evaluate(agent, counter, base); err != nil {
					continue // the output writer reports it; a missing value shows as "-"
				}
				s.derived[counter] = true
			} else if cs.Describe(agent, counter).Derived {
				s.derived[counter] = true
			}
			taken[counter] = true
			var sum float64
			for _, v := range vals {
				sum += v
			}
			k := valueKey{name, agent, counter}
			a := s.values[k]
			if a == nil {
				a = &meanAcc{}
				s.values[k] = a
			}
			a.sum += sum
			a.n++
		}
	}
}
