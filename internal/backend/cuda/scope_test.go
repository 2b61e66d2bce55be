package cuda

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda/querycache"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// A run's catalog is its counters looked up, with its groups' pass counts, in the helper call that lists
// the agents: the plan and the counters' descriptions are those the whole catalog gives.
func TestScopedCatalogPlansAsTheWholeOne(t *testing.T) {
	groups := []string{"sm__inst_executed.sum sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum sm__inst_executed.sum"}
	lib, log := fakeCUDALib(t, 2)
	_, whole, err := tryPlan(lib, nil, io.Discard, false, groups...)
	if err != nil {
		t.Fatal(err)
	}
	helperCalls(t, log)
	_, scoped := planOn(t, lib, nil, io.Discard, groups...)
	want := []string{"agents --only sm__inst_executed.sum,sm__warps_launched.sum,smsp__inst_executed_op_global_ld.sum" +
		" --passes sm__inst_executed.sum,sm__warps_launched.sum --passes sm__inst_executed.sum,smsp__inst_executed_op_global_ld.sum"}
	if got := helperCalls(t, log); !reflect.DeepEqual(got, want) {
		t.Errorf("a scoped planning of 2 agents of one chip asked\n%q\nwant\n%q", got, want)
	}
	if !reflect.DeepEqual(scoped.Agents, whole.Agents) {
		t.Errorf("scoped plan\n%+v\nwhole plan\n%+v", scoped.Agents, whole.Agents)
	}
	for _, a := range whole.Agents {
		for _, name := range []string{"sm__inst_executed.sum", "sm__warps_launched.sum", "smsp__inst_executed_op_global_ld.sum"} {
			if got, want := scoped.Describe(a.Index, name), whole.Describe(a.Index, name); !reflect.DeepEqual(got, want) || want.Description == "" {
				t.Errorf("agent %d %s: scoped %+v, whole %+v", a.Index, name, got, want)
			}
		}
	}
}

// The metrics a scoped run looked up are filed apart from the catalog: a later run of the same or fewer
// metrics asks nothing, but avail, which wants the whole catalog, still asks for it; once it is filed, a
// run of other metrics reads it instead of looking them up.
func TestLookedUpMetricsAreNeverTheWholeCatalog(t *testing.T) {
	lib, log := fakeCUDALib(t, 1)
	store := querycache.At(t.TempDir()).Driver(fakeNVIDIAProc(t, true))
	steps := []struct {
		scoped bool
		pmc    []string
		want   []string
	}{
		{true, []string{"sm__inst_executed.sum sm__warps_launched.sum"}, []string{"agents --only sm__inst_executed.sum,sm__warps_launched.sum --passes sm__inst_executed.sum,sm__warps_launched.sum"}},
		{true, []string{"sm__inst_executed.sum sm__warps_launched.sum"}, nil},
		{true, []string{"sm__inst_executed.sum"}, []string{"passes --agent 0 sm__inst_executed.sum"}},
		{false, []string{"sm__inst_executed.sum"}, []string{"metrics --agent 0"}},
		{true, []string{"smsp__inst_executed_op_global_ld.sum"}, []string{"passes --agent 0 smsp__inst_executed_op_global_ld.sum"}},
	}
	for i, st := range steps {
		_, plan, err := tryPlan(lib, store, io.Discard, st.scoped, st.pmc...)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if len(plan.Agents) != 1 || len(plan.Agents[0].Passes) != 1 {
			t.Errorf("step %d: plan %+v", i, plan.Agents)
		}
		if got := helperCalls(t, log); !reflect.DeepEqual(got, st.want) {
			t.Errorf("step %d (scoped %v, %q): the helper was asked %q, want %q", i, st.scoped, st.pmc, got, st.want)
		}
	}
}

// A counter the chip lacks makes the catalog whole, so that the planner suggests the nearest names; a run
// without counters asks for no metric at all.
func TestScopedCatalogOfAnUnknownCounterOrOfNone(t *testing.T) {
	lib, log := fakeCUDALib(t, 1)
	_, _, err := tryPlan(lib, nil, io.Discard, true, "sm__inst_executed.summ")
	if err == nil || !strings.Contains(err.Error(), "unknown counter sm__inst_executed.summ (did you mean sm__inst_executed.sum") {
		t.Errorf("planning an unknown counter: %v", err)
	}
	want := []string{"agents --only sm__inst_executed.summ --passes sm__inst_executed.summ", "metrics --agent 0"}
	if got := helperCalls(t, log); !reflect.DeepEqual(got, want) {
		t.Errorf("the helper was asked %q, want %q", got, want)
	}
	_, plan, err := tryPlan(lib, nil, io.Discard, true)
	if err != nil || len(plan.Agents) != 1 || len(plan.Agents[0].Passes) != 0 {
		t.Fatalf("planning no counters: %+v, %v", plan, err)
	}
	if got := helperCalls(t, log); !reflect.DeepEqual(got, []string{"agents"}) {
		t.Errorf("planning no counters asked the helper %q, want only the agents", got)
	}
}

// Scopes differ per run of a sweep: each gets its own catalog, and the agent's whole one, once built,
// serves every scope.
func TestScopesOfOneBackend(t *testing.T) {
	lib, log := fakeCUDALib(t, 1)
	b, err := New(lib, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	list, err := b.Agents(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	scope := func(pmc string) *counters.Scope {
		g, err := counters.ParseGroups([]string{pmc})
		if err != nil {
			t.Fatal(err)
		}
		return counters.ScopeOf(g, 0)
	}
	one, _ := b.Catalog(ctx, list[0], scope("sm__inst_executed.sum"))
	again, _ := b.Catalog(ctx, list[0], scope("sm__inst_executed.sum"))
	other, _ := b.Catalog(ctx, list[0], scope("sm__warps_launched.sum"))
	if one == nil || one != again || other == one || !other.Has("sm__warps_launched.sum") || other.Has("sm__inst_executed.sum") {
		t.Errorf("catalogs of scopes: %p %p %p", one, again, other)
	}
	whole, _ := b.Catalog(ctx, list[0], nil)
	if w, _ := b.Catalog(ctx, list[0], scope("sm__inst_executed.sum")); w != whole || len(whole.Names()) < 1000 {
		t.Errorf("after the whole catalog a scope got %p, want the whole %p", w, whole)
	}
	if got := len(helperCalls(t, log)); got != 4 {
		t.Errorf("%d helper calls, want 4 (agents, two lookups, the catalog)", got)
	}
}
