package replay

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/gorocprof/gorocprof/internal/counters"
)

func TestCandidateSets(t *testing.T) {
	groups, err := counters.ParseGroups([]string{"b a", "c a b", "a"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range candidateSets(groups) {
		got = append(got, setKey(s))
	}
	want := []string{"a", "b", "a,b", "c", "a,b,c"}
	if !slices.Equal(got, want) {
		t.Errorf("candidate sets %v, want %v", got, want)
	}
}

func TestPassCacheAnswersAheadAndFallsBack(t *testing.T) {
	var asked atomic.Int32
	helper := func(m []string) (int, error) {
		asked.Add(1)
		if slices.Contains(m, "bad") {
			return 0, errors.New("unknown metric bad")
		}
		return len(m), nil
	}
	c := prefetchPasses(helper, [][]string{{"a"}, {"a", "b"}, {"bad"}})
	if asked.Load() != 3 {
		t.Fatalf("prefetch asked %d questions, want 3", asked.Load())
	}
	o := c.oracle(helper)
	if n, err := o([]string{"b", "a"}); n != 2 || err != nil {
		t.Errorf("cached answer for {b,a}: %d, %v", n, err)
	}
	if asked.Load() != 3 {
		t.Errorf("a cached set was asked again")
	}
	if _, err := o([]string{"bad"}); err == nil {
		t.Error("a failed prefetch must be asked again and fail with the helper's error")
	}
	if n, _ := o([]string{"x", "y", "z"}); n != 3 || asked.Load() != 5 {
		t.Errorf("unknown set not asked of the helper: n=%d asked=%d", n, asked.Load())
	}
}
