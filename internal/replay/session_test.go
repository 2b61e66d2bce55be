package replay

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// fakeMetrics are the fake backend's catalog in these tests.
var fakeMetrics = []string{"sm__inst_executed.sum", "sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum"}

func sessionOn(t *testing.T, f *backendtest.Fake, pmc ...string) (*Session, *counters.Plan) {
	t.Helper()
	groups, err := counters.ParseGroups(pmc)
	if err != nil {
		t.Fatal(err)
	}
	sess, err := OpenSession(context.Background(), f.Chooser(), backend.Choice{Name: f.Name(), Ahead: counters.CommonScope(groups)}, "")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sess.Plan(context.Background(), groups)
	if err != nil {
		t.Fatal(err)
	}
	return sess, plan
}

// A session asks its backend for the agents once and, for a run, each agent's catalog of the run's
// counters (its scope); the planner's pass questions go to the catalog. avail asks for the whole ones.
func TestOpenSessionAsksTheBackend(t *testing.T) {
	f := backendtest.New("fake", 2, fakeMetrics...)
	f.SlotsPerPass, f.Slots["sm__warps_launched.sum"] = 2, 2
	sess, plan := sessionOn(t, f, "sm__inst_executed.sum sm__warps_launched.sum")
	if len(sess.Agents) != 2 || sess.Backend.Name() != "fake" {
		t.Fatalf("session %+v", sess)
	}
	for _, a := range plan.Agents {
		if len(a.Passes) != 2 {
			t.Errorf("agent %d: %d passes, want the group split in 2", a.Index, len(a.Passes))
		}
	}
	calls := f.Calls()
	scope := "sm__inst_executed.sum,sm__warps_launched.sum"
	if calls[0] != "agents ahead "+scope || calls[1] != "catalog 0 "+scope || calls[2] != "catalog 1 "+scope {
		t.Errorf("the session asked %q, want the agents (told the run's counters), then each catalog of them", calls)
	}
	targets, err := sess.Catalogs(context.Background())
	if err != nil || len(targets) != 2 || len(targets[1].Catalog.Names()) != len(fakeMetrics) {
		t.Fatalf("whole catalogs %+v, %v", targets, err)
	}
	if calls := f.Calls(); !reflect.DeepEqual(calls, []string{"catalog 0", "catalog 1"}) {
		t.Errorf("the whole catalogs asked %q", calls)
	}
}

// A counter qualified with one agent's index is in that agent's scope only, and the agents are asked
// without a scope announced (the agents' scopes differ).
func TestPlanScopesEachAgent(t *testing.T) {
	f := backendtest.New("fake", 2, fakeMetrics...)
	sessionOn(t, f, "sm__inst_executed.sum smsp__inst_executed_op_global_ld.sum:device=1")
	var got []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "passes") {
			got = append(got, c)
		}
	}
	want := []string{"agents", "catalog 0 sm__inst_executed.sum", "catalog 1 sm__inst_executed.sum,smsp__inst_executed_op_global_ld.sum"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("catalogs asked %q, want %q", got, want)
	}
}

// A backend that lists no agent is named.
func TestOpenSessionNoAgents(t *testing.T) {
	f := backendtest.New("fake", 0)
	_, err := OpenSession(context.Background(), f.Chooser(), backend.Choice{Name: "fake"}, "")
	if err == nil || err.Error() != "backend fake reports no agents" {
		t.Errorf("OpenSession on no agents: %v", err)
	}
}

// GOROCPROF_QUERY_TRACE=1 shows where planning's time goes, phase by phase; unset, it prints nothing.
func TestSessionTracesPlanningPhases(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	var buf strings.Builder
	old := traceOut
	traceOut = &buf
	t.Cleanup(func() { traceOut = old })

	t.Setenv(helper.EnvTrace, "")
	sessionOn(t, f, "sm__inst_executed.sum")
	if buf.Len() != 0 {
		t.Fatalf("traced without %s=1:\n%s", helper.EnvTrace, buf.String())
	}
	t.Setenv(helper.EnvTrace, "1")
	sessionOn(t, f, "sm__inst_executed.sum")
	re := regexp.MustCompile(`^gorocprof: planning: (backend and agents|counter catalogs|passes): \d+ ms$`)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want the three phases of opening a session and planning, got:\n%s", buf.String())
	}
	for _, l := range lines {
		if !re.MatchString(l) {
			t.Errorf("unexpected trace line %q", l)
		}
	}
	if got := f.Calls(); !reflect.DeepEqual(got[:2], []string{"agents ahead sm__inst_executed.sum", "catalog 0 sm__inst_executed.sum"}) {
		t.Errorf("calls %q", got)
	}
}

// With -E's definitions the session builds whole catalogs (the backend knows neither the extra
// counters nor, from the run's names, the base counters their expressions name) and merges them in,
// so an extra counter plans from its base counters.
func TestSessionWithExtraBuildsWholeCatalogs(t *testing.T) {
	f := backendtest.New("fake", 1, fakeMetrics...)
	extra, err := counters.ParseExtra("extra.yaml", []byte("rocprofiler-sdk:\n  counters-schema-version: 1\n  counters:\n"+
		"  - name: MY_INST_TWICE\n    definitions:\n    - architectures: [FAKE1]\n      expression: 2*sm__inst_executed.sum\n"))
	if err != nil {
		t.Fatal(err)
	}
	groups, err := counters.ParseGroups([]string{"MY_INST_TWICE"})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := OpenSession(context.Background(), f.Chooser(), backend.Choice{Name: f.Name()}, "")
	if err != nil {
		t.Fatal(err)
	}
	f.Calls()
	plan, err := sess.WithExtra(extra).Plan(context.Background(), groups)
	if err != nil {
		t.Fatalf("planning an extra counter: %v", err)
	}
	pass := plan.Agents[0].Passes[0]
	if len(pass.Base) != 1 || pass.Base[0].Name != "sm__inst_executed.sum" {
		got := pass.Base
		t.Errorf("the extra counter's pass collects %+v, want its expression's base counter", got)
	}
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "catalog") && c != "catalog 0" {
			t.Errorf("asked %q: with extra counters the catalog must be the whole one", c)
		}
	}
}
