package counters

import (
	"math"
	"strings"
	"testing"
)

const extraHead = "rocprofiler-sdk:\n  counters-schema-version: 1\n  counters:\n"

// extraCounter is one counter entry of an extra definitions file, indented as in extraHead.
func extraCounter(name, archs, expr string) string {
	return "  - name: " + name + "\n    description: test\n    properties: []\n    definitions:\n" +
		"    - architectures: [" + archs + "]\n      expression: " + expr + "\n"
}

// The file's own problems: each named by file and line, before any catalog is asked.
func TestParseExtraRefusesWithFileAndLine(t *testing.T) {
	for _, tt := range []struct {
		name, text, want string
	}{
		{"not yaml", "rocprofiler-sdk: [\n", "x.yaml:1: did not find expected node content"},
		{"empty", "", "x.yaml: empty file (expected rocprofiler-sdk: {counters-schema-version: 1, counters: [...]})"},
		{"other top key", "counters: []\n", `x.yaml:1: the document: unknown key "counters" (expected rocprofiler-sdk)`},
		{"schema version", "rocprofiler-sdk:\n  counters-schema-version: 2\n  counters: []\n",
			`x.yaml:2: counters-schema-version "2", this reader knows version 1`},
		{"no counters", "rocprofiler-sdk:\n  counters-schema-version: 1\n", "x.yaml:2: no counters list"},
		{"counters not a list", extraHead[:len(extraHead)-1] + " 3\n", `x.yaml:3: counters is "3", expected a list`},
		{"unknown counter key", extraHead + "  - name: A_B\n    colour: red\n",
			`x.yaml:5: counter 1: unknown key "colour" (expected name, description, properties, definitions)`},
		{"no name", extraHead + "  - description: x\n    definitions: []\n", "x.yaml:4: counter 1 has no name"},
		{"lower case name", extraHead + extraCounter("waves", "gfx90a", "SQ_WAVES"),
			`x.yaml:4: counter name "waves": a counter name is letters, digits and '_', with an upper case letter (lower case names are agent constants)`},
		{"no definitions", extraHead + "  - name: MY_C\n    definitions: []\n", "x.yaml:5: counter MY_C has no definitions"},
		{"hardware definition", extraHead + "  - name: MY_C\n    definitions:\n    - architectures: [gfx90a]\n      block: SQ\n      event: 4\n",
			"x.yaml:7: counter MY_C: a block and event define a hardware counter; extra counters are derived: give an expression over the agent's counters"},
		{"no architectures", extraHead + "  - name: MY_C\n    definitions:\n    - expression: SQ_WAVES\n",
			"x.yaml:6: counter MY_C: a definition without architectures"},
		{"no expression", extraHead + "  - name: MY_C\n    definitions:\n    - architectures: [gfx90a]\n",
			"x.yaml:6: counter MY_C: a definition without an expression"},
		{"bad expression", extraHead + extraCounter("MY_C", "gfx90a", "SQ_WAVES +* 2"),
			`x.yaml:9: counter MY_C: expression "SQ_WAVES +* 2": `},
		{"defined twice", extraHead + extraCounter("MY_C", "gfx90a", "SQ_WAVES") + extraCounter("MY_C", "gfx942", "SQ_WAVES"),
			"x.yaml:10: counter MY_C is defined twice (first at line 4)"},
		{"key twice", extraHead + "  - name: MY_C\n    name: MY_D\n", `x.yaml:5: counter 1: key "name" given twice`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseExtra("x.yaml", []byte(tt.text))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want one starting %q", err, tt.want)
			}
		})
	}
}

// extraCatalog is a small AMD-style catalog: two SQ events, a GRBM one, a derived counter.
func extraCatalog(t *testing.T) *Catalog {
	return synthetic(t, map[string]int{"SQ": 8, "GRBM": 2},
		map[string]string{"SQ_WAVES": "SQ:4", "SQ_INSTS_VALU": "SQ:26", "GRBM_COUNT": "GRBM:0", "VALU_PER_WAVE": "=SQ_INSTS_VALU/SQ_WAVES"})
}

// What merging into a catalog refuses: the file and line of the counter, and why.
func TestWithExtraRefuses(t *testing.T) {
	for _, tt := range []struct {
		name, counters, want string
	}{
		{"unknown counter", extraCounter("MY_C", "gfxtest", "SQ_WAVES+NO_SUCH"),
			`x.yaml:9: counter MY_C on gfxtest: expression "SQ_WAVES+NO_SUCH" uses NO_SUCH (position 10), which this agent does not offer`},
		{"hardware counter", extraCounter("SQ_WAVES", "gfxtest", "GRBM_COUNT"),
			"x.yaml:4: counter SQ_WAVES is a hardware counter on gfxtest: an extra counter may not redefine it (give it another name)"},
		{"derived counter", extraCounter("VALU_PER_WAVE", "gfxtest", "GRBM_COUNT"),
			"x.yaml:4: counter VALU_PER_WAVE is a derived counter of its own definitions on gfxtest: an extra counter may not redefine it"},
		{"cycle", extraCounter("MY_A", "gfxtest", "MY_B+1") + extraCounter("MY_B", "gfxtest", "MY_A*2"),
			"x.yaml:9: counter MY_A on gfxtest: expression refers to itself: MY_A -> MY_B -> MY_A"},
		{"over the block limit", extraCounter("MY_C", "gfxtest", "GRBM_COUNT+GRBM_A+GRBM_B"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cat := extraCatalog(t)
			if tt.want == "" {
				cat = synthetic(t, map[string]int{"GRBM": 2}, map[string]string{"GRBM_COUNT": "GRBM:0", "GRBM_A": "GRBM:1", "GRBM_B": "GRBM:2"})
				tt.want = "x.yaml:9: counter MY_C on gfxtest: needs 3 GRBM events, one pass counts at most 2"
			}
			e, err := ParseExtra("x.yaml", []byte(extraHead+tt.counters))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cat.WithExtra(e); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want one starting %q", err, tt.want)
			}
			if cat.Has("MY_C") || cat.Has("MY_A") {
				t.Error("the refused merge changed the shared catalog")
			}
		})
	}
}

// An extra counter joins the catalogs its definitions name (the exact architecture, else the
// family), is derived, lists with its description and expression, needs the base events of its
// expression, and evaluates as its expression does; other catalogs and the original are unchanged.
func TestWithExtraMergesAndEvaluates(t *testing.T) {
	text := extraHead + extraCounter("MY_RATIO", "gfxother, gfxtest", "100*reduce(SQ_INSTS_VALU,sum)/reduce(SQ_WAVES,sum)") +
		extraCounter("MY_TWICE", "gfxtest", "MY_RATIO*2+VALU_PER_WAVE") + extraCounter("NOT_HERE", "gfx942", "SQ_WAVES")
	e, err := ParseExtra("x.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	base := extraCatalog(t)
	cat, err := base.WithExtra(e)
	if err != nil {
		t.Fatal(err)
	}
	if base.Has("MY_RATIO") {
		t.Error("the shared catalog gained the extra counter")
	}
	if !cat.Has("MY_RATIO") || !cat.Has("MY_TWICE") || cat.Has("NOT_HERE") {
		t.Fatalf("merged catalog has %v", cat.Names())
	}
	info, _ := cat.Describe("MY_RATIO", nil)
	if !info.Derived || info.Description != "test" || info.Expression != "100*reduce(SQ_INSTS_VALU,sum)/reduce(SQ_WAVES,sum)" {
		t.Errorf("MY_RATIO described as %+v", info)
	}
	bases, err := cat.BaseEvents("MY_TWICE")
	if err != nil || len(bases) != 2 || bases[0].Name != "SQ_INSTS_VALU" || bases[1].Name != "SQ_WAVES" {
		t.Errorf("MY_TWICE needs %v (%v), want SQ_INSTS_VALU and SQ_WAVES", bases, err)
	}
	values := map[string][]float64{"SQ_WAVES": {4, 4}, "SQ_INSTS_VALU": {30, 10}}
	got, err := cat.Evaluate("MY_TWICE", values, nil)
	// MY_RATIO reduces to one value; VALU_PER_WAVE keeps the two instances.
	want := []float64{100*40.0/8*2 + 30.0/4, 100*40.0/8*2 + 10.0/4}
	if err != nil || len(got) != 2 || math.Abs(got[0]-want[0]) > 1e-9 || math.Abs(got[1]-want[1]) > 1e-9 {
		t.Errorf("MY_TWICE = %v (%v), want %v", got, err, want)
	}

	fam := synthetic(t, map[string]int{"SQ": 8}, map[string]string{"SQ_WAVES": "SQ:4"})
	fam.Arch, fam.Source = "gfx90c", "gfx9"
	e2, err := ParseExtra("y.yaml", []byte(extraHead+extraCounter("MY_W", "gfx9", "SQ_WAVES*2")))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fam.WithExtra(e2); err != nil || !got.Has("MY_W") {
		t.Errorf("a family definition (gfx9) on gfx90c: %v", err)
	}
}
