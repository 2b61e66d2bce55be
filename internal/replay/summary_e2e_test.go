package replay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/stats"
)

// TestProcessWritesTheRunsSummary: run.json keeps the summary options, so `gorocprof process`
// writes the summary file the run wrote, byte for byte, and prints the terminal summary the run
// printed, on the stream it printed it on.
func TestProcessWritesTheRunsSummary(t *testing.T) {
	root := needBuiltTool(t)
	groups, err := counters.ParseGroups([]string{"SQ_WAVES SQ_INSTS_VALU", "GRBM_GUI_ACTIVE", "SQ_INSTS_SALU"})
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{"sum_%pid%", "stdout", ""} {
		t.Run(to, func(t *testing.T) {
			work, tmp, kept := keptRunDirs(t)
			t.Chdir(work)
			var ranOut, ranErr bytes.Buffer
			res, err := Run(context.Background(), Request{
				Backend: "sim", Groups: groups, Mode: contract.ModeKernel, KernelTrace: true, Stats: true, Quiet: true,
				Summary: &stats.SummaryOptions{Whole: true, PerDomain: true, Units: "usec"}, SummaryTo: to,
				OutputDir: "out", OutputFile: "run", Formats: []string{"csv"},
				App: filepath.Join(root, "bin", "sim-demo"), Stdout: &ranOut, Stderr: &ranErr,
				sinks: []output.Sink{&copyRunDirs{from: tmp, to: kept}},
			})
			if err != nil || res.ExitCode != 0 {
				t.Fatalf("run: exit %d, err %v\n%s", res.ExitCode, err, ranErr.String())
			}
			if err := os.Rename(filepath.Join(work, "out"), filepath.Join(work, "ran")); err != nil {
				t.Fatal(err)
			}
			dirs, err := filepath.Glob(filepath.Join(kept, "gorocprof-*"))
			if err != nil || len(dirs) != 1 {
				t.Fatalf("run directories kept: %v (%v), want one", dirs, err)
			}
			var out, errOut bytes.Buffer
			if _, err := Process(context.Background(), ProcessRequest{RunDirs: dirs, Stdout: &out, Stderr: &errOut}); err != nil {
				t.Fatalf("process: %v\n%s", err, errOut.String())
			}
			sameTree(t, filepath.Join(work, "ran"), filepath.Join(work, "out"))
			terminal := map[string]*bytes.Buffer{"stdout": &out, "": &errOut}[to]
			ran := map[string]*bytes.Buffer{"stdout": &ranOut, "": &ranErr}[to]
			if terminal == nil {
				files, _ := filepath.Glob(filepath.Join(work, "out", "run_sum_*.txt"))
				if len(files) != 1 {
					t.Fatalf("summary files %v, want run_sum_<pid>.txt", files)
				}
				return
			}
			summary := ran.String()[strings.Index(ran.String(), "\n    ROCPROFV3 "):]
			if !strings.Contains(terminal.String(), summary) {
				t.Errorf("process printed\n%s\nwant the run's summary\n%s", terminal.String(), summary)
			}
		})
	}
}

// keptRunDirs makes the runs of a test put their run directories in tmp (TMPDIR) under a new work
// directory, for copyRunDirs to keep in kept.
func keptRunDirs(t *testing.T) (work, tmp, kept string) {
	t.Helper()
	work = t.TempDir()
	tmp, kept = filepath.Join(work, "tmp"), filepath.Join(work, "kept")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	return work, tmp, kept
}
