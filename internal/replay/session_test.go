package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/querycache"
)

// fakeCUDALib makes a library directory whose CUDA query helper is a shell script answering from the
// H200 recordings in testdata/cuda (agents repeated `agents` times, all of chip GH100) and writing
// each command line it gets to the returned log. Every metric set fits one pass.
func fakeCUDALib(t *testing.T, agents int) (libDir, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var one struct {
		Agents []map[string]any `json:"agents"`
	}
	readJSON(t, "../../testdata/cuda/h200-agents.json", &one)
	var list []map[string]any
	for i := 0; i < agents; i++ {
		a := map[string]any{}
		for k, v := range one.Agents[0] {
			a[k] = v
		}
		a["index"], a["id"] = i, i+1
		list = append(list, a)
	}
	reply, err := json.Marshal(map[string]any{"version": 1, "backend": "cuda", "agents": list})
	if err != nil {
		t.Fatal(err)
	}
	agentsFile := filepath.Join(dir, "agents.json")
	if err := os.WriteFile(agentsFile, reply, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
echo "$*" >> '` + log + `'
case "$1" in
agents) cat '` + agentsFile + `' ;;
metrics) cat '` + abs("../../testdata/cuda/h200-metrics.json") + `' ;;
passes) echo '{"version":1,"agent":'"$3"',"metrics":[],"passes":1}' ;;
*) echo "gorocprof-query: $1: unknown" >&2; exit 1 ;;
esac
`
	if err := os.WriteFile(filepath.Join(dir, "gorocprof-query-cuda"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "libgorocprof_tool_cuda.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, log
}

func helperCalls(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = os.Remove(log)
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

func planCUDA(t *testing.T, pmc ...string) *counters.Plan {
	t.Helper()
	groups, err := counters.ParseGroups(pmc)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := OpenSession(context.Background(), launch.BackendCUDA, "")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sess.Plan(groups)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// The second planning of the same groups on this machine starts the helper once (for the agents):
// the catalog and the pass counts come from the query cache, and the plan is the same.
func TestSessionQueryCache(t *testing.T) {
	lib, log := fakeCUDALib(t, 1)
	cache := t.TempDir()
	t.Setenv(launch.EnvLibDir, lib)
	t.Setenv(querycache.EnvCache, cache)
	groups := []string{"sm__inst_executed.sum sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum"}

	first := planCUDA(t, groups...)
	want := []string{"agents", "metrics --agent 0",
		"passes --agent 0 sm__inst_executed.sum,sm__warps_launched.sum",
		"passes --agent 0 smsp__inst_executed_op_global_ld.sum"}
	if got := helperCalls(t, log); !reflect.DeepEqual(got, want) {
		t.Fatalf("first planning asked the helper\n%q\nwant\n%q", got, want)
	}
	second := planCUDA(t, groups...)
	if got := helperCalls(t, log); !reflect.DeepEqual(got, []string{"agents"}) {
		t.Errorf("second planning asked the helper %q, want only the agents", got)
	}
	if !reflect.DeepEqual(first.Agents, second.Agents) {
		t.Errorf("the plan from the cache differs:\n%+v\n%+v", first.Agents, second.Agents)
	}

	// A rebuilt helper is another identity: everything is asked again.
	script := filepath.Join(lib, "gorocprof-query-cuda")
	data, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, append(data, []byte("# rebuilt\n")...), 0o755); err != nil {
		t.Fatal(err)
	}
	planCUDA(t, groups...)
	if got := helperCalls(t, log); len(got) != 4 {
		t.Errorf("after the helper changed the helper was asked %q, want all 4 questions again", got)
	}
}

// Agents of one chip share one catalog: the metric list is read once, however many GPUs there are.
func TestSessionOneCatalogPerChip(t *testing.T) {
	lib, log := fakeCUDALib(t, 4)
	t.Setenv(launch.EnvLibDir, lib)
	t.Setenv(querycache.EnvCache, "off")
	planCUDA(t, "sm__inst_executed.sum")
	got := helperCalls(t, log)
	want := []string{"agents", "metrics --agent 0", "passes --agent 0 sm__inst_executed.sum"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("4 agents of one chip asked the helper\n%q\nwant\n%q", got, want)
	}
	planCUDA(t, "sm__inst_executed.sum")
	if got := helperCalls(t, log); !reflect.DeepEqual(got, want) {
		t.Errorf("with the cache off the second planning asked %q, want %q again", got, want)
	}
}

// A cache that cannot be written warns and the run goes on with the helper's answers.
func TestSessionUnwritableCache(t *testing.T) {
	lib, log := fakeCUDALib(t, 1)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(launch.EnvLibDir, lib)
	t.Setenv(querycache.EnvCache, filepath.Join(blocker, "cache")) // a directory under a file
	var warned bytes.Buffer
	cacheWarnings = &warned
	t.Cleanup(func() { cacheWarnings = os.Stderr })
	plan := planCUDA(t, "sm__inst_executed.sum")
	if len(plan.Agents) != 1 || len(plan.Agents[0].Passes) != 1 {
		t.Fatalf("plan %+v", plan)
	}
	if !strings.Contains(warned.String(), "gorocprof: warning: query cache") {
		t.Errorf("no warning about the cache: %q", warned.String())
	}
	if got := helperCalls(t, log); len(got) != 3 {
		t.Errorf("helper asked %q, want agents, metrics and one pass count", got)
	}
}
