package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/replay"
)

func needSimTool(t *testing.T) string { return e2etest.Require(t, "sim-nondet") }

// TestCompareExitStatus runs `gorocprof compare` as main does, on the simulated agents: 0 when the
// modes agree (sim-demo), 3 when they differ (sim-nondet dispatches another sequence every run).
func TestCompareExitStatus(t *testing.T) {
	clearEnv(t)
	root := needSimTool(t)
	compare := func(app string) (string, string, int, replay.CompareReport) {
		report := filepath.Join(t.TempDir(), "report.json")
		var out, errOut bytes.Buffer
		f := NewFactory()
		f.IO = IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
		err := Execute(context.Background(), NewRootCmd(f), []string{"compare", "--pmc", "SQ_WAVES", "SQ_INSTS_VALU", "--pmc", "SQ_INSTS_SALU",
			"-o", report, "--", filepath.Join(root, "bin", app)})
		PrintError(&errOut, err)
		var rep replay.CompareReport
		data, rerr := os.ReadFile(report)
		if rerr == nil {
			rerr = json.Unmarshal(data, &rep)
		}
		if rerr != nil {
			t.Fatalf("compare %s: no JSON report: %v\nstderr:\n%s", app, rerr, errOut.String())
		}
		return out.String(), errOut.String(), ExitCode(err), rep
	}
	stdout, stderr, code, rep := compare("sim-demo")
	if code != ExitOK || rep.Differences != 0 || !strings.Contains(stdout, "values agree") {
		t.Fatalf("sim-demo: exit %d, %d differences\nstdout:\n%s\nstderr:\n%s", code, rep.Differences, stdout, stderr)
	}
	for attempt := 0; attempt < 3; attempt++ {
		if stdout, stderr, code, rep = compare("sim-nondet"); code == ExitDifferences {
			// The differences are values, or only the runs' divergence when the kernel replay happened
			// to dispatch what the application replay's first run did.
			if rep.Differences == 0 || !(strings.Contains(stderr, "values differ") || strings.Contains(stderr, "runs diverged in")) {
				t.Errorf("sim-nondet: exit 3 but %d differences in the report\nstderr:\n%s", rep.Differences, stderr)
			}
			return
		}
	}
	t.Fatalf("sim-nondet: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, ExitDifferences, stdout, stderr)
}
