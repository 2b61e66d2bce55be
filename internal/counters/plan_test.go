package counters

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

func amdTarget(t *testing.T, index int, arch string, consts map[string]float64) Target {
	t.Helper()
	c, err := LoadAMD(arch)
	if err != nil {
		t.Fatal(err)
	}
	// Numbered as the simulated agents are (logical node id index+1), so that a message giving the
	// index where it should give the number shows.
	return Target{Index: index, Number: int64(index) + 1, Name: arch, Catalog: c, Consts: consts}
}

func mustGroups(t *testing.T, occ ...string) []Group {
	t.Helper()
	g, err := ParseGroups(occ)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// render prints a plan the way a person checks it: per agent, its passes and notes.
func render(p *Plan) string {
	var b strings.Builder
	for _, a := range p.Agents {
		fmt.Fprintf(&b, "agent %d %s: %d passes\n", a.Index, a.Name, len(a.Passes))
		for i, ps := range a.Passes {
			var base []string
			for _, c := range ps.Base {
				base = append(base, fmt.Sprintf("%s(%s:%d)", c.Name, c.Block, c.Event))
			}
			fmt.Fprintf(&b, "  pass %d group %d: %s\n    base: %s\n", i, ps.Group, strings.Join(ps.Requested, " "), strings.Join(base, " "))
		}
		for _, n := range a.Notes {
			fmt.Fprintf(&b, "  note %s group %d %v passes=%d: %s\n", n.Kind, n.Group, n.Counters, n.Passes, n.Message)
		}
	}
	return b.String()
}

func TestPlanTwoArchitectures(t *testing.T) {
	groups := mustGroups(t,
		"SQ_WAVES SQ_INSTS_VALU",
		"SQ_WAVES SQ_INSTS_VALU SQ_INSTS_SALU SQ_INSTS_SMEM SQ_INSTS_VMEM SQ_INSTS_LDS SQ_INSTS_FLAT SQ_INSTS_BRANCH SQ_INSTS_MFMA SQ_ITEMS",
		"SQ_WAVES CpUtil",
		"ALUStalledByLDS,AggSysCycles",
		"GPUBusy GRBM_COUNT GRBM_GUI_ACTIVE CU_NUM",
		"SQ_INSTS_SALU:device=1",
		"FETCH_SIZE TCC_HIT TCC_MISS TCC_EA_RDREQ TCC_EA_RDREQ_32B",
	)
	agents := []Target{
		amdTarget(t, 1, "gfx942", nil),
		amdTarget(t, 0, "gfx90a", nil),
	}
	p, err := NewPlan(groups, agents)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "plan_two_archs.golden", []byte(render(p)))

	again, err := NewPlan(groups, []Target{agents[1], agents[0]})
	if err != nil || render(again) != render(p) {
		t.Errorf("planning again with agents reordered gave a different plan (%v)", err)
	}
}

func TestPlanUnknownCounters(t *testing.T) {
	agents := []Target{amdTarget(t, 0, "gfx90a", nil), amdTarget(t, 1, "gfx942", nil)}
	tests := []struct {
		groups []string
		want   string
	}{
		{[]string{"SQ_WAVE"}, "unknown counter SQ_WAVE (did you mean SQ_WAVES?)"},
		{[]string{"SQ_INSTS_VALX"}, "unknown counter SQ_INSTS_VALX (did you mean SQ_INSTS_VALU, SQ_INSTS_SALU, SQ_INSTS_VMEM?)"},
		{[]string{"sq_insts_valu"}, "unknown counter sq_insts_valu (did you mean SQ_INSTS_VALU"},
		{[]string{"SQ_WAVES", "QQQQQQQQQQQQQQQQQQQQQQQ"}, "unknown counter QQQQQQQQQQQQQQQQQQQQQQQ"},
		{[]string{"SQ_WAVES:device=4"}, "--pmc group 1: SQ_WAVES:device=4: there is no GPU 4 (agents: Agent 1 (GPU 0, gfx90a), Agent 2 (GPU 1, gfx942))"},
		{[]string{"NOPE1 NOPE2"}, "unknown counter NOPE1\nunknown counter NOPE2"},
	}
	for _, tt := range tests {
		_, err := NewPlan(mustGroups(t, tt.groups...), agents)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewPlan(%q) error = %v, want containing %q", tt.groups, err, tt.want)
		}
	}
	if _, err := NewPlan(mustGroups(t, "QQQQQQQQQQQQQQQQQQQQQQQ"), agents); err != nil && strings.Contains(err.Error(), "did you mean") {
		t.Errorf("far-off name got suggestions: %v", err)
	}
	if _, err := NewPlan(mustGroups(t, "SQ_WAVES"), nil); err == nil || !strings.Contains(err.Error(), "no agent") {
		t.Errorf("planning for no agents: %v", err)
	}
	if _, err := NewPlan(nil, []Target{agents[0], agents[0]}); err == nil || !strings.Contains(err.Error(), "two agents with index 0") {
		t.Errorf("planning for duplicate agents: %v", err)
	}
}

func TestPlanNoGroups(t *testing.T) {
	p, err := NewPlan(nil, []Target{amdTarget(t, 0, "gfx90a", nil)})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Agents
	want := []contract.PlanAgent{{Index: 0, Number: 1, Name: "gfx90a", Passes: []contract.PlanPass{}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Agents = %+v, want %+v", got, want)
	}
}

// The split must find the fewest passes even where first-fit decreasing does not: bases of sizes
// 4, 3, 3, 2, 2, 2 in a block of 8 fit two passes (4+2+2, 3+3+2), first fit takes three.
func TestPlanSplitFewest(t *testing.T) {
	defs := map[string]string{}
	sizes := map[string]int{"D4": 4, "D3A": 3, "D3B": 3, "D2A": 2, "D2B": 2, "D2C": 2}
	ev := 0
	for name, n := range sizes {
		var terms []string
		for i := 0; i < n; i++ {
			base := fmt.Sprintf("%s_E%d", name, i)
			defs[base] = fmt.Sprintf("SQ:%d", ev)
			ev++
			terms = append(terms, base)
		}
		defs[name] = "=" + strings.Join(terms, "+")
	}
	c := synthetic(t, map[string]int{"SQ": 8}, defs)
	var names []string
	for n := range sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	items := make([]item, len(names))
	for i, n := range names {
		b, _ := c.BaseEvents(n)
		items[i] = item{n, b}
	}
	sort.SliceStable(items, func(i, j int) bool { return len(items[i].bases) > len(items[j].bases) })
	if ff := firstFitAMD(c, items); len(ff) != 3 {
		t.Fatalf("first fit took %d passes; the case no longer shows the difference", len(ff))
	}
	p, err := NewPlan(mustGroups(t, strings.Join(names, " ")), []Target{{Index: 0, Name: "gfxtest", Catalog: c}})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Agents[0]
	if len(a.Passes) != 2 || len(a.Notes) != 1 || a.Notes[0].Kind != contract.NoteSplit || a.Notes[0].Passes != 2 {
		t.Errorf("plan:\n%s", render(p))
	}
}

// Counters that share base events share registers: two derived counters over the same two GRBM
// events fit one pass of a block that holds two.
func TestPlanSharedBases(t *testing.T) {
	c := synthetic(t, map[string]int{"GRBM": 2}, map[string]string{
		"G0": "GRBM:0", "G2": "GRBM:2", "BUSY": "=100*reduce(G2,max)/reduce(G0,max)", "IDLE": "=reduce(G0,max)-reduce(G2,max)",
	})
	p, err := NewPlan(mustGroups(t, "BUSY IDLE G0 G2"), []Target{{Index: 3, Name: "gfxtest", Catalog: c}})
	if err != nil {
		t.Fatal(err)
	}
	want := []contract.PlanPass{{Group: 0, Requested: []string{"BUSY", "G0", "G2", "IDLE"},
		Base: []contract.PlanCounter{{Name: "G0", Block: "GRBM", Event: 0}, {Name: "G2", Block: "GRBM", Event: 2}}}}
	if !reflect.DeepEqual(p.Agents[0].Passes, want) {
		t.Errorf("passes = %+v, want %+v", p.Agents[0].Passes, want)
	}
}

// fakeOracle models CUPTI: every metric costs some hardware slots, four slots make one pass.
type fakeOracle struct {
	cost  map[string]int
	calls int
}

func (f *fakeOracle) passes(metrics []string) (int, error) {
	f.calls++
	total := 0
	for _, m := range metrics {
		c, ok := f.cost[m]
		if !ok {
			return 0, fmt.Errorf("unknown metric %s", m)
		}
		total += c
	}
	return (total + 3) / 4, nil
}

func TestPlanNVIDIA(t *testing.T) {
	o := &fakeOracle{cost: map[string]int{"a.sum": 2, "b.sum": 2, "c.sum": 1, "d.sum": 3, "huge.sum": 5}}
	metrics := []contract.Metric{{Name: "a.sum", Description: "A", Unit: "inst"}, {Name: "b.sum"}, {Name: "c.sum"}, {Name: "d.sum"}, {Name: "huge.sum"}}
	c := NewNVIDIA("GH100", metrics, o.passes)
	target := Target{Index: 0, Name: "GH100", Catalog: c}
	p, err := NewPlan(mustGroups(t, "a.sum b.sum c.sum d.sum"), []Target{target})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, ps := range p.Agents[0].Passes {
		got = append(got, ps.Requested)
		for _, b := range ps.Base {
			if b.Block != "" || b.Event != 0 {
				t.Errorf("NVIDIA base %+v has a block", b)
			}
		}
	}
	if want := [][]string{{"a.sum", "b.sum"}, {"c.sum", "d.sum"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("passes = %v, want %v", got, want)
	}
	calls := o.calls
	if _, err := NewPlan(mustGroups(t, "a.sum b.sum c.sum d.sum"), []Target{target}); err != nil || o.calls != calls {
		t.Errorf("planning the same group again asked the oracle %d more times (%v)", o.calls-calls, err)
	}
	if _, err := NewPlan(mustGroups(t, "huge.sum"), []Target{target}); err == nil || !strings.Contains(err.Error(), "metric huge.sum needs 2 passes by itself") {
		t.Errorf("a metric needing two passes: %v", err)
	}
	info, _ := c.Describe("a.sum", nil)
	if want := (CounterInfo{Name: "a.sum", Description: "A (unit: inst)"}); !reflect.DeepEqual(info, want) {
		t.Errorf("Describe(a.sum) = %+v, want %+v", info, want)
	}
	failing := NewNVIDIA("GH100", metrics, func([]string) (int, error) { return 0, fmt.Errorf("helper crashed") })
	_, err = NewPlan(mustGroups(t, "a.sum"), []Target{{Index: 0, Name: "GH100", Catalog: failing}})
	if err == nil || !strings.Contains(err.Error(), "helper crashed") || !strings.Contains(err.Error(), "GH100") {
		t.Errorf("failing oracle: %v", err)
	}
}

// Each oracle question is a helper process on the GPU machine: a group that fits one pass as a whole
// costs one question, not one per metric plus one per growing pass.
func TestPlanNVIDIAAsksOncePerFittingGroup(t *testing.T) {
	o := &fakeOracle{cost: map[string]int{"a.sum": 1, "b.sum": 1, "c.sum": 1, "d.sum": 3}}
	metrics := []contract.Metric{{Name: "a.sum"}, {Name: "b.sum"}, {Name: "c.sum"}, {Name: "d.sum"}}
	target := Target{Index: 0, Name: "GH100", Catalog: NewNVIDIA("GH100", metrics, o.passes)}
	p, err := NewPlan(mustGroups(t, "a.sum b.sum", "a.sum c.sum", "b.sum c.sum"), []Target{target})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Agents[0].Passes) != 3 || o.calls != 3 {
		t.Errorf("%d passes after %d oracle questions, want 3 passes after 3 questions", len(p.Agents[0].Passes), o.calls)
	}
	// A group that does not fit whole is still split, and its metrics are checked one by one.
	p, err = NewPlan(mustGroups(t, "a.sum d.sum c.sum"), []Target{target})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, ps := range p.Agents[0].Passes {
		got = append(got, ps.Requested)
	}
	if want := [][]string{{"a.sum", "c.sum"}, {"d.sum"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("split passes = %v, want %v", got, want)
	}
}

func TestPlanAdapter(t *testing.T) {
	consts := map[string]float64{"simd_count": 416, "simd_per_cu": 4, "num_xcc": 1, "array_count": 8, "simd_arrays_per_engine": 1}
	p, err := NewPlan(mustGroups(t, "SQ_WAVES GPUBusy", "CU_NUM SQ_WAVES"), []Target{amdTarget(t, 2, "gfx90a", consts)})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Requested(2, 0); !reflect.DeepEqual(got, []string{"GPUBusy", "SQ_WAVES"}) {
		t.Errorf("Requested(2, 0) = %v", got)
	}
	if got := p.Requested(2, 1); !reflect.DeepEqual(got, []string{"CU_NUM", "SQ_WAVES"}) {
		t.Errorf("Requested(2, 1) = %v", got)
	}
	if p.Requested(2, 2) != nil || p.Requested(0, 0) != nil {
		t.Error("Requested outside the plan is not nil")
	}
	info := p.Describe(2, "SQ_WAVES")
	if info.Block != "SQ" || !reflect.DeepEqual(info.Dimensions, []Dimension{{DimXCC, 1}, {DimShaderEngine, 8}}) {
		t.Errorf("Describe(2, SQ_WAVES) = %+v", info)
	}
	if info := p.Describe(7, "SQ_WAVES"); !reflect.DeepEqual(info, CounterInfo{Name: "SQ_WAVES"}) {
		t.Errorf("Describe on an unknown agent = %+v", info)
	}
	base := map[string][]float64{"GRBM_GUI_ACTIVE": {50}, "GRBM_COUNT": {200}, "SQ_WAVES": {1, 2, 3, 4, 5, 6, 7, 8}}
	if v, err := p.Evaluate(2, "GPUBusy", base); err != nil || !reflect.DeepEqual(v, []float64{25}) {
		t.Errorf("Evaluate(GPUBusy) = %v, %v", v, err)
	}
	if v, err := p.Evaluate(2, "CU_NUM", base); err != nil || !reflect.DeepEqual(v, []float64{104}) {
		t.Errorf("Evaluate(CU_NUM) = %v, %v", v, err)
	}
	if v, err := p.Evaluate(2, "SQ_WAVES", base); err != nil || len(v) != 8 {
		t.Errorf("Evaluate(SQ_WAVES) = %v, %v", v, err)
	}
	if _, err := p.Evaluate(5, "SQ_WAVES", base); err == nil {
		t.Error("Evaluate on an agent outside the plan succeeded")
	}
}

// Random groups over random catalogs: every pass fits its agent, a pass's base events are exactly
// what its counters need, the counters an agent offers are planned exactly once per group, and the
// same request gives the same plan.
func TestPlanProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 300; round++ {
		cats := []*Catalog{randomCatalog(t, rng), randomCatalog(t, rng)}
		var all []string
		for _, c := range cats {
			all = append(all, c.Names()...)
		}
		var occ []string
		for g := 0; g < 1+rng.Intn(4); g++ {
			var names []string
			for k := 0; k < 1+rng.Intn(12); k++ {
				names = append(names, all[rng.Intn(len(all))])
			}
			occ = append(occ, strings.Join(names, " "))
		}
		groups := mustGroups(t, occ...)
		targets := []Target{{Index: 0, Name: "a", Catalog: cats[0]}, {Index: 1, Name: "b", Catalog: cats[1]}}
		p, err := NewPlan(groups, targets)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for ai, a := range p.Agents {
			c := cats[ai]
			planned := map[int][]string{}
			for _, ps := range a.Passes {
				var bases []Base
				for _, b := range ps.Base {
					bases = append(bases, Base{b.Name, b.Block, b.Event})
				}
				if ok, _ := c.Fits(bases); !ok {
					t.Fatalf("round %d agent %d: pass %v does not fit", round, ai, ps)
				}
				need := map[Base]bool{}
				for _, r := range ps.Requested {
					bs, _ := c.BaseEvents(r)
					for _, b := range bs {
						need[b] = true
					}
				}
				if len(need) != len(bases) {
					t.Fatalf("round %d: pass %v counts %d bases, its counters need %d", round, ps, len(bases), len(need))
				}
				planned[ps.Group] = append(planned[ps.Group], ps.Requested...)
			}
			for gi, g := range groups {
				var want []string
				for _, n := range g.Names() {
					if c.Has(n) && (len(want) == 0 || want[len(want)-1] != n) {
						want = append(want, n)
					}
				}
				got := planned[gi]
				sort.Strings(got)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("round %d agent %d group %d: planned %v, want %v", round, ai, gi, got, want)
				}
			}
		}
		again, err := NewPlan(groups, targets)
		if err != nil || !reflect.DeepEqual(again.Agents, p.Agents) {
			t.Fatalf("round %d: planning twice differs", round)
		}
	}
}

// randomCatalog has base counters in three small blocks and derived counters over one to four of
// them, some nested.
func randomCatalog(t *testing.T, rng *rand.Rand) *Catalog {
	limits := map[string]int{"SQ": 1 + rng.Intn(8), "TCC": 1 + rng.Intn(4), "GRBM": 1 + rng.Intn(2)}
	blocks := []string{"SQ", "TCC", "GRBM"}
	defs := map[string]string{}
	var bases []string
	for i := 0; i < 6+rng.Intn(10); i++ {
		name := fmt.Sprintf("B%d", rng.Intn(30))
		defs[name] = fmt.Sprintf("%s:%d", blocks[rng.Intn(3)], i)
		bases = append(bases, name)
	}
	for i := 0; i < rng.Intn(8); i++ {
		var terms []string
		for k := 0; k < 1+rng.Intn(4); k++ {
			terms = append(terms, fmt.Sprintf("reduce(%s,sum)", bases[rng.Intn(len(bases))]))
		}
		if i > 0 && rng.Intn(3) == 0 {
			terms = append(terms, fmt.Sprintf("D%d", i-1))
		}
		defs[fmt.Sprintf("D%d", i)] = "=" + strings.Join(terms, "+")
	}
	return synthetic(t, limits, defs)
}

func TestConstsFromProps(t *testing.T) {
	got := ConstsFromProps(map[string]int64{"simd_count": 416, "Num_XCC": 1})
	if want := map[string]float64{"simd_count": 416, "num_xcc": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("ConstsFromProps = %v, want %v", got, want)
	}
}

// The NVIDIA catalog from the helper's list, in whatever order it comes and with a repeated name: every
// name once, sorted, each with its description and unit.
func TestNewNVIDIACatalogOrderAndDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name    string
		metrics []contract.Metric
	}{
		{"sorted, as the query cache files it", []contract.Metric{
			{Name: "a__x.sum", Description: "first", Unit: "inst"}, {Name: "b__y.avg", Description: "second"}, {Name: "c__z.max", Unit: "byte"}}},
		{"helper order with a repeat", []contract.Metric{
			{Name: "c__z.max", Unit: "byte"}, {Name: "a__x.sum", Description: "first", Unit: "inst"}, {Name: "b__y.avg", Description: "second"},
			{Name: "a__x.sum", Description: "again", Unit: "inst"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewNVIDIA("GH100", tc.metrics, nil)
			if got, want := c.Names(), []string{"a__x.sum", "b__y.avg", "c__z.max"}; !reflect.DeepEqual(got, want) {
				t.Fatalf("names %q, want %q", got, want)
			}
			want := map[string]string{"a__x.sum": "first (unit: inst)", "b__y.avg": "second", "c__z.max": "(unit: byte)"}
			for _, info := range c.List() {
				if info.Description != want[info.Name] || info.Derived {
					t.Errorf("%s: description %q derived %v, want %q", info.Name, info.Description, info.Derived, want[info.Name])
				}
			}
			if !c.Has("b__y.avg") || c.Has("d__w.sum") {
				t.Error("Has disagrees with the list")
			}
		})
	}
}
