package replay

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// runSimDemo profiles sim-demo under kernel replay with two groups and returns both streams.
func runSimDemo(t *testing.T, req Request) (Result, string, string, error) {
	t.Helper()
	root := needBuiltTool(t)
	var stdout, stderr bytes.Buffer
	req.Backend, req.Mode = "auto", contract.ModeKernel
	req.Groups = parseGroups(t, []string{"SQ_WAVES SQ_INSTS_VALU", "SQ_INSTS_SALU"})
	req.OutputDir, req.OutputFile, req.Formats = t.TempDir(), "run", []string{"json", "csv"}
	req.App, req.Stdout, req.Stderr = filepath.Join(root, "bin", "sim-demo"), &stdout, &stderr
	res, err := Run(context.Background(), req)
	return res, stdout.String(), stderr.String(), err
}

// A decline is raised by the tool; the terminal shows its reason once (the tool's line), not again
// in the summary and in gorocprof's warnings, and gorocprof says once, in its error, that the
// measurements are incomplete.
func TestToolWarningAppearsOnce(t *testing.T) {
	t.Setenv("GOROCPROF_SIM_FAIL", "snapshot@2")
	_, stdout, stderr, err := runSimDemo(t, Request{})
	if err == nil {
		t.Fatalf("a declined replay must make the run fail\nstderr:\n%s", stderr)
	}
	terminal := stdout + stderr + err.Error()
	if n := strings.Count(terminal, "simulated backup failure"); n != 1 {
		t.Errorf("the decline's reason appears %d times on the terminal, want once:\n%s", n, terminal)
	}
	if n := strings.Count(terminal, "1 dispatch was not replayed"); n != 1 || !strings.Contains(err.Error(), "1 dispatch was not replayed") {
		t.Errorf("gorocprof should say once, in its error, that the measurements are incomplete (%d times):\n%s", n, terminal)
	}
}

// Under kernel replay, --kernel-trace warns once that every pass is a trace row; --log-level info
// names every output file.
func TestKernelTraceWarningAndOutputFiles(t *testing.T) {
	res, _, stderr, err := runSimDemo(t, Request{KernelTrace: true, LogLevel: "info"})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: exit %d, err %v\n%s", res.ExitCode, err, stderr)
	}
	if n := strings.Count(stderr, "every replay pass runs the kernel again"); n != 1 {
		t.Errorf("the kernel trace warning appears %d times, want once:\n%s", n, stderr)
	}
	if len(res.Files) != 4 {
		t.Fatalf("files = %v, want results.json and three CSV files", res.Files)
	}
	for _, f := range res.Files {
		if !strings.Contains(stderr, "gorocprof: wrote "+f+"\n") {
			t.Errorf("--log-level info does not name %s:\n%s", f, stderr)
		}
	}
	_, _, stderr, err = runSimDemo(t, Request{})
	if err != nil || strings.Contains(stderr, "gorocprof: wrote") || strings.Contains(stderr, "replay pass runs the kernel") {
		t.Errorf("without --kernel-trace and at the default log level: err %v, stderr:\n%s", err, stderr)
	}
}
