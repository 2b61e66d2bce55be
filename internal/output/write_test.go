package output

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

func TestWriteRejectsUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(Options{Dir: dir, File: "x", Formats: []string{"csv", "pftrace"}}, readFixture(t, "4242.ndjson"), nil)
	if err == nil || !strings.Contains(err.Error(), "pftrace") {
		t.Fatalf("err = %v, want one naming pftrace", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written despite the error: %v", entries)
	}
}

// brokenDerived cannot evaluate the derived counter: its values must be left out, reported, and
// everything else still written.
type brokenDerived struct{ fakeCounters }

func (brokenDerived) Evaluate(int, string, map[string][]float64) ([]float64, error) {
	return nil, os.ErrInvalid
}

func TestWriteReportsEvaluationFailures(t *testing.T) {
	dir := t.TempDir()
	paths, err := Write(Options{Dir: dir, File: "sub/p", Formats: []string{"csv"}}, readFixture(t, "4242.ndjson"), brokenDerived{})
	if err == nil || !strings.Contains(err.Error(), "dispatch 1 pass 2: counter VALUInstsPerWave") {
		t.Fatalf("err = %v, want the failing dispatch, pass and counter", err)
	}
	if len(paths) != 2 {
		t.Fatalf("paths = %v, want agent_info and counter_collection", paths)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "sub", "p_counter_collection.csv"))
	if strings.Contains(string(csv), "VALUInstsPerWave") || !strings.Contains(string(csv), `"GRBM_COUNT"`) {
		t.Errorf("counter_collection.csv should hold the other counters only:\n%s", csv)
	}
}

func TestNumberJSON(t *testing.T) {
	tests := map[float64]string{
		0: "0", 8: "8", -3: "-3", 1.5: "1.5", 1e20: "1e+20", 0.1: "0.1",
		math.NaN(): "null", math.Inf(1): "null", math.Inf(-1): "null",
	}
	for in, want := range tests {
		b, err := json.Marshal(number(in))
		if err != nil || string(b) != want {
			t.Errorf("number(%v) = %s, %v; want %s", in, b, err, want)
		}
	}
}

func TestKernelName(t *testing.T) {
	k := contract.Kernel{Name: "_Z1kIiEvv", Demangled: "void k<int>()", Truncated: "k"}
	tests := []struct {
		k                 contract.Kernel
		mangled, truncate bool
		want              string
	}{
		{k, false, false, "void k<int>()"},
		{k, true, false, "_Z1kIiEvv"},
		{k, false, true, "k"},
		{k, true, true, "_Z1kIiEvv"},
		{contract.Kernel{Name: "plain"}, false, true, "plain"},
	}
	for _, tc := range tests {
		if got := KernelName(tc.k, tc.mangled, tc.truncate); got != tc.want {
			t.Errorf("KernelName(%+v, M=%v, T=%v) = %q, want %q", tc.k, tc.mangled, tc.truncate, got, tc.want)
		}
	}
}

func TestPassCounters(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	d := &contract.Dispatch{DispatchID: 4, Pass: 2, Counters: []contract.CounterValue{
		{Name: "SQ_WAVES", Values: []*float64{f(2), nil, f(4)}},
		{Name: "SQ_INSTS_VALU", Values: []*float64{f(20), f(30), f(40)}},
	}}
	got, errs := passCounters(fakeCounters{}, 0, d)
	want := []counterValues{{"VALUInstsPerWave", []float64{10, math.Inf(1), 10}}}
	if len(errs) != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("pass 2: got %v, %v; want %v", got, errs, want)
	}
	d.Pass = 0
	got, _ = passCounters(fakeCounters{}, 0, d)
	want = []counterValues{{"SQ_INSTS_VALU", []float64{20, 30, 40}}, {"SQ_WAVES", []float64{2, 0, 4}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pass 0: got %v; want %v", got, want)
	}
	if got, errs := passCounters(fakeCounters{}, 0, &contract.Dispatch{Pass: 0}); got != nil || errs != nil {
		t.Errorf("a pass without counters: got %v, %v; want nothing", got, errs)
	}
}
