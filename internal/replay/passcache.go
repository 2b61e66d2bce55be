package replay

import (
	"sort"
	"strings"
	"sync"

	"github.com/gorocprof/gorocprof/internal/counters"
)

// prefetchWorkers bounds the helper processes asked at once.
const prefetchWorkers = 4

// passCache holds pass counts asked ahead of planning, keyed by the sorted, comma-joined metric set.
type passCache struct {
	mu      sync.Mutex
	answers map[string]int
}

func setKey(metrics []string) string {
	s := append([]string(nil), metrics...)
	sort.Strings(s)
	return strings.Join(s, ",")
}

// candidateSets are the metric sets an NVIDIA plan of these groups asks about when every group fits
// one pass: each metric alone, and each group's sorted prefixes (first-fit grows a pass metric by metric).
func candidateSets(groups []counters.Group) [][]string {
	seen := map[string]bool{}
	var out [][]string
	add := func(set []string) {
		if k := setKey(set); !seen[k] {
			seen[k] = true
			out = append(out, set)
		}
	}
	for _, g := range groups {
		names := g.Names()
		sort.Strings(names)
		for _, n := range names {
			add([]string{n})
		}
		for i := 2; i <= len(names); i++ {
			add(append([]string(nil), names[:i]...))
		}
	}
	return out
}

// prefetchPasses asks oracle about every set concurrently and keeps the answers it got; failures are
// not kept, so the planner asks again and reports the error itself.
func prefetchPasses(oracle func([]string) (int, error), sets [][]string) *passCache {
	c := &passCache{answers: map[string]int{}}
	work := make(chan []string)
	var wg sync.WaitGroup
	for w := 0; w < prefetchWorkers && w < len(sets); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for set := range work {
				if n, err := oracle(set); err == nil {
					c.mu.Lock()
					c.answers[setKey(set)] = n
					c.mu.Unlock()
				}
			}
		}()
	}
	for _, s := range sets {
		work <- s
	}
	close(work)
	wg.Wait()
	return c
}

// oracle answers from the cache and asks fallback for anything it does not hold.
func (c *passCache) oracle(fallback func([]string) (int, error)) func([]string) (int, error) {
	return func(metrics []string) (int, error) {
		c.mu.Lock()
		n, ok := c.answers[setKey(metrics)]
		c.mu.Unlock()
		if ok {
			return n, nil
		}
		return fallback(metrics)
	}
}
