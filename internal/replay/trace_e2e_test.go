package replay

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// What bin/sim-trace does, per process, with every sim domain traced (tool/examples/sim_trace.cpp):
// its API calls by domain, its markers by op, its copies by op, its kernel launches.
var simTraceLines = map[string]int{
	"api HIP_RUNTIME_API": 29, "api HIP_COMPILER_API": 3,
	"marker roctxThreadRangeA": 6, "marker roctxProcessRangeA": 1, "marker roctxMarkA": 2,
	"copy MEMORY_COPY_HOST_TO_DEVICE": 1, "copy MEMORY_COPY_DEVICE_TO_DEVICE": 2, "copy MEMORY_COPY_DEVICE_TO_HOST": 2,
	"copy MEMORY_COPY_HOST_TO_HOST": 1,
}

const simTraceKernels = 4

// TestTraceEndToEnd runs bin/sim-trace under each replay mode with the tracing flags, and checks
// what the run's result holds: every API call, marker and copy of the application once (kernel
// replay's passes and restores are the tool's own work, application replay's later runs trace
// nothing), each dispatch's correlation id that of the simLaunchKernel that issued it, each copy's
// that of a copy call, and its agents listed.
func TestTraceEndToEnd(t *testing.T) {
	root := e2etest.Require(t, "sim-trace")
	app := filepath.Join(root, "bin", "sim-trace")
	tests := []struct {
		name   string
		pmc    []string
		mode   string
		flags  map[string]bool
		want   map[string]int // lines by kind and domain (api) or op
		passes int            // dispatch lines per kernel launch: 0 when nothing records dispatches
	}{
		{"sys-trace, kernel replay of two groups", []string{"SQ_WAVES", "GRBM_GUI_ACTIVE"}, contract.ModeKernel,
			map[string]bool{tracing.SysTrace: true}, simTraceLines, 2},
		{"sys-trace, one group", []string{"SQ_WAVES SQ_INSTS_VALU"}, contract.ModeNone,
			map[string]bool{tracing.SysTrace: true}, simTraceLines, 1},
		{"sys-trace, application replay of two groups", []string{"SQ_WAVES", "GRBM_GUI_ACTIVE"}, contract.ModeApplication,
			map[string]bool{tracing.SysTrace: true}, simTraceLines, 2},
		{"markers alone, no counters", nil, contract.ModeNone, map[string]bool{string(tracing.Marker): true},
			map[string]int{"marker roctxThreadRangeA": 6, "marker roctxProcessRangeA": 1, "marker roctxMarkA": 2}, 0},
		{"runtime API and copies under kernel replay, the compiler API off", []string{"SQ_WAVES", "GRBM_GUI_ACTIVE"}, contract.ModeKernel,
			map[string]bool{string(tracing.HIPRuntime): true, string(tracing.MemoryCopy): true},
			map[string]int{"api HIP_RUNTIME_API": 29, "copy MEMORY_COPY_HOST_TO_DEVICE": 1, "copy MEMORY_COPY_DEVICE_TO_DEVICE": 2,
				"copy MEMORY_COPY_DEVICE_TO_HOST": 2, "copy MEMORY_COPY_HOST_TO_HOST": 1}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups, err := counters.ParseGroups(tc.pmc)
			if err != nil {
				t.Fatal(err)
			}
			sel, kernel := tracing.Expand(tc.flags)
			work, tmp, kept := keptRunDirs(t)
			t.Chdir(work)
			seen := &traceSeen{}
			var stdout, stderr bytes.Buffer
			res, err := Run(context.Background(), Request{
				Backend: "sim", Groups: groups, Mode: tc.mode, KernelTrace: kernel, Tracing: sel,
				OutputDir: "out", OutputFile: "run", Formats: []string{"json"}, Quiet: true,
				App: app, Stdout: &stdout, Stderr: &stderr,
				sinks: []output.Sink{seen, &copyRunDirs{from: tmp, to: kept}},
			})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: exit %d, err %v\n%s", res.ExitCode, err, stderr.String())
			}
			if !strings.Contains(stdout.String(), "sim-trace: PASS") {
				t.Errorf("the app's check did not pass: %q", stdout.String())
			}
			if len(seen.procs) != 1 {
				t.Fatalf("%d processes, want 1", len(seen.procs))
			}
			p := seen.procs[0]
			if !maps.Equal(p.lines, tc.want) {
				t.Errorf("trace lines %v,\nwant %v", p.lines, tc.want)
			}
			if len(p.problems) > 0 {
				t.Errorf("problems: %q", p.problems)
			}
			p.checkCorrelation(t, tc.passes, len(sel) > 0 && tc.want["api HIP_RUNTIME_API"] > 0)
			if tc.mode == contract.ModeApplication {
				checkLaterRunsTraceNothing(t, kept)
			}
		})
	}
}

// checkLaterRunsTraceNothing reads the kept run directories of an application replay: the first
// run's plan lists trace domains and its records hold trace lines, the later runs' neither.
func checkLaterRunsTraceNothing(t *testing.T, kept string) {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(kept, "gorocprof-*"))
	if err != nil || len(dirs) < 2 {
		t.Fatalf("kept run directories %q (%v), want one per pass", dirs, err)
	}
	for _, dir := range dirs {
		info, err := ReadRunInfo(dir)
		if err != nil {
			t.Fatal(err)
		}
		run, err := records.ReadRun(dir)
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		for _, p := range run.Processes {
			lines += p.TraceCount()
		}
		run.Close()
		if first := info.ApplicationPass == 0; first != (lines > 0) {
			t.Errorf("pass %d: %d trace lines", info.ApplicationPass+1, lines)
		}
	}
}

// traceSeen is a sink that keeps what a run's result says of its trace lines and dispatches.
type traceSeen struct {
	procs []*traceProc
	cur   *traceProc
}

type traceProc struct {
	lines      map[string]int
	problems   []string
	agents     map[uint64]bool
	apiOp      map[uint64]string // correlation id -> the API call's op
	dispatches map[uint64]int    // correlation id -> dispatch lines
	logical    int
	passLines  int
	copyCalls  []uint64 // the correlation id of each copy
}

func (s *traceSeen) Begin(p *output.Process) error {
	s.cur = &traceProc{lines: map[string]int{}, agents: map[uint64]bool{}, apiOp: map[uint64]string{}, dispatches: map[uint64]int{}}
	s.cur.problems = p.Problems
	for _, a := range p.Agents {
		s.cur.agents[a.ID] = true
	}
	s.procs = append(s.procs, s.cur)
	return nil
}

func (s *traceSeen) Dispatch(d *output.Dispatch) error {
	s.cur.logical++
	for _, ps := range d.Passes {
		s.cur.passLines++
		s.cur.dispatches[ps.Record.CorrelationID]++
	}
	return nil
}

func (s *traceSeen) Trace(t *contract.Trace) error {
	p := s.cur
	switch t.Kind {
	case contract.RecAPI:
		p.lines["api "+t.Domain]++
		if _, dup := p.apiOp[t.CorrelationID]; dup {
			return fmt.Errorf("correlation id %d on two api lines", t.CorrelationID)
		}
		p.apiOp[t.CorrelationID] = t.Op
	default:
		p.lines[t.Kind+" "+t.Op]++
	}
	if t.Kind == contract.RecCopy {
		if !p.agents[t.SrcAgentID] || !p.agents[t.DstAgentID] {
			return fmt.Errorf("copy %s names agents %d and %d; listed: %v", t.Op, t.SrcAgentID, t.DstAgentID, slices.Sorted(maps.Keys(p.agents)))
		}
		p.copyCalls = append(p.copyCalls, t.CorrelationID)
	}
	return nil
}

func (s *traceSeen) End(failed error) error { return failed }

// checkCorrelation checks the dispatches: simTraceKernels logical ones of passes passes each (a
// dispatch line per pass; none when nothing is counted nor the kernels traced), and with API
// tracing each one's correlation id that of a simLaunchKernel line and each copy's that of a
// simMemcpy call.
func (p *traceProc) checkCorrelation(t *testing.T, passes int, api bool) {
	t.Helper()
	logical := simTraceKernels
	if passes == 0 {
		logical = 0
	}
	if p.logical != logical || p.passLines != logical*passes {
		t.Errorf("%d dispatches in %d lines, want %d in %d", p.logical, p.passLines, logical, logical*passes)
	}
	if !api {
		return
	}
	for corr, n := range p.dispatches {
		if op := p.apiOp[corr]; op != "simLaunchKernel" || n != passes {
			t.Errorf("dispatch of correlation id %d (%d lines): that id is the api line %q's", corr, n, op)
		}
	}
	for _, corr := range p.copyCalls {
		if op := p.apiOp[corr]; !strings.HasPrefix(op, "simMemcpy") {
			t.Errorf("copy of correlation id %d: that id is the api line %q's", corr, op)
		}
	}
}
