package replay

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// TestProcessWritesWhatTheRunWrote keeps every run directory of a normal run, then has Process turn
// each into outputs later, from another working directory and with another environment: the files
// and the summary must be the run's own, byte for byte, under the run's -d, -o and -f.
func TestProcessWritesWhatTheRunWrote(t *testing.T) {
	root := e2etest.Require(t, traceApp)
	tests := []struct {
		name        string
		pmc         []string
		mode        string
		kernelTrace bool
		stats       bool
		truncate    bool
		formats     []string
		file        string
		extra       string          // -E file text
		app         string          // bin/<app>; sim-demo when empty
		trace       map[string]bool // the tracing flags given
	}{
		{"kernel replay with a derived counter", []string{"SQ_WAVES SQ_INSTS_VALU", "GRBM_GUI_ACTIVE Wavefronts"},
			contract.ModeKernel, false, false, false, []string{"json", "csv"}, "%hostname%/%pid%", "", "", nil},
		{"kernel trace, stats, truncated names, csv and rocpd, variables and a custom rank in -o", []string{"SQ_WAVES"},
			contract.ModeNone, true, true, true, []string{"csv", "rocpd"}, "%env{GOROCPROF_TEST_TAG}%_%rank%_of_%size%_%pid%", "", "", nil},
		{"application replay", []string{"SQ_WAVES SQ_INSTS_VALU", "GRBM_GUI_ACTIVE"},
			contract.ModeApplication, false, false, false, []string{"json", "csv"}, "run", "", "", nil},
		{"sys-trace under application replay", []string{"SQ_WAVES", "GRBM_GUI_ACTIVE"},
			contract.ModeApplication, true, true, false, []string{"json", "csv", "rocpd"}, "run", "", traceApp, map[string]bool{tracing.SysTrace: true}},
		{"markers alone: no counters, no kernel trace", nil,
			contract.ModeNone, false, false, false, []string{"json", "csv"}, "run", "", traceApp, map[string]bool{string(tracing.Marker): true}},
		{"hip and marker trace under kernel replay", []string{"SQ_WAVES", "GRBM_GUI_ACTIVE"},
			contract.ModeKernel, false, false, false, []string{"json", "csv", "pftrace"}, "run", "", traceApp, map[string]bool{tracing.HIPTrace: true, string(tracing.Marker): true}},
		{"rotation, an extra counter", []string{"SQ_WAVES MY_WAVES_TWICE", "GRBM_GUI_ACTIVE"},
			contract.ModeRotation, true, false, false, []string{"json", "csv", "rocpd"}, "run",
			"rocprofiler-sdk:\n  counters-schema-version: 1\n  counters:\n  - name: MY_WAVES_TWICE\n    definitions:\n" +
				"    - architectures: [gfx90a, gfx942]\n      expression: 2*SQ_WAVES\n", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			groups, err := counters.ParseGroups(tc.pmc)
			if err != nil {
				t.Fatal(err)
			}
			var extra *counters.Extra
			if tc.extra != "" {
				if extra, err = counters.ParseExtra("extra.yaml", []byte(tc.extra)); err != nil {
					t.Fatal(err)
				}
			}
			app := tc.app
			if app == "" {
				app = "sim-demo"
			}
			sel, _ := tracing.Expand(tc.trace)
			work, tmp, kept := keptRunDirs(t)
			t.Setenv("GOROCPROF_TEST_TAG", "atlaunch")
			t.Setenv("GOROCPROF_TEST_RANK", "3")
			t.Setenv("GOROCPROF_TEST_SIZE", "4")
			t.Chdir(work)
			var ranOut, stderr bytes.Buffer
			res, err := Run(context.Background(), Request{
				Backend: "sim", Groups: groups, Extra: extra, Mode: tc.mode, GroupInterval: 2, KernelTrace: tc.kernelTrace, Stats: tc.stats, Truncate: tc.truncate,
				Tracing:   sel,
				OutputDir: "out", OutputFile: tc.file, Formats: tc.formats,
				RankVariables: output.RankVariables{Rank: "GOROCPROF_TEST_RANK", Size: "GOROCPROF_TEST_SIZE"},
				App:           filepath.Join(root, "bin", app), Stdout: &ranOut, Stderr: &stderr,
				sinks: []output.Sink{&copyRunDirs{from: tmp, to: kept}},
			})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: exit %d, err %v\n%s", res.ExitCode, err, stderr.String())
			}
			if err := os.Rename(filepath.Join(work, "out"), filepath.Join(work, "ran")); err != nil {
				t.Fatal(err)
			}
			t.Setenv("GOROCPROF_TEST_TAG", "later")
			t.Setenv("GOROCPROF_TEST_RANK", "9")
			t.Chdir(t.TempDir())

			dirs, err := filepath.Glob(filepath.Join(kept, "gorocprof-*"))
			if err != nil || len(dirs) == 0 {
				t.Fatalf("no run directory kept under %s (%v)", kept, err)
			}
			// One run directory is one run; the pass directories of an application replay, given
			// together, give each pass's output and then the merged result.
			var batches [][]string
			for _, dir := range runDirsInOrder(t, dirs) {
				batches = append(batches, []string{dir})
			}
			if tc.mode == contract.ModeApplication {
				batches = [][]string{runDirsInOrder(t, dirs)}
			}
			var processedOut bytes.Buffer
			for _, batch := range batches {
				stderr.Reset()
				if _, err := Process(context.Background(), ProcessRequest{RunDirs: batch, Stdout: &processedOut, Stderr: &stderr}); err != nil {
					t.Fatalf("process %v: %v\n%s", batch, err, stderr.String())
				}
			}
			sameTree(t, filepath.Join(work, "ran"), filepath.Join(work, "out"))
			summary := withoutAppLines(ranOut.String())
			if processedOut.String() != summary {
				t.Errorf("the summary differs:\nrun:\n%s\nprocess:\n%s", summary, processedOut.String())
			}
		})
	}
}

// traceApp is the simulated app that makes API calls, markers and copies of every kind.
const traceApp = "sim-trace"

// withoutAppLines is the run's stdout without what the application printed there.
func withoutAppLines(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(line, "sim-demo: ") && !strings.HasPrefix(line, traceApp+": ") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// runDirsInOrder puts the run directories of an application replay in the order the replay writes
// them: its passes, then the merged records.
func runDirsInOrder(t *testing.T, dirs []string) []string {
	t.Helper()
	ordered := make([]string, len(dirs))
	for _, d := range dirs {
		info, err := ReadRunInfo(d)
		if err != nil {
			t.Fatal(err)
		}
		i := info.ApplicationPass
		if i < 0 {
			i = len(dirs) - 1
		}
		ordered[i] = d
	}
	return ordered
}

// copyTree copies the directories and regular files under src into dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// sameTree fails unless both trees hold the same files with the same bytes.
func sameTree(t *testing.T, want, got string) {
	t.Helper()
	files := func(root string) map[string][]byte {
		out := map[string][]byte{}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			rel, _ := filepath.Rel(root, path)
			out[rel] = data
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	w, g := files(want), files(got)
	if len(w) == 0 {
		t.Fatalf("the run wrote nothing under %s", want)
	}
	for name, data := range w {
		other, ok := g[name]
		switch {
		case !ok:
			t.Errorf("process did not write %s (it wrote %s)", name, strings.Join(keys(g), ", "))
		case !bytes.Equal(data, other):
			t.Errorf("%s differs from the run's (%d bytes against %d)", name, len(other), len(data))
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("process wrote %s, which the run did not", name)
		}
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// copyRunDirs is a sink that copies the run directories (from) to where they outlive the run (to)
// once the first process of the run's result has gone by, before the run removes them.
type copyRunDirs struct {
	from, to string
	done     bool
}

func (c *copyRunDirs) Begin(*output.Process) error     { return nil }
func (c *copyRunDirs) Dispatch(*output.Dispatch) error { return nil }
func (c *copyRunDirs) End(failed error) error {
	if failed != nil || c.done {
		return failed
	}
	c.done = true
	return copyTree(c.from, c.to)
}
