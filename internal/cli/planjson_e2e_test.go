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
)

// `plan --json` prints exactly the plan that results.json carries in its metadata
// ("gorocprof_plan") for the same counters: the same bytes, whatever the replay mode or the notes
// the planner adds.
func TestPlanJSONIsResultsPlan(t *testing.T) {
	clearEnv(t)
	root := e2etest.Require(t)
	tests := []struct {
		name string
		pmc  []string // one --pmc group each
		run  []string // flags of the profiling run besides --pmc
	}{
		{"kernel replay", []string{"SQ_WAVES,SQ_INSTS_VALU", "GRBM_COUNT"},
			[]string{"--replay-mode", "kernel", "--kernel-replay-beta-enabled"}},
		{"application replay", []string{"SQ_WAVES", "SQ_INSTS_SALU,GRBM_COUNT"}, nil},
		{"one group", []string{"SQ_WAVES"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pmc []string
			for _, g := range tt.pmc {
				pmc = append(pmc, "--pmc", g)
			}
			planned := execute(t, append([]string{"plan", "--backend", "sim", "--json"}, pmc...))
			dir := t.TempDir()
			args := append([]string{"--backend", "sim", "--quiet", "-d", dir, "-o", "run", "-f", "json"}, tt.run...)
			args = append(append(args, pmc...), "--", filepath.Join(root, "bin", "sim-demo"))
			execute(t, args)
			data, err := os.ReadFile(filepath.Join(dir, "run_results.json"))
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Tool []struct {
					Metadata struct {
						Plan json.RawMessage `json:"gorocprof_plan"`
					} `json:"metadata"`
				} `json:"rocprofiler-sdk-tool"`
			}
			if err := json.Unmarshal(data, &doc); err != nil || len(doc.Tool) != 1 {
				t.Fatalf("results.json: %v (%d tool entries)", err, len(doc.Tool))
			}
			if got, want := strings.TrimSuffix(planned, "\n"), string(doc.Tool[0].Metadata.Plan); got != want {
				t.Errorf("plan --json prints\n%s\nresults.json carries\n%s", got, want)
			}
		})
	}
}

// execute runs the real program's command line and returns its standard output.
func execute(t *testing.T, args []string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	f := NewFactory()
	f.IO = IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	if err := Execute(context.Background(), NewRootCmd(f), args); err != nil {
		t.Fatalf("gorocprof %s: %v\nstderr:\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}
