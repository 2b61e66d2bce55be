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
// trace is merged without it), and the empty entries of kernel ids without a symbol are no kernels.
func TestMergeReadsRocprofv3Layout(t *testing.T) {
	proc, err := records.ReadProcess(filepath.Join("..", "output", "testdata", "records", "4300.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, trace := range []bool{true, false} {
		dir := t.TempDir()
		if _, err := output.Write(output.Options{Dir: dir, File: "in", Formats: []string{"json"}, KernelTrace: trace}, proc, nil); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		_, err := Run(context.Background(), Request{Inputs: []string{filepath.Join(dir, "in_results.json")}, OutputDir: dir,
			OutputFile: "m", Formats: []string{"json", "csv"}, Quiet: true, Stdout: &stdout})
		if err != nil {
			t.Fatalf("kernel trace %v: %v", trace, err)
		}
		if _, err := os.Stat(filepath.Join(dir, "m_kernel_trace.csv")); (err == nil) != trace {
			t.Errorf("kernel trace %v: merged kernel_trace.csv exists: %v", trace, err == nil)
		}
		in, out := readLayout(t, filepath.Join(dir, "in_results.json")), readLayout(t, filepath.Join(dir, "m_results.json"))
		if string(in["kernel_symbols"]) != string(out["kernel_symbols"]) {
			t.Errorf("kernel trace %v: merged kernel_symbols\n%s\nnot the input's\n%s", trace, out["kernel_symbols"], in["kernel_symbols"])
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
