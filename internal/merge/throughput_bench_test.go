package merge

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// BenchmarkMergeJSON merges one results.json into JSON and CSV and reports its input's bytes per
// second: a generated one of 20,000 dispatches of two passes, or the file $GOROCPROF_MERGE_INPUT
// names (a real run's, as docs/perf.md measures with).
func BenchmarkMergeJSON(b *testing.B) {
	in := benchInput(b)
	out := b.TempDir()
	b.ResetTimer()
	for range b.N {
		if _, err := Run(context.Background(), Request{Inputs: []string{in}, OutputDir: out, OutputFile: "m",
			Formats: []string{"json", "csv"}, Quiet: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadJSON is the reading side of BenchmarkMergeJSON alone: the heads, the check (where
// the heads pass did not do it) and the build's pass over the records, without the sinks; its
// bytes per second are the input's.
func BenchmarkReadJSON(b *testing.B) {
	in := benchInput(b)
	b.ResetTimer()
	for range b.N {
		heads, err := readFile(inputFile{path: in})
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range heads {
			if err := h.src.each(h, func(*contract.Dispatch) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// benchInput is the results.json the benchmarks read, its size their bytes per operation.
func benchInput(b *testing.B) string {
	in := os.Getenv("GOROCPROF_MERGE_INPUT")
	if in == "" {
		in = filepath.Join(b.TempDir(), "run_results.json")
		writeInput(b, in, 42, 20000)
	}
	st, err := os.Stat(in)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	return in
}
