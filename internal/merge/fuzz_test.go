package merge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
)

// FuzzReadResults feeds any bytes to the results.json reader as an input of a merge: no input makes
// it panic or loop, and one it accepts is written as a merged results.json that reads back as the
// same processes with the same number of passes and trace lines. The seeds are the inputs of the
// merge testscript and the traced fixture's results.json.
func FuzzReadResults(f *testing.F) {
	ar, err := txtar.ParseFile(filepath.Join("..", "..", "testdata", "script", "merge.txtar"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range ar.Files {
		if strings.HasSuffix(file.Name, ".json") {
			f.Add(file.Data)
		}
	}
	traced, err := os.ReadFile(filepath.Join("..", "output", "testdata", "golden", "traced", "5100_results.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(traced)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		in := filepath.Join(dir, "in_results.json")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		heads, err := readHeads(in)
		if err != nil {
			return
		}
		files := output.NewFiles(context.Background(), output.Options{Dir: dir, File: "out", Formats: []string{"json"},
			KernelTrace: heads[0].kernelTrace})
		if err := write(heads, files, nil); err != nil {
			files.Abort(err)
			files.Close()
			return
		}
		if _, err := files.Close(); err != nil {
			return // a counter the input lacks on some pass is reported, not written
		}
		back, err := readHeads(filepath.Join(dir, "out_results.json"))
		if err != nil {
			t.Fatalf("the merged results.json does not read back: %v", err)
		}
		if len(back) != len(heads) {
			t.Fatalf("%d processes in, %d read back", len(heads), len(back))
		}
		for i := range back {
			if back[i].passes != heads[i].passes {
				t.Fatalf("process %d: %d passes in, %d read back", i, heads[i].passes, back[i].passes)
			}
			if in, out := traceLines(t, heads[i]), traceLines(t, back[i]); in != out {
				t.Fatalf("process %d: %d trace lines in, %d read back", i, in, out)
			}
		}
	})
}

// traceLines counts a process's trace lines.
func traceLines(t *testing.T, h *head) int {
	n := 0
	if err := h.src.(*jsonSource).traces(h, func(*contract.Trace) error { n++; return nil }); err != nil {
		t.Fatalf("the trace lines of %s do not read back: %v", h.name(), err)
	}
	return n
}

// readHeads is what a merge reads of one results.json before it writes anything.
func readHeads(path string) ([]*head, error) {
	heads, err := readFile(inputFile{path: path})
	if err != nil {
		return nil, err
	}
	return heads, compatible(sorted(heads))
}
