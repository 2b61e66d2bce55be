package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// TestMergeReadsRocprofv3Layout: merge reads the results.json files it writes in rocprofv3's
// layout, which lists every buffer record kind in strings.buffer_records and indexes kernel_symbols
// by kernel id: whether the run traced its kernels comes from metadata.config (a run without the
// trace is merged without it), the empty entries of kernel ids without a symbol are no kernels, and
// a replayed dispatch's passes after the first (gorocprof_replay_kernel_dispatch) are read with it.
func TestMergeReadsRocprofv3Layout(t *testing.T) {
	for _, tc := range []struct {
		fixture string
		trace   bool
	}{{"4300.ndjson", true}, {"4300.ndjson", false}, {"4242.ndjson", true}} {
		proc, err := records.ReadProcess(filepath.Join("..", "output", "testdata", "records", tc.fixture))
		if err != nil {
			t.Fatal(err)
		}
		trace := tc.trace
		dir := t.TempDir()
		if _, err := output.Write(output.Options{Dir: dir, File: "in", Formats: []string{"json"}, KernelTrace: trace}, proc, nil); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		_, err = Run(context.Background(), Request{Inputs: []string{filepath.Join(dir, "in_results.json")}, OutputDir: dir,
			OutputFile: "m", Formats: []string{"json", "csv"}, Quiet: true, Stdout: &stdout})
		if err != nil {
			t.Fatalf("kernel trace %v: %v", trace, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "m_kernel_trace.csv")); (err == nil) != trace {
			t.Errorf("kernel trace %v: merged kernel_trace.csv exists: %v", trace, err == nil)
		}
		in, out := readLayout(t, filepath.Join(dir, "in_results.json")), readLayout(t, filepath.Join(dir, "m_results.json"))
		for _, key := range []string{"kernel_symbols", "buffer_records"} {
			if string(in[key]) != string(out[key]) {
				t.Errorf("%s, kernel trace %v: merged %s\n%s\nnot the input's\n%s", tc.fixture, trace, key, out[key], in[key])
			}
		}
	}
}

func readLayout(t *testing.T, path string) map[string]json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Elements []map[string]json.RawMessage `json:"rocprofiler-sdk-tool"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Elements) != 1 {
		t.Fatalf("%s: %v", path, err)
	}
	return doc.Elements[0]
}
