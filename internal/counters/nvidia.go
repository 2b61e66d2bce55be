package counters

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// NewNVIDIA builds the catalog of an NVIDIA chip from the metrics its query helper lists. Every
// metric is a base counter without block or event; whether a set of metrics fits one pass is
// asked of passes (the CUPTI host configuration's pass count), and the answers are remembered.
func NewNVIDIA(chip string, metrics []contract.Metric, passes func(metrics []string) (int, error)) *Catalog {
	c := newCatalog(chip, chip, VendorNVIDIA)
	c.passes = passes
	// An H200 lists 150,179 metrics and every planning run builds this: one allocation for all the
	// counters and one for their bases, a map sized once, and the names sorted only when the list is
	// not sorted already (the query cache files it sorted).
	c.counters = make(map[string]*counter, len(metrics))
	ks := make([]counter, len(metrics))
	bases := make([]Base, len(metrics))
	c.names = make([]string, 0, len(metrics))
	ascending := true // strictly: then no name can repeat one seen before
	for i, m := range metrics {
		if ascending && i > 0 && m.Name <= metrics[i-1].Name {
			ascending = false
		}
		if !ascending {
			if _, dup := c.counters[m.Name]; dup {
				continue
			}
		}
		bases[i] = Base{Name: m.Name}
		ks[i] = counter{name: m.Name, description: m.Description, unit: m.Unit, base: &bases[i]}
		c.counters[m.Name] = &ks[i]
		c.names = append(c.names, m.Name)
	}
	if !ascending {
		sort.Strings(c.names)
	}
	return c
}

// passCount asks the oracle how many passes a set of metrics needs, once per distinct set.
func (c *Catalog) passCount(names []string) (int, error) {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	key := strings.Join(sorted, ",")
	c.mu.Lock()
	a, ok := c.oracle[key]
	c.mu.Unlock()
	if ok {
		return a.passes, a.err
	}
	if c.passes == nil {
		return 0, fmt.Errorf("%s: no pass oracle", c.Arch)
	}
	n, err := c.passes(sorted)
	if err != nil {
		err = fmt.Errorf("asking %s how many passes %s need: %w", c.Arch, key, err)
	}
	c.mu.Lock()
	c.oracle[key] = oracleAnswer{n, err}
	c.mu.Unlock()
	return n, err
}

// Fits reports whether one pass can count all of bases on this catalog's agent.
func (c *Catalog) Fits(bases []Base) (bool, error) {
	if len(bases) == 0 {
		return true, nil
	}
	if c.asksOracle() {
		return c.oracleFits(bases)
	}
	return len(c.overLimit(bases)) == 0, nil
}
