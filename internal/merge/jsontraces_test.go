package merge

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
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
