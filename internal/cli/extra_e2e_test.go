package cli

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/e2etest"
)

const extraDefs = `rocprofiler-sdk:
  counters-schema-version: 1
  counters:
  - name: MY_VALU_PER_WAVE
    description: VALU instructions per wave, with a decimal factor
    properties: []
    definitions:
    - architectures: [gfx90a, gfx942]
      expression: 0.5*reduce(SQ_INSTS_VALU,sum)/reduce(SQ_WAVES,sum)
`

// An extra counter (-E) is collected like a built-in derived one: its value in each counter record
// is its expression over the base counters of that same record. avail lists it.
func TestExtraCounterIsItsExpressionOverTheSameRecord(t *testing.T) {
	clearEnv(t)
	root := e2etest.Require(t)
	dir := t.TempDir()
	defs := filepath.Join(dir, "extra.yaml")
	if err := os.WriteFile(defs, []byte(extraDefs), 0o644); err != nil {
		t.Fatal(err)
	}
	listed := execute(t, []string{"avail", "--backend", "sim", "-E", defs, "--agent", "1"})
	if !strings.Contains(listed, "MY_VALU_PER_WAVE") || !strings.Contains(listed, "0.5*reduce(SQ_INSTS_VALU,sum)/reduce(SQ_WAVES,sum)") {
		t.Errorf("avail -E does not list the extra counter with its expression:\n%s", listed)
	}
	out := filepath.Join(dir, "out")
	execute(t, []string{"--backend", "sim", "--quiet", "-E", defs, "--pmc", "SQ_WAVES", "SQ_INSTS_VALU", "MY_VALU_PER_WAVE",
		"-d", out, "-o", "run", "-f", "json", "--", filepath.Join(root, "bin", "sim-demo")})
	recs := readCounterRecords(t, filepath.Join(out, "run_results.json"))
	if len(recs) == 0 {
		t.Fatal("no counter records")
	}
	agents := map[uint64]bool{}
	for _, r := range recs {
		agents[r.agentID] = true
		v, ok := r.values["MY_VALU_PER_WAVE"]
		if !ok {
			t.Fatalf("dispatch %d: no MY_VALU_PER_WAVE (counters %v)", r.dispatchID, r.counters)
		}
		want := 0.5 * r.values["SQ_INSTS_VALU"] / r.values["SQ_WAVES"]
		if math.Abs(v-want) > 1e-9*math.Abs(want) || want == 0 {
			t.Errorf("dispatch %d: MY_VALU_PER_WAVE %v, want 0.5*%v/%v = %v", r.dispatchID, v, r.values["SQ_INSTS_VALU"], r.values["SQ_WAVES"], want)
		}
	}
	if len(agents) != 2 {
		t.Errorf("records on %d agents, want both simulated agents", len(agents))
	}
}
