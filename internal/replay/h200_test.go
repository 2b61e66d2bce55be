package replay

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/golden"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// recordedOracle answers "how many passes does this metric set need" from the answers the CUDA
// query helper gave on the H200. A subset of a set that fits one pass fits one pass; anything else was
// not recorded and is an error, so the test cannot silently plan on invented answers.
func recordedOracle(t *testing.T) func([]string) (int, error) {
	t.Helper()
	var fx struct {
		Passes map[string]int `json:"passes"`
	}
	readJSON(t, "../../testdata/cuda/h200-passes.json", &fx)
	return func(metrics []string) (int, error) {
		for set, n := range fx.Passes {
			if n != 1 {
				continue
			}
			have := strings.Split(set, ",")
			if !slices.ContainsFunc(metrics, func(m string) bool { return !slices.Contains(have, m) }) {
				return 1, nil
			}
		}
		return 0, fmt.Errorf("no recorded answer for %v", metrics)
	}
}

func readJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	golden.ReadJSON(tb, path, v)
}

func h200Target(t *testing.T) counters.Target {
	t.Helper()
	var metrics contract.MetricsReply
	readJSON(t, "../../testdata/cuda/h200-metrics.json", &metrics)
	var agents contract.AgentsReply
	readJSON(t, "../../testdata/cuda/h200-agents.json", &agents)
	if len(agents.Agents) != 1 || metrics.Chip != "GH100" || len(metrics.Metrics) < 10000 {
		t.Fatalf("fixture: %d agents, chip %q, %d metrics", len(agents.Agents), metrics.Chip, len(metrics.Metrics))
	}
	a := agents.Agents[0]
	return counters.Target{Index: a.Index, Name: a.Name, Catalog: counters.NewNVIDIA(metrics.Chip, metrics.Metrics, recordedOracle(t)),
		Consts: counters.ConstsFromProps(a.Props)}
}

// The three groups of scripts/gpu-test.sh, planned on the recorded H200 catalog, give the plan the
// tool library ran with on the H200.
func TestPlanOnRecordedH200(t *testing.T) {
	groups, err := counters.ParseGroups([]string{
		"sm__inst_executed.sum sm__warps_launched.sum",
		"sm__inst_executed.sum smsp__inst_executed_op_global_ld.sum",
		"sm__warps_launched.sum smsp__inst_executed_op_global_ld.sum",
	})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := counters.NewPlan(groups, []counters.Target{h200Target(t)})
	if err != nil {
		t.Fatal(err)
	}
	var ran contract.Plan
	readJSON(t, "../../testdata/cuda/saxpy-run/plan.json", &ran)
	got, _ := json.Marshal(contract.Plan{Agents: plan.Agents})
	want, _ := json.Marshal(contract.Plan{Agents: ran.Agents})
	if string(got) != string(want) {
		t.Errorf("plan on the recorded catalog\n got %s\nwant %s", got, want)
	}

	_, err = counters.NewPlan([]counters.Group{{Counters: []counters.CounterRef{{Name: "sm__inst_executd.sum"}}}}, []counters.Target{h200Target(t)})
	if err == nil || !strings.Contains(err.Error(), "sm__inst_executed.sum") {
		t.Errorf("a misspelt metric should suggest sm__inst_executed.sum, got %v", err)
	}
}

// Records the CUDA backend wrote on the H200 (saxpy, 5 dispatches x 3 passes) read back and written
// as rocprofv3 output: passes kept apart, values as measured (ncu gave the same numbers).
func TestOutputOfRecordedH200Run(t *testing.T) {
	procs, err := records.ReadRunDir("../../testdata/cuda/saxpy-run")
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 1 || !procs[0].Ended() || len(procs[0].Problems) != 0 || len(procs[0].MissingPasses()) != 0 {
		t.Fatalf("records: %d processes, problems %v", len(procs), procs[0].Problems)
	}
	var ran contract.Plan
	readJSON(t, "../../testdata/cuda/saxpy-run/plan.json", &ran)
	groups := make([]string, 0, len(ran.Agents[0].Passes))
	for _, p := range ran.Agents[0].Passes {
		names := make([]string, 0, len(p.Base))
		for _, c := range p.Base {
			names = append(names, c.Name)
		}
		groups = append(groups, strings.Join(names, " "))
	}
	parsed, err := counters.ParseGroups(groups)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := counters.NewPlan(parsed, []counters.Target{h200Target(t)})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := output.Write(output.Options{Dir: dir, File: "saxpy", Formats: []string{"csv", "json"}}, procs[0], plan); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "saxpy_counter_collection.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 1+5*3*2 { // header + 5 dispatches x 3 passes x 2 counters, never summed
		t.Fatalf("%d CSV lines, want 31", len(lines))
	}
	for _, want := range []string{`"sm__inst_executed.sum",622592.000000`, `"sm__warps_launched.sum",32768.000000`, `"smsp__inst_executed_op_global_ld.sum",65536.000000`} {
		if n := strings.Count(string(csv), want); n != 10 {
			t.Errorf("%s appears %d times, want 10 (5 dispatches x the 2 passes holding it)", want, n)
		}
	}
	if !strings.Contains(string(csv), `"saxpy(float, float const*, float*, int)"`) {
		t.Error("kernel name not demangled in the CSV")
	}
}
