package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// simAgentSets are the simulated agents sim-demo runs on: GOROCPROF_SIM_AGENTS' default, then
// every other architecture the simulated runtime knows.
var simAgentSets = [][]string{{"gfx90a", "gfx942"}, {"gfx908", "gfx940", "gfx941", "gfx950"}}

// TestSimulatedDerivedCountersAreConsistent evaluates every derived counter the simulated agents
// offer on sim-demo's dispatches (kernel replay, all of them in one run) and checks what AMD's
// definitions take for granted of the base counters: no value is negative or not finite (sizes,
// counts, rates and ratios alike; a subset larger than its total makes a difference negative), and
// a counter the definitions call a percentage lies in [0, 100] (busy cycles within the kernel's).
func TestSimulatedDerivedCountersAreConsistent(t *testing.T) {
	root := needBuiltTool(t)
	for _, archs := range simAgentSets {
		t.Run(strings.Join(archs, ","), func(t *testing.T) {
			t.Setenv("GOROCPROF_SIM_AGENTS", strings.Join(archs, ","))
			checkDerivedCounters(t, root, archs)
		})
	}
}

func checkDerivedCounters(t *testing.T, root string, simDemoArchs []string) {
	percent := map[string]bool{}
	var names []string
	seen := map[string]bool{}
	for _, arch := range simDemoArchs {
		cat, err := counters.LoadAMD(arch)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range cat.List() {
			if !info.Derived || seen[info.Name] {
				continue
			}
			seen[info.Name] = true
			names = append(names, info.Name)
			d := strings.ToLower(info.Description)
			if strings.Contains(d, "percent") || strings.Contains(d, "%") {
				percent[info.Name] = true
			}
		}
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	res, err := Run(context.Background(), Request{Backend: "auto", Groups: parseGroups(t, []string{strings.Join(names, " ")}),
		Mode: contract.ModeKernel, OutputDir: out, OutputFile: "run", Formats: []string{"json"}, Quiet: true,
		App: filepath.Join(root, "bin", "sim-demo"), Stdout: &stdout, Stderr: &stderr})
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("run: exit %d, err %v\n%s", res.ExitCode, err, stderr.String())
	}
	rf := e2etest.ReadResults(t, filepath.Join(out, "run_results.json"))
	if len(rf.Tool) != 1 {
		t.Fatalf("%d processes in results.json, want 1", len(rf.Tool))
	}
	proc := rf.Tool[0]
	type agentCounter struct {
		agent   uint64
		counter string
	}
	counterOf := map[uint64]agentCounter{}
	for _, c := range proc.Counters {
		counterOf[c.ID.Handle] = agentCounter{c.AgentID.Handle, c.Name}
	}
	agentName := map[uint64]string{}
	for _, a := range proc.Agents {
		agentName[a.ID.Handle] = a.Name
	}
	evaluated := map[agentCounter]bool{}
	bad := map[agentCounter]string{}
	for _, r := range proc.CallbackRecords.CounterCollection {
		for _, rec := range r.Records {
			ac := counterOf[rec.CounterID.Handle]
			if !seen[ac.counter] {
				continue // a base counter
			}
			evaluated[ac] = true
			v, why := rec.Value, ""
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
				why = "negative or not finite"
			case percent[ac.counter] && v > 100:
				why = "a percentage above 100"
			}
			if _, shown := bad[ac]; why != "" && !shown {
				bad[ac] = why
				t.Errorf("%s on %s, dispatch %d: %s is %s", ac.counter, agentName[ac.agent],
					r.DispatchData.DispatchInfo.DispatchID, formatFloat(v), why)
			}
		}
	}
	for _, arch := range simDemoArchs {
		cat, _ := counters.LoadAMD(arch)
		n := 0
		for ac := range evaluated {
			if agentName[ac.agent] == arch {
				n++
			}
		}
		want := 0
		for _, info := range cat.List() {
			if info.Derived {
				want++
			}
		}
		if n != want {
			t.Errorf("%s: %d of its %d derived counters were evaluated", arch, n, want)
		}
	}
	if len(bad) > 0 {
		t.Errorf("%d derived counters break their definitions' invariants", len(bad))
	}
}

func formatFloat(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "non-finite"
	}
	b, _ := json.Marshal(v)
	return string(b)
}
