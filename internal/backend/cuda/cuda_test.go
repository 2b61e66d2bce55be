package cuda

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/golden"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// These tests run the backend against a fake query helper, a shell script answering from the H200
// recordings: what is tested is which questions reach the helper and which the query cache answers.

// planOn opens the backend in lib with store (nil: no cache), lists its agents, builds their
// catalogs for the groups' counters and plans the groups on them, as a run's session does.
func planOn(t *testing.T, lib string, store *querycache.Store, warnings io.Writer, pmc ...string) ([]contract.Agent, *counters.Plan) {
	t.Helper()
	list, plan, err := tryPlan(lib, store, warnings, true, pmc...)
	if err != nil {
		t.Fatal(err)
	}
	return list, plan
}

// tryPlan is planOn returning the error; scoped false builds the whole catalogs (as avail does).
func tryPlan(lib string, store *querycache.Store, warnings io.Writer, scoped bool, pmc ...string) ([]contract.Agent, *counters.Plan, error) {
	groups, err := counters.ParseGroups(pmc)
	if err != nil {
		return nil, nil, err
	}
	b, err := New(lib, store, warnings)
	if err != nil {
		return nil, nil, err
	}
	ctx := context.Background()
	var ahead *counters.Scope // what a session announces
	if scoped {
		ahead = counters.CommonScope(groups)
	}
	list, err := b.Agents(ctx, ahead)
	if err != nil {
		return nil, nil, err
	}
	var targets []counters.Target
	for _, a := range list {
		var scope *counters.Scope
		if scoped {
			scope = counters.ScopeOf(groups, a.Index)
		}
		cat, err := b.Catalog(ctx, a, scope)
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, counters.Target{Index: a.Index, Name: a.Name, Catalog: cat, Consts: counters.ConstsFromProps(a.Props)})
	}
	plan, err := counters.NewPlan(groups, targets)
	return list, plan, err
}

// fakeCUDALib makes a library directory whose CUDA query helper is a shell script that writes each
// command line it gets to the returned log and runs this test binary as the helper (fakeHelper),
// answering from the H200 recordings in testdata/cuda (agents repeated `agents` times, all of chip
// GH100). Every metric set fits one pass.
func fakeCUDALib(t *testing.T, agents int) (libDir, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "calls.log")
	var one struct {
		Agents []map[string]any `json:"agents"`
	}
	golden.ReadJSON(t, "../../../testdata/cuda/h200-agents.json", &one)
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
	if err := os.WriteFile(filepath.Join(dir, "agents.json"), reply, 0o644); err != nil {
		t.Fatal(err)
	}
	metrics, err := os.ReadFile("../../../testdata/cuda/h200-metrics.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics.json"), metrics, 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
echo "$*" >> '` + log + `'
` + envFakeHelper + `='` + dir + `' exec '` + self + `' "$@"
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

// fakeNVIDIAProc makes a driver /proc tree listing one GPU (present) or none for the query cache to
// read, and clears the visibility variables, so that tests see the same machine wherever they run.
func fakeNVIDIAProc(t *testing.T, present bool) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "nvidia")
	if present {
		gpu := filepath.Join(root, "gpus", "0000:00:06.0")
		if err := os.MkdirAll(gpu, 0o755); err != nil {
			t.Fatal(err)
		}
		info := "Model: \t\t NVIDIA H200\nGPU UUID: \t GPU-269e8af9-a18a-0391-bb41-6134e5a1ef2d\nBus Location: \t 0000:00:06.0\n"
		if err := os.WriteFile(filepath.Join(gpu, "information"), []byte(info), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES"} {
		t.Setenv(name, "")
		if err := os.Unsetenv(name); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// The second planning of the same groups on an NVIDIA machine starts no helper at all: the agents,
// the catalog and the pass counts come from the query cache, and the plan is the same. Where the
// driver lists no GPU (CI) the agents are asked every time.
func TestQueryCache(t *testing.T) {
	groups := []string{"sm__inst_executed.sum sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum"}
	cold := []string{"agents --only sm__inst_executed.sum,sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum" +
		" --passes sm__inst_executed.sum,sm__warps_launched.sum --passes smsp__inst_executed_op_global_ld.sum"}
	for _, tc := range []struct {
		name string
		gpus bool
		warm []string // what the second planning asks
	}{
		{"nvidia machine", true, nil},
		{"no nvidia gpu listed", false, []string{"agents"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lib, log := fakeCUDALib(t, 1)
			store := querycache.At(t.TempDir()).Driver(fakeNVIDIAProc(t, tc.gpus))
			sessionCUDA := func(t *testing.T, pmc ...string) ([]contract.Agent, *counters.Plan) {
				return planOn(t, lib, store, io.Discard, pmc...)
			}
			planCUDA := func(t *testing.T, pmc ...string) { sessionCUDA(t, pmc...) }

			firstAgents, first := sessionCUDA(t, groups...)
			if got := helperCalls(t, log); !reflect.DeepEqual(got, cold) {
				t.Fatalf("first planning asked the helper\n%q\nwant\n%q", got, cold)
			}
			secondAgents, second := sessionCUDA(t, groups...)
			if got := helperCalls(t, log); !reflect.DeepEqual(got, tc.warm) {
				t.Errorf("second planning asked the helper %q, want %q", got, tc.warm)
			}
			if !reflect.DeepEqual(firstAgents, secondAgents) {
				t.Errorf("the agents from the cache differ:\n%+v\n%+v", firstAgents, secondAgents)
			}
			if !reflect.DeepEqual(first.Agents, second.Agents) {
				t.Errorf("the plan from the cache differs:\n%+v\n%+v", first.Agents, second.Agents)
			}

			// Other visible GPUs may be other agents: they are asked for again, once; the catalog
			// and pass counts of the chip stay.
			for _, v := range []string{"0", ""} {
				t.Setenv("CUDA_VISIBLE_DEVICES", v)
				planCUDA(t, groups...)
				if got := helperCalls(t, log); !reflect.DeepEqual(got, []string{"agents"}) {
					t.Errorf("CUDA_VISIBLE_DEVICES=%q: the helper was asked %q, want only the agents", v, got)
				}
				planCUDA(t, groups...)
				if got := helperCalls(t, log); !reflect.DeepEqual(got, tc.warm) {
					t.Errorf("CUDA_VISIBLE_DEVICES=%q, again: the helper was asked %q, want %q", v, got, tc.warm)
				}
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
			if got := helperCalls(t, log); !reflect.DeepEqual(got, cold) {
				t.Errorf("after the helper changed the helper was asked %q, want both questions again", got)
			}
		})
	}
}

// Agents of one chip share one catalog: the metric list is read once, however many GPUs there are.
func TestOneCatalogPerChip(t *testing.T) {
	lib, log := fakeCUDALib(t, 4)
	planOn(t, lib, nil, io.Discard, "sm__inst_executed.sum")
	got := helperCalls(t, log)
	want := []string{"agents --only sm__inst_executed.sum --passes sm__inst_executed.sum"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("4 agents of one chip asked the helper\n%q\nwant\n%q", got, want)
	}
	planOn(t, lib, nil, io.Discard, "sm__inst_executed.sum")
	if got := helperCalls(t, log); !reflect.DeepEqual(got, want) {
		t.Errorf("with the cache off the second planning asked %q, want %q again", got, want)
	}
}

// A cache that cannot be written warns and the run goes on with the helper's answers.
func TestUnwritableCache(t *testing.T) {
	lib, log := fakeCUDALib(t, 1)
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The agent list cannot be filed either.
	store := querycache.At(filepath.Join(blocker, "cache")).Driver(fakeNVIDIAProc(t, true)) // a directory under a file
	var warned bytes.Buffer
	_, plan := planOn(t, lib, store, &warned, "sm__inst_executed.sum")
	if len(plan.Agents) != 1 || len(plan.Agents[0].Passes) != 1 {
		t.Fatalf("plan %+v", plan)
	}
	// One warning for each answer that could not be filed: the agents, the metric looked up, the pass count
	// (all three from one helper call).
	if n := strings.Count(warned.String(), "gorocprof: warning: query cache"); n != 3 {
		t.Errorf("%d warnings about the cache, want 3: %q", n, warned.String())
	}
	if got := helperCalls(t, log); len(got) != 1 {
		t.Errorf("helper asked %q, want the agents with the metric looked up", got)
	}
}

// The tool keeps the devices' counter availability inside the query cache, and nowhere without one.
func TestToolKeepsAvailabilityInTheQueryCache(t *testing.T) {
	lib, _ := fakeCUDALib(t, 1)
	dir := t.TempDir()
	for _, c := range []struct {
		store *querycache.Store
		want  []string
	}{
		{querycache.At(dir), []string{contract.EnvCUDAInjection + "=" + filepath.Join(lib, toolLibrary), contract.EnvCUDAAvailabilityDir + "=" + filepath.Join(dir, "availability")}},
		{nil, []string{contract.EnvCUDAInjection + "=" + filepath.Join(lib, toolLibrary)}},
	} {
		b, err := New(lib, c.store, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		_, env, err := b.Tool()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(env, c.want) {
			t.Errorf("store %q: Tool env = %q, want %q", c.store.Dir(), env, c.want)
		}
	}
}

// With markers traced, NVTX is pointed at the tool library; without, nothing is set.
func TestTraceVarsPointNVTXAtTheTool(t *testing.T) {
	b := &Backend{tool: "/lib/gorocprof/libgorocprof_tool_cuda.so"}
	if got := b.TraceVars([]string{tracing.DomainCUDARuntime, tracing.DomainMarker}); len(got) != 1 ||
		got[0] != "NVTX_INJECTION64_PATH=/lib/gorocprof/libgorocprof_tool_cuda.so" {
		t.Errorf("TraceVars with markers = %q", got)
	}
	if got := b.TraceVars([]string{tracing.DomainCUDARuntime, tracing.DomainMemoryCopy}); got != nil {
		t.Errorf("TraceVars without markers = %q, want none", got)
	}
}
