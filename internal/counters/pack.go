package counters

import (
	"fmt"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// searchBudget bounds the exact search for the fewest passes of one group (nodes visited per
// candidate pass count). Real groups are a handful of counters and finish far below it; past it
// the first-fit-decreasing answer, which is never worse than one pass per counter, is kept.
const searchBudget = 200000

type item struct {
	name  string
	bases []Base
}

// bin is one pass under construction.
type bin struct {
	requested []string
	bases     map[Base]int // reference counts: counters of one pass share base events
	perBlock  map[string]int
}

func newBin() *bin { return &bin{bases: map[Base]int{}, perBlock: map[string]int{}} }

func (b *bin) add(it item) {
	b.requested = append(b.requested, it.name)
	for _, x := range it.bases {
		if b.bases[x] == 0 {
			b.perBlock[x.Block]++
		}
		b.bases[x]++
	}
}

func (b *bin) remove(it item) {
	b.requested = b.requested[:len(b.requested)-1]
	for _, x := range it.bases {
		b.bases[x]--
		if b.bases[x] == 0 {
			delete(b.bases, x)
			b.perBlock[x.Block]--
		}
	}
}

// fitsAMD checks the per-block limits of b with it added, without changing b.
func (b *bin) fitsAMD(c *Catalog, it item) bool {
	extra := map[string]int{}
	for _, x := range it.bases {
		if b.bases[x] == 0 {
			extra[x.Block]++
		}
	}
	for block, n := range extra {
		if b.perBlock[block]+n > c.limits[block] {
			return false
		}
	}
	return true
}

func (b *bin) baseList() []Base {
	out := make([]Base, 0, len(b.bases))
	for x := range b.bases {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (b *bin) pass(group int) contract.PlanPass {
	p := contract.PlanPass{Group: group, Requested: append([]string(nil), b.requested...), Base: []contract.PlanCounter{}}
	sort.Strings(p.Requested)
	for _, x := range b.baseList() {
		p.Base = append(p.Base, contract.PlanCounter{Name: x.Name, Block: x.Block, Event: x.Event})
	}
	return p
}

// pack splits the counters of one group into the fewest passes the agent allows. Counters without
// base events (agent constants such as CU_NUM) ride on the first pass.
func pack(c *Catalog, names []string) ([]*bin, error) {
	var items, free []item
	for _, n := range names {
		bases, err := c.BaseEvents(n)
		if err != nil {
			return nil, err
		}
		it := item{name: n, bases: bases}
		if len(bases) == 0 {
			free = append(free, it)
			continue
		}
		items = append(items, it)
	}
	var bins []*bin
	var err error
	if b, ok := wholeGroup(c, items); ok {
		bins = []*bin{b}
	} else {
		for _, it := range items {
			if err := fitsAlone(c, it); err != nil {
				return nil, err
			}
		}
		sort.SliceStable(items, func(i, j int) bool {
			if len(items[i].bases) != len(items[j].bases) {
				return len(items[i].bases) > len(items[j].bases)
			}
			return items[i].name < items[j].name
		})
		if c.asksOracle() {
			bins, err = firstFitOracle(c, items)
		} else {
			bins = fewestAMD(c, items)
		}
	}
	if err != nil {
		return nil, err
	}
	if len(bins) == 0 {
		bins = []*bin{newBin()}
	}
	for _, it := range free {
		bins[0].add(it)
	}
	for _, b := range bins {
		sort.Strings(b.requested)
	}
	sort.SliceStable(bins, func(i, j int) bool { return bins[i].requested[0] < bins[j].requested[0] })
	return bins, nil
}

// wholeGroup asks an NVIDIA oracle one question first: a group that fits one pass as a whole needs no
// other (each question starts CUDA and CUPTI in a new helper process, most of a second). When it does
// not fit, or the answer is an error (maybe one metric's fault), the caller asks metric by metric,
// which names the culprit. AMD limits are cheap to check and go straight to the packer.
func wholeGroup(c *Catalog, items []item) (*bin, bool) {
	if !c.asksOracle() || len(items) < 2 {
		return nil, false
	}
	b := newBin()
	for _, it := range items {
		b.add(it)
	}
	ok, err := c.Fits(b.baseList())
	return b, err == nil && ok
}

func fitsAlone(c *Catalog, it item) error {
	if c.asksOracle() {
		// The oracle is asked about the base counters: on NVIDIA the metric itself, on an SDK's
		// AMD agent what a derived counter's expression reads.
		names := make([]string, len(it.bases))
		for i, b := range it.bases {
			names[i] = b.Name
		}
		n, err := c.passCount(names)
		if err != nil {
			return err
		}
		if n != 1 {
			return fmt.Errorf("metric %s needs %d passes by itself; each replay pass collects one hardware pass", it.name, n)
		}
		return nil
	}
	if o := c.overLimit(it.bases); len(o) > 0 {
		return fmt.Errorf("counter %s needs %d %s events, one pass counts at most %d", it.name, o[0].need, o[0].block, o[0].limit)
	}
	return nil
}

// firstFitOracle places each metric into the first pass the oracle accepts it in.
func firstFitOracle(c *Catalog, items []item) ([]*bin, error) {
	sort.SliceStable(items, func(i, j int) bool { return items[i].name < items[j].name })
	return firstFit(items, func(b *bin, it item) (bool, error) { return c.Fits(append(b.baseList(), it.bases...)) })
}

// fewestAMD finds the fewest passes under the per-block limits: first-fit decreasing gives an
// upper bound, the busiest block a lower bound, and an exact search tries the counts in between.
func fewestAMD(c *Catalog, items []item) []*bin {
	best := firstFitAMD(c, items)
	for k := lowerBound(c, items); k < len(best); k++ {
		if bins, ok := searchAMD(c, items, k); ok {
			return bins
		}
	}
	return best
}

func firstFitAMD(c *Catalog, items []item) []*bin {
	bins, _ := firstFit(items, func(b *bin, it item) (bool, error) { return b.fitsAMD(c, it), nil })
	return bins
}

// firstFit puts each item, in order, into the first bin fits accepts it in, or into a new bin.
func firstFit(items []item, fits func(*bin, item) (bool, error)) ([]*bin, error) {
	var bins []*bin
	for _, it := range items {
		placed := false
		for _, b := range bins {
			ok, err := fits(b, it)
			if err != nil {
				return nil, err
			}
			if ok {
				b.add(it)
				placed = true
				break
			}
		}
		if !placed {
			b := newBin()
			b.add(it)
			bins = append(bins, b)
		}
	}
	return bins, nil
}

func lowerBound(c *Catalog, items []item) int {
	all := newBin()
	for _, it := range items {
		all.add(it)
	}
	lb := 1
	for block, n := range all.perBlock {
		if limit := c.limits[block]; limit > 0 {
			if k := (n + limit - 1) / limit; k > lb {
				lb = k
			}
		}
	}
	return lb
}

// searchAMD looks for a placement of items into exactly k passes (or fewer); only the first empty
// pass is tried for each item, since empty passes are interchangeable.
func searchAMD(c *Catalog, items []item, k int) ([]*bin, bool) {
	bins := []*bin{}
	budget := searchBudget
	var place func(i int) bool
	place = func(i int) bool {
		if i == len(items) {
			return true
		}
		if budget--; budget < 0 {
			return false
		}
		for bi := 0; bi <= len(bins) && bi < k; bi++ {
			if bi == len(bins) {
				b := newBin()
				b.add(items[i])
				bins = append(bins, b)
				if place(i + 1) {
					return true
				}
				bins = bins[:len(bins)-1]
				break
			}
			if bins[bi].fitsAMD(c, items[i]) {
				bins[bi].add(items[i])
				if place(i + 1) {
					return true
				}
				bins[bi].remove(items[i])
			}
		}
		return false
	}
	if place(0) {
		return bins, true
	}
	return nil, false
}
