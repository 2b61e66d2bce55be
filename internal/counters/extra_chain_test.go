package counters

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// chainExtra is an extra definitions file of depth counters E_0 .. E_{depth-1}: E_i uses E_{i+1}
// (twice, when doubling), the last SQ_WAVES. Expanded as a tree, a doubling chain of 60 has 2^60
// leaves; as a graph every definition is one node.
func chainExtra(depth int, doubling bool) string {
	var b strings.Builder
	b.WriteString(extraHead)
	for i := 0; i < depth; i++ {
		expr := "SQ_WAVES"
		switch {
		case i+1 < depth && doubling:
			expr = fmt.Sprintf("E_%d*E_%d", i+1, i+1)
		case i+1 < depth:
			expr = fmt.Sprintf("E_%d+1", i+1)
		}
		b.WriteString(extraCounter(fmt.Sprintf("E_%d", i), "gfxtest", expr))
	}
	return b.String()
}

// Every use of a catalog (merging the file, listing, describing, planning, evaluating) costs
// linear time in the definitions, whatever their sharing: a 60-level doubling chain and a
// 2,000-level chain each finish well inside the deadline.
func TestExtraChainsAreLinear(t *testing.T) {
	for _, tt := range []struct {
		name     string
		depth    int
		doubling bool
		want     float64
	}{
		{"doubling 60", 60, true, 1},
		{"chain 2000", 2000, false, 1 + 1999},
	} {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			start := time.Now()
			go func() { done <- useChain(t, tt.depth, tt.doubling, tt.want) }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %v", tt.name, time.Since(start))
			case <-time.After(20 * time.Second):
				t.Fatalf("%s: not done after 20 s: the definitions are expanded as a tree", tt.name)
			}
		})
	}
}

func useChain(t *testing.T, depth int, doubling bool, want float64) error {
	e, err := ParseExtra("chain.yaml", []byte(chainExtra(depth, doubling)))
	if err != nil {
		return err
	}
	cat, err := extraCatalog(t).WithExtra(e)
	if err != nil {
		return err
	}
	if !cat.Has("E_0") {
		return fmt.Errorf("E_0 missing from %d counters", len(cat.Names()))
	}
	_ = cat.ListFor(map[string]float64{"max_waves_per_simd": 8})
	if _, ok := cat.Describe("E_0", nil); !ok {
		return fmt.Errorf("E_0 not described")
	}
	bases, err := cat.BaseEvents("E_0")
	if err != nil || len(bases) != 1 {
		return fmt.Errorf("E_0 needs %v (%v), want SQ_WAVES", bases, err)
	}
	v, err := cat.Evaluate("E_0", map[string][]float64{"SQ_WAVES": {1, 1}}, nil)
	if err != nil || len(v) != 2 || v[0] != want {
		return fmt.Errorf("E_0 = %v (%v), want %v twice", v, err, want)
	}
	return nil
}

// A counter name of a megabyte gets its answer at once: no name is near it.
func TestSuggestHugeName(t *testing.T) {
	names := make([]string, 3000)
	for i := range names {
		names[i] = fmt.Sprintf("SQ_COUNTER_%d", i)
	}
	start := time.Now()
	if got := suggest(strings.Repeat("A", 1<<20), names, 3); len(got) != 0 {
		t.Errorf("suggestions %v", got)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}
