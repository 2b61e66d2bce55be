package merge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/golden"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/stats"
)

// tracedResults writes the traced fixture's results.json and returns its path and the process.
func tracedResults(t *testing.T) (string, *records.Process) {
	t.Helper()
	p, err := records.ReadProcess(filepath.Join("..", "output", "testdata", "records", "5100_traced.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	dir := t.TempDir()
	if _, err := output.Write(output.Options{Dir: dir, File: "run", Formats: []string{"json"}, KernelTrace: true}, p, nil); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "run_results.json"), p
}

func eachLine(t *testing.T, each func(func(*contract.Trace) error) error) []contract.Trace {
	t.Helper()
	var out []contract.Trace
	if err := each(func(tr *contract.Trace) error { out = append(out, *tr); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestJSONTracesReadBack: every trace line written to results.json reads back as it was, its
// domain, function, message, ids, times and a copy's agents, addresses and queue, a copy naming
// no domain as its line does.
func TestJSONTracesReadBack(t *testing.T) {
	path, p := tracedResults(t)
	heads, err := scanJSON(path, nil)
	if err != nil || len(heads) != 1 {
		t.Fatalf("%d heads, %v", len(heads), err)
	}
	h := heads[0]
	got := eachLine(t, func(fn func(*contract.Trace) error) error { return h.src.(*jsonSource).traces(h, fn) })
	want := eachLine(t, p.EachTrace)
	order := func(a, b contract.Trace) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), cmp.Compare(a.CorrelationID, b.CorrelationID), cmp.Compare(a.Start, b.Start))
	}
	slices.SortFunc(got, order)
	slices.SortFunc(want, order)
	if !slices.Equal(got, want) {
		t.Errorf("read back:\n%+v\nwritten:\n%+v", got, want)
	}
}

// TestJSONTracesRefused: a record the strings cannot name, or in an array not of its kind, is an
// error naming the array and the record.
func TestJSONTracesRefused(t *testing.T) {
	path, _ := tracedResults(t)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"kind", `{"size":0,"kind":6,"operation":0`, `{"size":0,"kind":99,"operation":0`, "buffer_records.hip_api: [0]: kind 99 is not in strings.buffer_records"},
		{"operation", `{"size":0,"kind":6,"operation":0`, `{"size":0,"kind":6,"operation":7`, "[0]: operation 7 of kind HIP_COMPILER_API"},
		{"array", `{"size":0,"kind":6,"operation":0`, `{"size":0,"kind":32,"operation":0`, "a record of kind MARKER_CORE_RANGE_API in buffer_records.hip_api"},
		{"message", `{"key":7,"value":"main"}`, `{"key":77,"value":"main"}`, "marker 7 has no message in strings.marker_api"},
		{"twice", `{"size":0,"kind":6,"operation":0`, `{"size":0,"kind":6,"operation":0,"kind":6`, `[0]: key "kind" given twice`},
		{"no kind", `{"size":0,"kind":6,"operation":0`, `{"size":0,"operation":0`, "[0]: a record without its kind or operation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(b), tc.old) {
				t.Fatalf("the file has no %s", tc.old)
			}
			bad := filepath.Join(t.TempDir(), "bad_results.json")
			if err := os.WriteFile(bad, []byte(strings.Replace(string(b), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			heads, err := scanJSON(bad, nil)
			if err != nil {
				t.Fatal(err)
			}
			err = heads[0].src.(*jsonSource).traces(heads[0], func(*contract.Trace) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// waveCounters: each agent's one pass collects SQ_WAVES and SQ_INSTS_VALU, as the traced fixture's
// dispatch recorded them.
type waveCounters struct{}

func (waveCounters) Requested(agentIndex, pass int) []string {
	if agentIndex != 0 || pass != 0 {
		return nil
	}
	return []string{"SQ_WAVES", "SQ_INSTS_VALU"}
}

func (waveCounters) Describe(_ int, name string) output.CounterInfo {
	return output.CounterInfo{Name: name, Block: "SQ", Dimensions: []counters.Dimension{{Name: "DIMENSION_SHADER_ENGINE", Size: 8}}}
}

func (waveCounters) Evaluate(int, string, map[string][]float64) ([]float64, error) {
	return nil, errors.New("no derived counters")
}

// TestMergeOneTracedProcess: the merge of one traced process's results.json gives its run's files
// again, byte for byte: results.json, every CSV file (the trace files among them), the stats and
// the summaries.
func TestMergeOneTracedProcess(t *testing.T) {
	p, err := records.ReadProcess(filepath.Join("..", "output", "testdata", "records", "5100_traced.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	sum := &stats.SummaryOptions{Whole: true, PerDomain: true, Groups: []string{".*_API"}}
	run, merged := t.TempDir(), t.TempDir()
	summary, err := output.NewStatsSummary(sum, "summary", output.PathVars{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := output.Write(output.Options{Dir: run, File: "run", Formats: []string{"json", "csv"}, KernelTrace: true, Stats: true,
		TraceDomains: []string{"HIP_COMPILER_API", "HIP_RUNTIME_API", "MARKER_CORE_RANGE_API", "MEMORY_COPY"}, Summary: summary}, p, waveCounters{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Run(context.Background(), Request{Inputs: []string{filepath.Join(run, "run_results.json")}, OutputDir: merged,
		OutputFile: "run", Formats: []string{"json", "csv"}, Stats: true, Quiet: true, Summary: sum, SummaryTo: "summary"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(paths) {
		t.Errorf("the merge wrote %d files %v, the run %d %v", len(got), got, len(paths), paths)
	}
	for _, path := range paths {
		name := filepath.Base(path)
		want := readBytes(t, path)
		if b := readBytes(t, filepath.Join(merged, name)); !bytes.Equal(b, want) {
			t.Errorf("merged %s differs from the run's:\n%s", name, golden.Diff(string(want), string(b)))
		}
	}
}

// TestMergeJSONShiftsTraceIDs: of two results.json files, the second process's trace lines take the correlation ids its
// dispatches take, shifted past the first process's largest (a trace line's among them), so that a
// call keeps the id of the dispatch and the copy it issued and no call of the first has it.
func TestMergeJSONShiftsTraceIDs(t *testing.T) {
	path, _ := tracedResults(t)
	b := readBytes(t, path)
	second := filepath.Join(t.TempDir(), "second_results.json")
	if err := os.WriteFile(second, bytes.Replace(b, []byte(`"pid":5100,"ppid":5000`), []byte(`"pid":5200,"ppid":5000`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), Request{Inputs: []string{path, second}, OutputDir: dir, OutputFile: "m",
		Formats: []string{"csv"}, Quiet: true}); err != nil {
		t.Fatal(err)
	}
	rows := func(name string) [][]string {
		out, err := csv.NewReader(bytes.NewReader(readBytes(t, filepath.Join(dir, name)))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return out[1:]
	}
	const firstMax = 10 // the first process's largest correlation id, hipFree's
	byPID := map[string][]string{}
	for _, r := range rows("m_hip_api_trace.csv") {
		byPID[r[2]] = append(byPID[r[2]], r[1]+"@"+r[4])
	}
	for i, call := range byPID["5100"] {
		name, id, _ := strings.Cut(call, "@")
		n, _ := strconv.Atoi(id)
		if want := name + "@" + strconv.Itoa(n+firstMax); byPID["5200"][i] != want {
			t.Errorf("second process's call %d: %s, want %s", i, byPID["5200"][i], want)
		}
	}
	copies := rows("m_memory_copy_trace.csv")
	dispatches := rows("m_kernel_trace.csv")
	if len(copies) != 4 || copies[2][5] != strconv.Itoa(3+firstMax) || copies[3][5] != strconv.Itoa(5+firstMax) {
		t.Errorf("copies' correlation ids: %v", copies)
	}
	if len(dispatches) != 2 || dispatches[1][8] != strconv.Itoa(4+firstMax) {
		t.Errorf("dispatches' correlation ids: %v", dispatches)
	}
}
