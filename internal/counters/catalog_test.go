package counters

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestLoadAMDCounters(t *testing.T) {
	tests := []struct {
		arch, name, block string
		event             int
		expression        string
	}{
		{"gfx90a", "SQ_WAVES", "SQ", 4, ""},
		{"gfx90a", "SQ_INSTS_VALU", "SQ", 26, ""},
		{"gfx90a", "GRBM_GUI_ACTIVE", "GRBM", 2, ""},
		{"gfx942", "TCC_HIT", "TCC", 17, ""},
		{"gfx90a", "CU_NUM", "", 0, "simd_count/simd_per_cu"},
		{"gfx90a", "TCC_BUSY_avr", "", 0, "reduce(TCC_BUSY,avr)"},
		{"gfx1030", "GL2C_EA_RDREQ_128B", "GL2C", 102, ""},
		{"gfx1200", "GL2C_EA_RDREQ_128B", "GL2C", 148, ""},
	}
	for _, tt := range tests {
		c, err := LoadAMD(tt.arch)
		if err != nil {
			t.Fatal(err)
		}
		info, ok := c.Describe(tt.name, nil)
		if !ok {
			t.Errorf("%s: no %s", tt.arch, tt.name)
			continue
		}
		if info.Block != tt.block || info.Expression != tt.expression || info.Derived != (tt.expression != "") {
			t.Errorf("%s %s = %+v, want block %q expression %q", tt.arch, tt.name, info, tt.block, tt.expression)
		}
		if tt.block != "" {
			b, _ := c.BaseEvents(tt.name)
			if want := []Base{{tt.name, tt.block, tt.event}}; !reflect.DeepEqual(b, want) {
				t.Errorf("%s BaseEvents(%s) = %v, want %v", tt.arch, tt.name, b, want)
			}
		}
		if info.Description == "" {
			t.Errorf("%s %s has no description", tt.arch, tt.name)
		}
	}
}

func TestLoadAMDArchitectures(t *testing.T) {
	c, err := LoadAMD("gfx90c")
	if err != nil || c.Source != "gfx9" || c.Arch != "gfx90c" {
		t.Errorf("LoadAMD(gfx90c) = %+v, %v; want the gfx9 family catalog", c, err)
	}
	_, err = LoadAMD("gfx7")
	if err == nil || !strings.Contains(err.Error(), `"gfx7"`) || !strings.Contains(err.Error(), "gfx90a, gfx940") {
		t.Errorf("LoadAMD(gfx7) error = %v, want one naming gfx7 and the known architectures", err)
	}
	for _, arch := range []string{"gfx9", "gfx10", "gfx11", "gfx12", "gfx90a", "gfx942", "gfx950"} {
		found := false
		for _, k := range KnownAMD() {
			found = found || k == arch
		}
		if !found {
			t.Errorf("KnownAMD() lacks %s", arch)
		}
	}
	a, _ := LoadAMD("gfx942")
	b, _ := LoadAMD("gfx942")
	if a != b {
		t.Error("LoadAMD builds gfx942 twice")
	}
}

func TestBlockLimits(t *testing.T) {
	tests := []struct {
		arch, block string
		want        int
		known       bool
	}{
		{"gfx90a", "SQ", 8, true},
		{"gfx90a", "TCC", 4, true},
		{"gfx90a", "GRBM", 2, true},
		{"gfx90a", "UMC", 9, true},
		{"gfx90a", "MC_VM_L2", 8, true},
		{"gfx942", "UMC", 11, true},
		{"gfx942", "MC_VM_L2", 16, true},
		{"gfx950", "MC_VM_L2", 8, true},
		{"gfx950", "UMC", 0, true},
		{"gfx908", "UMC", 0, true},
		{"gfx1030", "UMC", 5, true},
		{"gfx1030", "GL2C", 4, true},
		{"gfx1200", "SQ", 8, true},
		{"gfx1200", "GCMC_VM_L2", 8, true},
		{"gfx90a", "GL2C", 0, false},
	}
	for _, tt := range tests {
		c, err := LoadAMD(tt.arch)
		if err != nil {
			t.Fatal(err)
		}
		got, known := c.Limit(tt.block)
		if got != tt.want || known != tt.known {
			t.Errorf("%s Limit(%s) = %d, %v; want %d, %v", tt.arch, tt.block, got, known, tt.want, tt.known)
		}
	}
}

func TestParseBlockLimitsErrors(t *testing.T) {
	for _, text := range []string{
		"",
		"fam\tblock\tcounters_per_pass\n",
		"family\tblock\tcounters_per_pass\ngfx9\tSQ\n",
		"family\tblock\tcounters_per_pass\ngfx9\tSQ\teight\n",
		"family\tblock\tcounters_per_pass\ngfx9\tSQ\t-1\n",
	} {
		if _, err := parseBlockLimits(text); err == nil {
			t.Errorf("parseBlockLimits(%q) succeeded", text)
		}
	}
}

// Every definition of every architecture must end up in the catalog or in its Unsupported list;
// the golden file shows the unsupported ones and why.
func TestEveryDefinitionAccounted(t *testing.T) {
	d, err := loadAMDData()
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	for _, arch := range KnownAMD() {
		c, err := LoadAMD(arch)
		if err != nil {
			t.Fatal(err)
		}
		unsupported := map[string]bool{}
		for _, u := range c.Unsupported {
			unsupported[u.Name] = true
			fmt.Fprintf(&report, "%s\t%s\t%s\n", arch, u.Name, u.Reason)
		}
		defined := 0
		for _, def := range d.defs {
			for _, df := range def.Definitions {
				for _, a := range df.Architectures {
					if a != arch {
						continue
					}
					defined++
					if c.Has(def.Name) == unsupported[def.Name] {
						t.Errorf("%s %s: in catalog %v, unsupported %v", arch, def.Name, c.Has(def.Name), unsupported[def.Name])
					}
				}
			}
		}
		if defined != len(c.Names())+len(c.Unsupported) {
			t.Errorf("%s: %d definitions, %d counters + %d unsupported", arch, defined, len(c.Names()), len(c.Unsupported))
		}
		fmt.Fprintf(&report, "%s\t%d counters\n", arch, len(c.Names()))
	}
	golden(t, "catalogs.golden", []byte(report.String()))
}

// agentConsts are an MI210's properties, as its KFD node reports them.
var agentConsts = map[string]float64{
	"simd_count": 416, "simd_per_cu": 4, "cu_count": 104, "wave_front_size": 64, "array_count": 8,
	"simd_arrays_per_engine": 1, "num_xcc": 1, "tcc_channels": 16,
}

// Every counter of every architecture evaluates to finite values from base values laid out as the
// dimension model says, and a derived counter has as many values as its dimensions describe.
func TestEvaluateEveryCounter(t *testing.T) {
	for _, arch := range KnownAMD() {
		c, err := LoadAMD(arch)
		if err != nil {
			t.Fatal(err)
		}
		base := map[string][]float64{}
		for _, info := range c.ListFor(agentConsts) {
			if !info.Derived {
				sizes, _ := shape(info.Dimensions)
				vals := make([]float64, product(sizes))
				for i := range vals {
					vals[i] = float64(i%7 + 1)
				}
				base[info.Name] = vals
			}
		}
		for _, info := range c.ListFor(agentConsts) {
			v, err := c.Evaluate(info.Name, base, agentConsts)
			if err != nil {
				t.Errorf("%s: %v", arch, err)
				continue
			}
			sizes, _ := shape(info.Dimensions)
			if len(v) != product(sizes) {
				t.Errorf("%s %s: %d values, dimensions %v", arch, info.Name, len(v), info.Dimensions)
			}
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%s %s: %v", arch, info.Name, v)
					break
				}
			}
		}
	}
}

func TestBaseEvents(t *testing.T) {
	c, err := LoadAMD("gfx90a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want []Base
	}{
		{"FETCH_SIZE", []Base{{"TCC_EA_RDREQ", "TCC", 38}, {"TCC_EA_RDREQ_32B", "TCC", 39}}},
		{"GPUBusy", []Base{{"GRBM_COUNT", "GRBM", 0}, {"GRBM_GUI_ACTIVE", "GRBM", 2}}},
		{"MeanOccupancyPerActiveCU", []Base{{"SQ_BUSY_CU_CYCLES", "SQ", 13}, {"SQ_LEVEL_WAVES", "SQ", 5}}},
		{"CU_NUM", nil},
	}
	for _, tt := range tests {
		got, err := c.BaseEvents(tt.name)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("BaseEvents(%s) = %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
	if _, err := c.BaseEvents("NOPE"); err == nil || !strings.Contains(err.Error(), "NOPE") {
		t.Errorf("BaseEvents(NOPE) error = %v", err)
	}
}

func TestResolveDropsWithReason(t *testing.T) {
	c := synthetic(t, map[string]int{"SQ": 2}, map[string]string{
		"A": "SQ:1", "B": "SQ:2", "C": "SQ:3",
		"GOOD":    "=A+B",
		"MISSING": "=A+NOT_HERE",
		"CHAINED": "=MISSING*2",
		"TOOMANY": "=A+B+C",
		"LOOP1":   "=LOOP2+1",
		"LOOP2":   "=LOOP1+1",
		"CONST":   "=simd_count",
	})
	want := map[string]string{
		"MISSING": "NOT_HERE (position 3), which gfxtest does not define",
		"CHAINED": "MISSING (position 1), which is unsupported",
		"TOOMANY": "needs 3 SQ events, one pass counts at most 2",
		"LOOP1":   "refers to itself",
		"LOOP2":   "refers to itself",
	}
	for _, u := range c.Unsupported {
		if frag, ok := want[u.Name]; !ok || !strings.Contains(u.Reason, frag) {
			t.Errorf("unsupported %s: %q, want containing %q", u.Name, u.Reason, frag)
		}
		delete(want, u.Name)
	}
	for name := range want {
		t.Errorf("%s is not reported unsupported", name)
	}
	if got := c.Names(); !reflect.DeepEqual(got, []string{"A", "B", "C", "CONST", "GOOD"}) {
		t.Errorf("Names() = %v", got)
	}
}

func TestEvaluate(t *testing.T) {
	c := synthetic(t, map[string]int{"SQ": 8, "TCC": 4, "GRBM": 2}, map[string]string{
		"SQ_A": "SQ:1", "SQ_B": "SQ:2", "TCC_X": "TCC:1", "GRBM_T": "GRBM:0",
		"HALF":      "=0.5*reduce(SQ_A,sum)",
		"RATIO":     "=reduce(SQ_A,sum)/reduce(SQ_B,sum)",
		"AVR":       "=reduce(TCC_X,avr)",
		"MAX":       "=reduce(TCC_X,max)",
		"MIN":       "=reduce(TCC_X,min)",
		"SCALED":    "=SQ_A*2-1",
		"PAIRWISE":  "=SQ_A+SQ_B",
		"MISMATCH":  "=SQ_A+TCC_X",
		"NESTED":    "=HALF+RATIO",
		"NEG":       "=-reduce(SQ_A,sum)",
		"CUS":       "=simd_count/simd_per_cu",
		"PER_CU":    "=reduce(SQ_A,sum)/CUS",
		"NOCONST":   "=reduce(SQ_A,sum)*no_such_prop",
		"PER_SE":    "=reduce(SQ_A,sum,[DIMENSION_XCC])",
		"SE1":       "=select(SQ_A,[DIMENSION_SHADER_ENGINE=[1]])",
		"ACC":       "=reduce(accumulate(SQ_A,HIGH_RES),sum)",
		"PER_SE2":   "=reduce(SQ_A*2,sum,[XCC])",
		"BADREDUCE": "=reduce(GRBM_T,sum,[XCC])",
		"BADSELECT": "=select(SQ_A,[DIMENSION_SHADER_ENGINE=9])",
	})
	consts := map[string]float64{"simd_count": 8, "simd_per_cu": 4, "num_xcc": 2, "array_count": 4, "simd_arrays_per_engine": 1}
	base := map[string][]float64{
		"SQ_A":   {1, 2, 3, 4}, // 2 XCC x 2 shader engines
		"SQ_B":   {0, 0, 0, 0},
		"TCC_X":  {1, 2, 3, 6},
		"GRBM_T": {10},
	}
	tests := []struct {
		name string
		want []float64
		err  string
	}{
		{"SQ_A", []float64{1, 2, 3, 4}, ""},
		{"HALF", []float64{5}, ""},
		{"RATIO", []float64{0}, ""},
		{"AVR", []float64{3}, ""},
		{"MAX", []float64{6}, ""},
		{"MIN", []float64{1}, ""},
		{"SCALED", []float64{1, 3, 5, 7}, ""},
		{"PAIRWISE", []float64{1, 2, 3, 4}, ""},
		{"MISMATCH", []float64{2, 4, 6, 10}, ""}, // equal instance counts combine element-wise
		{"NESTED", []float64{5}, ""},
		{"NEG", []float64{-10}, ""},
		{"CUS", []float64{2}, ""},
		{"PER_CU", []float64{5}, ""},
		{"NOCONST", nil, "evaluating NOCONST on gfxtest: position 18: the agent does not report the constant no_such_prop"},
		{"PER_SE", []float64{4, 6}, ""},
		{"SE1", []float64{2, 4}, ""},
		{"ACC", []float64{10}, ""},
		{"PER_SE2", []float64{8, 12}, ""},
		{"BADREDUCE", nil, "needs the instance layout of its operand (1 values)"},
		{"BADSELECT", nil, "DIMENSION_SHADER_ENGINE=9 is out of range (size 2)"},
		{"NOPE", nil, "evaluating NOPE on gfxtest: no such counter"},
	}
	for _, tt := range tests {
		got, err := c.Evaluate(tt.name, base, consts)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Evaluate(%s) error = %v, want containing %q", tt.name, err, tt.err)
			}
		case err != nil:
			t.Errorf("Evaluate(%s): %v", tt.name, err)
		case !reflect.DeepEqual(got, tt.want):
			t.Errorf("Evaluate(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
	short := map[string][]float64{"SQ_A": {1, 2, 3}, "TCC_X": {1, 2}}
	if _, err := c.Evaluate("MISMATCH", short, consts); err == nil || !strings.Contains(err.Error(), "operands have 3 and 2 instances") {
		t.Errorf("Evaluate(MISMATCH) with 3 and 2 instances: %v", err)
	}
	if _, err := c.Evaluate("HALF", map[string][]float64{}, consts); err == nil || !strings.Contains(err.Error(), "no values for base counter SQ_A") {
		t.Errorf("Evaluate(HALF) without base values: %v", err)
	}
	info, _ := c.Describe("SCALED", consts)
	if want := []Dimension{{DimXCC, 2}, {DimShaderEngine, 2}}; !reflect.DeepEqual(info.Dimensions, want) {
		t.Errorf("Describe(SCALED).Dimensions = %v, want %v", info.Dimensions, want)
	}
	if info, _ := c.Describe("PER_SE", consts); !reflect.DeepEqual(info.Dimensions, []Dimension{{DimShaderEngine, 2}}) {
		t.Errorf("Describe(PER_SE).Dimensions = %v", info.Dimensions)
	}
}

func TestListSortedWithDimensions(t *testing.T) {
	c, _ := LoadAMD("gfx942")
	list := c.ListFor(map[string]float64{"num_xcc": 8, "array_count": 32, "simd_arrays_per_engine": 1, "cu_count": 304})
	for i := 1; i < len(list); i++ {
		if list[i-1].Name >= list[i].Name {
			t.Fatalf("List not sorted at %s, %s", list[i-1].Name, list[i].Name)
		}
	}
	byName := map[string]CounterInfo{}
	for _, info := range list {
		byName[info.Name] = info
	}
	tests := map[string][]Dimension{
		"SQ_WAVES":        {{DimXCC, 8}, {DimShaderEngine, 4}},
		"TA_TA_BUSY":      {{DimXCC, 8}, {DimInstance, 38}},
		"TCC_HIT":         {{DimXCC, 8}, {DimInstance, 0}},
		"GRBM_GUI_ACTIVE": {{DimXCC, 8}},
		"TCC_HIT_sum":     nil,
	}
	for name, want := range tests {
		if got := byName[name].Dimensions; !reflect.DeepEqual(got, want) {
			t.Errorf("%s dimensions = %v, want %v", name, got, want)
		}
	}
	if got := c.List()[0].Dimensions; got != nil && got[0].Size != 0 {
		t.Errorf("List() without constants has sizes: %v", got)
	}
}

// The output writer evaluates from several goroutines; programs are compiled once under a lock.
func TestEvaluateConcurrently(t *testing.T) {
	c := synthetic(t, map[string]int{"SQ": 8}, map[string]string{"A": "SQ:1", "B": "SQ:2", "R": "=reduce(A,sum)/reduce(B,sum)*0.5"})
	done := make(chan error)
	for g := 0; g < 8; g++ {
		go func(g int) {
			v, err := c.Evaluate("R", map[string][]float64{"A": {float64(g)}, "B": {2}}, nil)
			if err == nil && v[0] != float64(g)/4 {
				err = fmt.Errorf("R = %v for A = %d", v, g)
			}
			done <- err
		}(g)
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
