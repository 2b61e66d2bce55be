package replay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// fxDispatch is one dispatch of a fixture run: its kernel (by name), grid width and the value its
// pass counted.
type fxDispatch struct {
	kernel string
	grid   uint32
}

type fxProc struct {
	pid        int64
	init       int64
	dispatches []fxDispatch
	noEnd      bool
}

var fxKernels = []string{"_Z1av", "_Z1bv", "_Z1cv"}

// writeFixtureRun writes the record files of application-replay run `pass` of `passes`. Kernel ids
// differ from run to run (as they may between processes) so that matching by name is exercised;
// dispatch ids start at 100*(pass+1). The counter value of a dispatch is 1000*(pass+1)+ordinal in
// the run, so a test can tell which run a merged line came from.
func writeFixtureRun(t testing.TB, dir string, pass, passes int, procs ...fxProc) {
	t.Helper()
	recDir := filepath.Join(dir, contract.RecordsDir)
	if err := os.MkdirAll(recDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		f, err := os.Create(filepath.Join(recDir, fmt.Sprintf("%d.ndjson", p.pid)))
		if err != nil {
			t.Fatal(err)
		}
		w := newLineWriter(f)
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(w.write(contract.RecHeader, contract.Header{Version: 1, PID: p.pid, Backend: "sim", InitTime: p.init, Cmdline: []string{"./app"}}))
		must(w.write(contract.RecAgent, contract.Agent{ID: 7, Index: 0, Name: "gfx90a"}))
		for i, k := range fxKernels {
			must(w.write(contract.RecKernel, contract.Kernel{KernelID: uint64(10*(pass+1) + i), Name: k, Demangled: k[3:4] + "()", AgentID: 7}))
		}
		for i, d := range p.dispatches {
			kid := -1
			for j, k := range fxKernels {
				if k == d.kernel {
					kid = j
				}
			}
			v := float64(1000*(pass+1) + i)
			id := uint64(100*(pass+1) + i)
			must(w.write(contract.RecDispatch, contract.Dispatch{DispatchID: id, CorrelationID: id, Pass: pass, Passes: passes,
				AgentID: 7, KernelID: uint64(10*(pass+1) + kid), Grid: [3]uint32{d.grid, 1, 1}, Workgroup: [3]uint32{64, 1, 1},
				Start: int64(i), End: int64(i + 1),
				Counters: []contract.CounterValue{{Name: fmt.Sprintf("C%d", pass), Values: []*float64{&v}}}}))
		}
		if !p.noEnd {
			must(w.write(contract.RecEnd, contract.End{FiniTime: 99, Dispatches: uint64(len(p.dispatches))}))
		}
		must(w.flush())
		must(f.Close())
	}
}

func seq(spec ...any) []fxDispatch {
	var out []fxDispatch
	for i := 0; i < len(spec); i += 2 {
		out = append(out, fxDispatch{kernel: spec[i].(string), grid: uint32(spec[i+1].(int))})
	}
	return out
}

// mergedLine is what a test checks of one merged dispatch line.
type mergedLine struct {
	ID      uint64
	Pass    int
	Kernel  uint64
	Counter string
	Value   float64
}

func TestMergeRuns(t *testing.T) {
	a, b, c := fxKernels[0], fxKernels[1], fxKernels[2]
	base := seq(a, 4, b, 8, a, 4, b, 8)
	tests := []struct {
		name      string
		runs      [][]fxProc
		want      []mergedLine // nil: do not check lines
		complete  uint64
		divergent []string // kind kernel #ordinal pass count
	}{
		{
			name: "identical runs",
			runs: [][]fxProc{{{pid: 1, dispatches: base}}, {{pid: 2, dispatches: base}}},
			want: []mergedLine{
				{100, 0, 10, "C0", 1000}, {100, 1, 10, "C1", 2000},
				{101, 0, 11, "C0", 1001}, {101, 1, 11, "C1", 2001},
				{102, 0, 10, "C0", 1002}, {102, 1, 10, "C1", 2002},
				{103, 0, 11, "C0", 1003}, {103, 1, 11, "C1", 2003},
			},
			complete: 4,
		},
		{
			name: "another completion order is not a divergence",
			runs: [][]fxProc{{{pid: 1, dispatches: base}}, {{pid: 2, dispatches: seq(b, 8, a, 4, b, 8, a, 4)}}},
			want: []mergedLine{
				{100, 0, 10, "C0", 1000}, {100, 1, 10, "C1", 2001},
				{101, 0, 11, "C0", 1001}, {101, 1, 11, "C1", 2000},
				{102, 0, 10, "C0", 1002}, {102, 1, 10, "C1", 2003},
				{103, 0, 11, "C0", 1003}, {103, 1, 11, "C1", 2002},
			},
			complete: 4,
		},
		{
			name:      "a later run lacks a dispatch",
			runs:      [][]fxProc{{{pid: 1, dispatches: base}}, {{pid: 2, dispatches: base[:3]}}},
			complete:  3,
			divergent: []string{"missing _Z1bv #2 pass 2 x1"},
		},
		{
			name:      "a later run has more dispatches",
			runs:      [][]fxProc{{{pid: 1, dispatches: base}}, {{pid: 2, dispatches: append(seq(c, 1, c, 1), base...)}}},
			complete:  4,
			divergent: []string{"extra _Z1cv #1 pass 2 x2"},
		},
		{
			name:      "other launch geometry",
			runs:      [][]fxProc{{{pid: 1, dispatches: base}}, {{pid: 2, dispatches: seq(a, 4, b, 8, a, 5, b, 9)}}},
			complete:  2,
			divergent: []string{"geometry _Z1av #2 pass 2 x1", "geometry _Z1bv #2 pass 2 x1"},
			want: []mergedLine{
				{100, 0, 10, "C0", 1000}, {100, 1, 10, "C1", 2000},
				{101, 0, 11, "C0", 1001}, {101, 1, 11, "C1", 2001},
				{102, 0, 10, "C0", 1002},
				{103, 0, 11, "C0", 1003},
			},
		},
		{
			name: "kernels swapped, as sim-nondet does",
			runs: [][]fxProc{{{pid: 1, dispatches: seq(a, 1, b, 1, a, 1)}}, {{pid: 2, dispatches: seq(a, 1, a, 1, a, 1)}}},
			want: []mergedLine{
				{100, 0, 10, "C0", 1000}, {100, 1, 10, "C1", 2000},
				{101, 0, 11, "C0", 1001},
				{102, 0, 10, "C0", 1002}, {102, 1, 10, "C1", 2001},
			},
			complete:  2,
			divergent: []string{"extra _Z1av #3 pass 2 x1", "missing _Z1bv #1 pass 2 x1"},
		},
		{
			name: "three passes, the third missing one process",
			runs: [][]fxProc{
				{{pid: 1, init: 1, dispatches: base[:1]}, {pid: 5, init: 2, dispatches: base[:1]}},
				{{pid: 9, init: 1, dispatches: base[:1]}, {pid: 3, init: 2, dispatches: base[:1]}},
				{{pid: 4, init: 1, dispatches: base[:1]}},
			},
			complete:  1,
			divergent: []string{"processes  #0 pass 3 x1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var dirs []string
			for pass, procs := range tc.runs {
				dir := t.TempDir()
				writeFixtureRun(t, dir, pass, len(tc.runs), procs...)
				dirs = append(dirs, dir)
			}
			procs, rep, err := mergeDirs(t, dirs)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Processes != len(tc.runs[0]) {
				t.Errorf("merged %d processes, want %d", rep.Processes, len(tc.runs[0]))
			}
			if rep.Complete != tc.complete {
				t.Errorf("%d complete dispatches, want %d", rep.Complete, tc.complete)
			}
			var got []string
			for _, d := range rep.Divergences {
				got = append(got, fmt.Sprintf("%s %s #%d pass %d x%d", d.Kind, d.Symbol, d.Ordinal, d.Pass, d.Count))
			}
			if !reflect.DeepEqual(got, tc.divergent) {
				t.Errorf("divergences\n got %q\nwant %q", got, tc.divergent)
			}
			if len(procs) != len(tc.runs[0]) {
				t.Fatalf("%d merged processes, want %d", len(procs), len(tc.runs[0]))
			}
			for _, p := range procs {
				if len(p.Problems) > 0 {
					t.Errorf("merged process %s has problems: %q", p.Path, p.Problems)
				}
				if !p.Ended() {
					t.Errorf("merged process %s has no end record", p.Path)
				}
			}
			if tc.want == nil {
				return
			}
			var lines []mergedLine
			for _, d := range recordOrder(t, procs[0]) {
				if d.Passes != len(tc.runs) {
					t.Errorf("dispatch %d pass %d says %d passes, want %d", d.DispatchID, d.Pass, d.Passes, len(tc.runs))
				}
				lines = append(lines, mergedLine{d.DispatchID, d.Pass, d.KernelID, d.Counters[0].Name, *d.Counters[0].Values[0]})
			}
			if !reflect.DeepEqual(lines, tc.want) {
				t.Errorf("merged lines\n got %v\nwant %v", lines, tc.want)
			}
		})
	}
}

// TestMergeLookaheadBound checks that a run that never supplies a partner is not read into memory
// without bound: the merge gives up on that dispatch and reports it.
func TestMergeLookaheadBound(t *testing.T) {
	a, b := fxKernels[0], fxKernels[1]
	first := seq(b, 1)
	second := make([]fxDispatch, 0, mergeLookahead+10)
	for i := 0; i < mergeLookahead+10; i++ {
		second = append(second, fxDispatch{a, 1})
	}
	second = append(second, fxDispatch{b, 1})
	d0, d1 := t.TempDir(), t.TempDir()
	writeFixtureRun(t, d0, 0, 2, fxProc{pid: 1, dispatches: first})
	writeFixtureRun(t, d1, 1, 2, fxProc{pid: 2, dispatches: second})
	_, rep, err := mergeDirs(t, []string{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, d := range rep.Divergences {
		kinds = append(kinds, fmt.Sprintf("%s %s x%d", d.Kind, d.Symbol, d.Count))
	}
	want := []string{"extra _Z1av x" + fmt.Sprint(mergeLookahead+10), "extra _Z1bv x1", "missing _Z1bv x1"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("divergences %q, want %q", kinds, want)
	}
}

func TestApplicationPlanPadsPasses(t *testing.T) {
	base := contract.Plan{Version: 1, ReplayMode: contract.ModeNone, ApplicationPass: -1, Agents: []contract.PlanAgent{
		{Index: 0, Name: "gfx90a", Passes: []contract.PlanPass{{Group: 0, Base: []contract.PlanCounter{{Name: "A"}}}, {Group: 1, Base: []contract.PlanCounter{{Name: "B"}}}}},
		{Index: 1, Name: "gfx942", Passes: []contract.PlanPass{{Group: 1, Base: []contract.PlanCounter{{Name: "B"}}}}},
		{Index: 2, Name: "gfx908"},
	}}
	p := applicationPlan(base, 1, 2)
	if p.ReplayMode != contract.ModeApplication || p.ApplicationPass != 1 {
		t.Fatalf("mode %q pass %d", p.ReplayMode, p.ApplicationPass)
	}
	for _, a := range p.Agents {
		if len(a.Passes) != 2 {
			t.Errorf("agent %d lists %d passes, want 2", a.Index, len(a.Passes))
		}
	}
	if n := len(p.Agents[1].Passes[1].Base); n != 0 {
		t.Errorf("padding pass of agent 1 collects %d counters", n)
	}
	if len(base.Agents[1].Passes) != 1 {
		t.Error("applicationPlan changed the base plan")
	}
}

// sanity check of the fixture writer: its files read back without problems.
func TestFixtureRunReads(t *testing.T) {
	dir := t.TempDir()
	writeFixtureRun(t, dir, 0, 1, fxProc{pid: 3, dispatches: seq(fxKernels[0], 1)})
	procs, err := records.ReadRunDir(dir)
	if err != nil || len(procs) != 1 || len(procs[0].Problems) != 0 || len(recordOrder(t, procs[0])) != 1 {
		t.Fatalf("fixture does not read back: %v %+v", err, procs)
	}
	f, _ := os.Open(procs[0].Path)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	if got := sc.Text(); got[:15] != `{"t":"header","` {
		t.Errorf("first line %q does not start with the type", got)
	}
}

// TestDivergenceSentences: a divergence reads as a sentence that names the kernel as the compare
// table and the summary do (demangled), with how many dispatches differ.
func TestDivergenceSentences(t *testing.T) {
	a, b := fxKernels[0], fxKernels[1]
	d0, d1, d2 := t.TempDir(), t.TempDir(), t.TempDir()
	writeFixtureRun(t, d0, 0, 3, fxProc{pid: 1, dispatches: seq(a, 1, b, 1, a, 1, b, 2)})
	writeFixtureRun(t, d1, 1, 3, fxProc{pid: 2, dispatches: seq(a, 1, a, 1, a, 1, a, 1)})
	writeFixtureRun(t, d2, 2, 3, fxProc{pid: 3, dispatches: seq(a, 1, b, 1, a, 1, b, 3)})
	_, rep, err := mergeDirs(t, []string{d0, d1, d2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Divergences {
		got = append(got, d.String())
	}
	want := []string{
		"process 1: pass 2 ran 2 dispatches more of kernel a() on Agent 7 than pass 1, from the kernel's dispatch #3",
		"process 1: pass 2 ran 2 dispatches fewer of kernel b() on Agent 7 than pass 1, from the kernel's dispatch #1",
		"process 1: pass 3 launched 1 dispatch of kernel b() on Agent 7 with another geometry than pass 1, from the kernel's dispatch #2" +
			" (grid [2 1 1] and workgroup [64 1 1] on pass 1, grid [3 1 1] and workgroup [64 1 1] on pass 3)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("divergences\n got %q\nwant %q", got, want)
	}
}

// A damaged line in one run's record file costs that line: the merge goes on and says where it was.
func TestMergeSkipsDamagedLines(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for pass := 0; pass < 2; pass++ {
		dir := filepath.Join(root, fmt.Sprint(pass))
		writeFixtureRun(t, dir, pass, 2, fxProc{pid: 5, init: 1, dispatches: seq("_Z1av", 64, "_Z1bv", 64)})
		dirs = append(dirs, dir)
	}
	path := filepath.Join(dirs[1], contract.RecordsDir, "5.ndjson")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	damaged := strings.Join(lines[:5], "") + "garbage\n" + strings.Join(lines[5:], "")
	if err := os.WriteFile(path, []byte(damaged), 0o644); err != nil {
		t.Fatal(err)
	}
	procs, rep, err := mergeDirs(t, dirs)
	if err != nil {
		t.Fatalf("MergeRuns: %v, want the damaged line skipped", err)
	}
	if rep.Complete != 2 {
		t.Errorf("%d complete dispatches, want 2", rep.Complete)
	}
	want := "application replay pass 2: records/5.ndjson line 6: damaged line skipped: invalid character"
	if len(procs) != 1 || len(procs[0].Warnings) != 1 || !strings.HasPrefix(procs[0].Warnings[0], want) {
		t.Fatalf("warnings of the merge: %v, want one starting %q", procs, want)
	}
}

// mergeDirs reads the run directories as the passes of an application replay do and merges them.
func mergeDirs(t testing.TB, dirs []string) ([]*records.Process, MergeReport, error) {
	t.Helper()
	var runs [][]*records.Process
	for _, d := range dirs {
		run, err := records.ReadRun(d)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(run.Close)
		runs = append(runs, run.Processes)
	}
	merged, rep, err := MergeRuns(runs)
	t.Cleanup(records.Run{Processes: merged}.Close)
	return merged, rep, err
}

// recordOrder lists a process's dispatch lines in the order of its records (a merged process: the
// order the merge made them in).
func recordOrder(t testing.TB, p *records.Process) []contract.Dispatch {
	t.Helper()
	var out []contract.Dispatch
	r := p.Records()
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type == contract.RecDispatch {
			out = append(out, *rec.Dispatch)
		}
	}
}
