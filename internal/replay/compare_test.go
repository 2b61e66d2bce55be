package replay

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
)

func statsOf(calls int, derived map[string]bool, means map[string]float64) *modeStats {
	s := newModeStats()
	for c, v := range means {
		s.values[valueKey{"k()", 0, c}] = &meanAcc{sum: v * float64(calls), n: calls}
	}
	s.calls[kernelAgent{"k()", 0}] = calls
	for c, d := range derived {
		s.derived[c] = d
	}
	return s
}

func TestCompareRows(t *testing.T) {
	derived := map[string]bool{"RATIO": true}
	tests := []struct {
		name       string
		kernel     *modeStats
		app        *modeStats
		rtol       float64
		wantAgree  map[string]bool
		wantRTol   map[string]float64
		wantMissed []string // counters one side lacks
	}{
		{"equal integers agree exactly", statsOf(3, nil, map[string]float64{"SQ_WAVES": 16}), statsOf(3, nil, map[string]float64{"SQ_WAVES": 16}), -1,
			map[string]bool{"SQ_WAVES": true}, map[string]float64{"SQ_WAVES": 0}, nil},
		{"an integer counter off by one differs", statsOf(3, nil, map[string]float64{"SQ_WAVES": 16}), statsOf(3, nil, map[string]float64{"SQ_WAVES": 17}), -1,
			map[string]bool{"SQ_WAVES": false}, nil, nil},
		{"a user tolerance covers integers too", statsOf(3, nil, map[string]float64{"SQ_WAVES": 100}), statsOf(3, nil, map[string]float64{"SQ_WAVES": 101}), 0.02,
			map[string]bool{"SQ_WAVES": true}, map[string]float64{"SQ_WAVES": 0.02}, nil},
		{"derived counters get the default tolerance", statsOf(2, derived, map[string]float64{"RATIO": 0.3}), statsOf(2, derived, map[string]float64{"RATIO": 0.1 + 0.2}), -1,
			map[string]bool{"RATIO": true}, map[string]float64{"RATIO": DefaultDerivedRTol}, nil},
		{"beyond the default tolerance a derived counter differs", statsOf(2, derived, map[string]float64{"RATIO": 0.3}), statsOf(2, derived, map[string]float64{"RATIO": 0.31}), -1,
			map[string]bool{"RATIO": false}, nil, nil},
		{"other dispatch counts differ even with equal means", statsOf(2, nil, map[string]float64{"SQ_WAVES": 4}), statsOf(3, nil, map[string]float64{"SQ_WAVES": 4}), -1,
			map[string]bool{"SQ_WAVES": false}, nil, nil},
		{"a counter one mode lacks differs", statsOf(2, nil, map[string]float64{"A": 1, "B": 2}), statsOf(2, nil, map[string]float64{"A": 1}), -1,
			map[string]bool{"A": true, "B": false}, nil, []string{"B"}},
		{"NaN on both sides agrees", statsOf(1, derived, map[string]float64{"RATIO": math.NaN()}), statsOf(1, derived, map[string]float64{"RATIO": math.NaN()}), -1,
			map[string]bool{"RATIO": true}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := compareRows(tc.kernel, tc.app, tc.rtol)
			if len(rows) != len(tc.wantAgree) {
				t.Fatalf("%d rows, want %d", len(rows), len(tc.wantAgree))
			}
			var missed []string
			for _, r := range rows {
				if r.Agree != tc.wantAgree[r.Counter] {
					t.Errorf("%s: agree = %v, want %v (%+v)", r.Counter, r.Agree, tc.wantAgree[r.Counter], r)
				}
				if want, ok := tc.wantRTol[r.Counter]; ok && r.RTol != want {
					t.Errorf("%s: rtol %v, want %v", r.Counter, r.RTol, want)
				}
				if r.KernelValue == nil || r.ApplicationValue == nil {
					missed = append(missed, r.Counter)
					if r.Difference != nil {
						t.Errorf("%s: a difference without both values", r.Counter)
					}
				}
			}
			if fmt.Sprint(missed) != fmt.Sprint(tc.wantMissed) && !(len(missed) == 0 && len(tc.wantMissed) == 0) {
				t.Errorf("rows without both values %v, want %v", missed, tc.wantMissed)
			}
		})
	}
}

// fixtureCounters is the plan of the merge fixtures: pass p reports counter Cp.
type fixtureCounters struct{}

func (fixtureCounters) Requested(_, pass int) []string { return []string{fmt.Sprintf("C%d", pass)} }
func (fixtureCounters) Describe(_ int, name string) output.CounterInfo {
	return output.CounterInfo{Name: name}
}
func (fixtureCounters) Evaluate(_ int, name string, _ map[string][]float64) ([]float64, error) {
	return nil, fmt.Errorf("%s is not derived", name)
}

// TestModeStatsOfMergedRecords reads the means of a merged application replay: every pass's counter
// on its logical dispatch, one call per logical dispatch.
func TestModeStatsOfMergedRecords(t *testing.T) {
	a, b := fxKernels[0], fxKernels[1]
	d0, d1 := t.TempDir(), t.TempDir()
	writeFixtureRun(t, d0, 0, 2, fxProc{pid: 1, dispatches: seq(a, 1, b, 1, a, 1)})
	writeFixtureRun(t, d1, 1, 2, fxProc{pid: 2, dispatches: seq(a, 1, b, 1, a, 1)})
	procs, _, err := mergeDirs(t, []string{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	s := newModeStats()
	for _, p := range procs {
		if err := output.Stream(p, fixtureCounters{}, s); err != nil {
			t.Fatal(err)
		}
	}
	if s.dispatches != 3 || s.calls[kernelAgent{"a()", 0}] != 2 || s.calls[kernelAgent{"b()", 0}] != 1 {
		t.Fatalf("dispatches %d calls %v", s.dispatches, s.calls)
	}
	// Values are 1000*(pass+1) + position in the run: a() sits at positions 0 and 2.
	want := map[valueKey]float64{
		{"a()", 0, "C0"}: 1001, {"a()", 0, "C1"}: 2001,
		{"b()", 0, "C0"}: 1001, {"b()", 0, "C1"}: 2001,
	}
	for k, v := range want {
		if m := s.mean(k); m == nil || *m != v {
			t.Errorf("%v: mean %v, want %v", k, m, v)
		}
	}
}

// Both modes of a comparison run on one plan: the backend is asked for the agents and their
// catalogs once, not once per mode. The application copies a record file of one dispatch into its
// run directory, as the tool would write it, so that both modes measure something.
func TestComparePlansOnce(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	const counter = "sm__inst_executed.sum"
	recs := filepath.Join(t.TempDir(), "1.ndjson")
	writeOneDispatch(t, recs, counter)
	var stderr bytes.Buffer
	req := CompareRequest{RTol: -1, Request: Request{Backend: "fake", Groups: mustGroups(t, counter), App: "sh",
		Args: []string{"-c", `cp "$0" "$` + contract.EnvRunDir + `/` + contract.RecordsDir + `/"`, recs}, Stderr: &stderr}}
	rep, err := NewComparer(NewPreparer(f.Chooser()))(context.Background(), req)
	if err != nil {
		t.Fatalf("compare: %v\n%s", err, stderr.String())
	}
	if rep.Kernel.Dispatches != 1 || rep.Application.Dispatches != 1 || len(rep.Rows) != 1 || rep.Differences != 0 {
		t.Fatalf("report %+v, want one dispatch of one agreeing counter in each mode\n%s", rep, stderr.String())
	}
	if r := rep.Rows[0]; r.Agent != 0 || r.AgentNumber != 3 {
		t.Errorf("row of agent index %d number %d, want index 0 and the agent's logical node id 3", r.Agent, r.AgentNumber)
	}
	var got []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "passes") {
			got = append(got, c)
		}
	}
	if want := []string{"agents ahead " + counter, "catalog 0 " + counter}; !reflect.DeepEqual(got, want) {
		t.Errorf("the two modes asked the backend %q, want %q", got, want)
	}
}

// writeOneDispatch writes the record file of a process that dispatched one kernel on the fake
// backend's agent 0 (logical node id 3), with one value of counter in a plan of one pass.
func writeOneDispatch(t *testing.T, path, counter string) {
	t.Helper()
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := newLineWriter(file)
	v := 42.0
	for _, rec := range []struct {
		t string
		v any
	}{
		{contract.RecHeader, contract.Header{Version: 1, PID: 1, Backend: "fake", Cmdline: []string{"sh"}}},
		{contract.RecAgent, contract.Agent{ID: 1, Index: 0, Name: "FAKE1", Props: map[string]int64{"logical_node_id": 3}}},
		{contract.RecKernel, contract.Kernel{KernelID: 1, Name: "_Z1av", Demangled: "a()", AgentID: 1}},
		{contract.RecDispatch, contract.Dispatch{DispatchID: 1, CorrelationID: 1, Pass: 0, Passes: 1, AgentID: 1, KernelID: 1,
			Grid: [3]uint32{64, 1, 1}, Workgroup: [3]uint32{64, 1, 1}, Start: 1, End: 2,
			Counters: []contract.CounterValue{{Name: counter, Values: []*float64{&v}}}}},
		{contract.RecEnd, contract.End{FiniTime: 3, Dispatches: 1}},
	} {
		if err := w.write(rec.t, rec.v); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
}
