package output

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

func TestWriteRejectsUnknownFormat(t *testing.T) {
	dir := t.TempDir()
	_, err := Write(Options{Dir: dir, File: "x", Formats: []string{"csv", "otf2"}}, readFixture(t, "4242.ndjson"), nil)
	if err == nil || !strings.Contains(err.Error(), "otf2") {
		t.Fatalf("err = %v, want one naming otf2", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files written despite the error: %v", entries)
	}
}

// TestWritePathsOrder: the files of a prefix are reported in one order whatever order -f names the
// formats in: results.json and the CSV files, the trace, the database, then the statistics.
func TestWritePathsOrder(t *testing.T) {
	all := []string{"x_results.json", "x_agent_info.csv", "x_counter_collection.csv", "x_kernel_trace.csv",
		"x_results.pftrace", "x_results.db", "x_kernel_stats.csv", "x_domain_stats.csv"}
	for _, tc := range []struct {
		formats []string
		want    []string
	}{
		{[]string{"pftrace", "rocpd", "csv", "json"}, all},
		{[]string{"rocpd", "pftrace"}, all[4:]},
		{[]string{"pftrace", "json"}, []string{all[0], all[4], all[6], all[7]}},
	} {
		t.Run(strings.Join(tc.formats, ","), func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Dir: dir, File: "x", Formats: tc.formats, KernelTrace: true, Stats: true}
			paths, err := Write(opts, readFixture(t, "4242.ndjson"), fakeCounters{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range paths {
				paths[i] = filepath.Base(paths[i])
			}
			if !slices.Equal(paths, tc.want) {
				t.Errorf("paths = %v, want %v", paths, tc.want)
			}
		})
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

// TestAgentIDsJoin: every Agent_Id of counter_collection.csv and kernel_trace.csv names the agent of
// an agent_info.csv row, as --agent-index chooses: the agent's node id (absolute) or logical node id
// (relative), each its handle when the backend reports none (and then Node_Id and Logical_Node_Id are
// that handle, not 0), or its ordinal among its type.
func TestAgentIDsJoin(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"t":"header","version":1,"pid":9,"ppid":1,"backend":"sim","hostname":"h","init_time":1,"cmdline":["./app"]}`,
		`{"t":"agent","id":1,"index":0,"name":"gfx90a","vendor":"AMD","type":"GPU","props":{"cu_count":104}}`,
		`{"t":"agent","id":2,"index":1,"name":"gfx942","vendor":"AMD","type":"GPU","props":{"cu_count":304,"node_id":7,"logical_node_id":3,"gpu_id":4242}}`,
		`{"t":"kernel","kernel_id":1,"name":"k","demangled":"k()","truncated":"k","agent_id":1}`,
		`{"t":"kernel","kernel_id":2,"name":"k","demangled":"k()","truncated":"k","agent_id":2}`,
		`{"t":"dispatch","dispatch_id":1,"pass":0,"passes":1,"correlation_id":1,"agent_id":1,"queue_id":1,"kernel_id":1,"grid":[64,1,1],"workgroup":[64,1,1],"start":10,"end":20,"counters":[{"name":"SQ_WAVES","values":[1]},{"name":"SQ_INSTS_VALU","values":[4]}]}`,
		`{"t":"dispatch","dispatch_id":2,"pass":0,"passes":1,"correlation_id":2,"agent_id":2,"queue_id":1,"kernel_id":2,"grid":[64,1,1],"workgroup":[64,1,1],"start":30,"end":40,"counters":[{"name":"SQ_WAVES","values":[1]},{"name":"SQ_INSTS_VALU","values":[4]}]}`,
		`{"t":"end","fini_time":50,"dispatches":2,"replayed":0,"declined":0}`,
	}
	proc := processFromLines(t, dir, lines)
	column := func(file, name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, "out_"+file))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		i := slices.Index(rows[0], name)
		var out []string
		for _, r := range rows[1:] {
			out = append(out, r[i])
		}
		return out
	}
	// rocprofv3's --agent-index: absolute names the agent by its node id, relative (the default) by
	// its logical node id, type-relative by its ordinal among its type (the plan's index), with
	// the type as the label.
	for _, tc := range []struct {
		indexing string
		want     []string
	}{
		{"", []string{"Agent 1", "Agent 3"}},
		{"relative", []string{"Agent 1", "Agent 3"}},
		{"absolute", []string{"Agent 1", "Agent 7"}},
		{"type-relative", []string{"GPU 0", "GPU 1"}},
	} {
		if _, err := Write(Options{Dir: dir, File: "out", Formats: []string{"csv"}, KernelTrace: true, AgentIndex: tc.indexing},
			proc, fakeCounters{}); err != nil {
			t.Fatal(err)
		}
		for _, file := range []string{"counter_collection.csv", "kernel_trace.csv"} {
			if got := slices.Compact(column(file, "Agent_Id")); !slices.Equal(got, tc.want) {
				t.Errorf("--agent-index %q: %s Agent_Id = %v, want %v", tc.indexing, file, got, tc.want)
			}
		}
	}
	if got, want := column("agent_info.csv", "Node_Id"), []string{"1", "7"}; !slices.Equal(got, want) {
		t.Errorf("agent_info.csv Node_Id = %v, want %v", got, want)
	}
	if got, want := column("agent_info.csv", "Logical_Node_Id"), []string{"1", "3"}; !slices.Equal(got, want) {
		t.Errorf("agent_info.csv Logical_Node_Id = %v, want %v", got, want)
	}
	if got, want := column("agent_info.csv", "Gpu_Id"), []string{"0", "4242"}; !slices.Equal(got, want) {
		t.Errorf("agent_info.csv Gpu_Id = %v, want %v", got, want)
	}
}

// TestStreamGivesEverySinkTheSameDispatches: a sink besides the files sees the catalog the files
// number counters with, and every pass with its counters' ids, evaluated once for both.
func TestStreamGivesEverySinkTheSameDispatches(t *testing.T) {
	var seen catalogSink
	files := NewFiles(context.Background(), Options{Dir: t.TempDir(), File: "p", Formats: []string{"json"}})
	if err := Stream(readFixture(t, "4242.ndjson"), fakeCounters{}, files, &seen); err != nil {
		t.Fatal(err)
	}
	if len(seen.catalog) == 0 || seen.passes == 0 {
		t.Fatalf("catalog %v, %d passes", seen.catalog, seen.passes)
	}
	ids := map[uint64]bool{}
	for _, c := range seen.catalog {
		ids[c.ID] = true
	}
	for _, id := range seen.ids {
		if !ids[id] {
			t.Errorf("a pass counter carries id %d, which the catalog lacks", id)
		}
	}
	paths, err := files.Close()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"counter_id":`); n != len(seen.ids) {
		t.Errorf("results.json holds %d counter values, the sink saw %d counters with ids", n, len(seen.ids))
	}
}

type catalogSink struct {
	catalog []CatalogCounter
	passes  int
	ids     []uint64
}

func (s *catalogSink) Begin(p *Process) error { s.catalog = p.Catalog(); return nil }
func (s *catalogSink) Dispatch(d *Dispatch) error {
	for _, p := range d.Passes {
		s.passes++
		for _, c := range p.Counters {
			if c.ID != 0 {
				for range c.Values {
					s.ids = append(s.ids, c.ID)
				}
			}
		}
	}
	return nil
}
func (s *catalogSink) End(failed error) error { return failed }
