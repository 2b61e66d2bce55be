package counters

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Vendors of a catalog.
const (
	VendorAMD    = "AMD"
	VendorNVIDIA = "NVIDIA"
)

// Base is one hardware event: what the tool programs and reads back. NVIDIA metrics have no block.
type Base struct {
	Name  string
	Block string
	Event int
}

// CounterInfo is what a catalog says about one counter, for listings and output.
type CounterInfo struct {
	Name, Description, Block, Expression string
	Derived                              bool
	Dimensions                           []Dimension
}

// Dimension is one axis of a counter's instances; Size 0 means the agent did not report it. A
// counter without dimensions has a single value.
type Dimension struct {
	Name string
	Size int
}

// Unsupported is a counter the definitions list for an architecture that this catalog leaves out.
type Unsupported struct {
	Name, Reason string
}

// counter is one entry of a catalog.
type counter struct {
	name, description string
	unit              string // NVIDIA: shown after the description, formatted when asked for
	base              *Base  // nil for a derived counter
	expression        string
	ast               *Node
}

// Catalog is the set of counters one kind of agent offers, plus what decides whether a set of base
// events fits one pass (per-block register limits on AMD, the CUPTI pass oracle on NVIDIA).
type Catalog struct {
	// Arch is the agent name the catalog was asked for (gfx90a, GH100); Source the definitions
	// it was built from (the same, or a family such as gfx9 when the exact name has none).
	Arch, Source, Vendor string
	// Unsupported lists the counters left out, with the reason, sorted by name.
	Unsupported []Unsupported

	counters map[string]*counter
	names    []string
	limits   map[string]int // AMD: base events per block per pass
	passes   func([]string) (int, error)

	mu       sync.Mutex
	programs map[*Node]*island       // compiled arithmetic, built on first use
	oracle   map[string]oracleAnswer // NVIDIA pass answers by metric set
}

type oracleAnswer struct {
	passes int
	err    error
}

func newCatalog(arch, source, vendor string) *Catalog {
	return &Catalog{Arch: arch, Source: source, Vendor: vendor, counters: map[string]*counter{},
		limits: map[string]int{}, programs: map[*Node]*island{}, oracle: map[string]oracleAnswer{}}
}

func (c *Catalog) add(k *counter) {
	c.counters[k.name] = k
}

// describe is the counter's description, with its unit when it has one.
func (k *counter) describe() string {
	if k.unit == "" {
		return k.description
	}
	return strings.TrimSpace(k.description + " (unit: " + k.unit + ")")
}

func (c *Catalog) finish() {
	c.names = c.names[:0]
	for n := range c.counters {
		c.names = append(c.names, n)
	}
	sort.Strings(c.names)
	sort.Slice(c.Unsupported, func(i, j int) bool { return c.Unsupported[i].Name < c.Unsupported[j].Name })
}

// Has reports whether the catalog offers the counter.
func (c *Catalog) Has(name string) bool {
	_, ok := c.counters[name]
	return ok
}

// Names returns every counter name, sorted.
func (c *Catalog) Names() []string {
	return append([]string(nil), c.names...)
}

// Limit returns how many distinct events of block one pass can count, and whether it is known.
func (c *Catalog) Limit(block string) (int, bool) {
	n, ok := c.limits[block]
	return n, ok
}

// Describe returns the catalog's facts about a counter, with dimension sizes taken from the agent
// constants (nil consts leaves the sizes 0). ok is false for a counter the catalog lacks.
func (c *Catalog) Describe(name string, consts map[string]float64) (CounterInfo, bool) {
	return c.describe(name, consts, map[string][]Dimension{})
}

// describe is Describe with the dimensions of derived counters kept in memo across calls.
func (c *Catalog) describe(name string, consts map[string]float64, memo map[string][]Dimension) (CounterInfo, bool) {
	k, ok := c.counters[name]
	if !ok {
		return CounterInfo{Name: name}, false
	}
	info := CounterInfo{Name: k.name, Description: k.describe(), Expression: k.expression, Derived: k.base == nil}
	if k.base != nil {
		info.Block = k.base.Block
	}
	info.Dimensions = c.dimsOf(&Node{Kind: KindIdent, Name: name}, consts, memo)
	return info, true
}

// List returns every counter, sorted by name, with unknown dimension sizes.
func (c *Catalog) List() []CounterInfo {
	return c.ListFor(nil)
}

// ListFor returns every counter, sorted by name, with dimension sizes of the agent whose constants
// are given.
func (c *Catalog) ListFor(consts map[string]float64) []CounterInfo {
	out := make([]CounterInfo, 0, len(c.names))
	memo := map[string][]Dimension{}
	for _, n := range c.names {
		info, _ := c.describe(n, consts, memo)
		out = append(out, info)
	}
	return out
}

// BaseEvents returns the base counters a counter needs (itself for a base counter; every base
// counter its expression reaches, through nested derived counters, for a derived one), sorted by
// name.
func (c *Catalog) BaseEvents(name string) ([]Base, error) {
	if !c.Has(name) {
		return nil, fmt.Errorf("counter %q is not offered by %s", name, c.Arch)
	}
	return slices.Clone(c.baseEvents(name, map[string][]Base{})), nil
}

// baseEvents is the base events of a counter, sorted by name, each counter's set computed once
// from its operands' (memo holds them, nil while one is being computed): a definition is one node
// of a graph however often others use it, so the cost is linear in the definitions.
func (c *Catalog) baseEvents(name string, memo map[string][]Base) []Base {
	if out, ok := memo[name]; ok {
		return out
	}
	k := c.counters[name]
	if k.base != nil {
		out := []Base{*k.base}
		memo[name] = out
		return out
	}
	memo[name] = nil // a cycle ends here
	var out []Base
	k.ast.Idents(func(id *Node) {
		if c.Has(id.Name) {
			out = append(out, c.baseEvents(id.Name, memo)...)
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	out = slices.CompactFunc(out, func(a, b Base) bool { return a.Name == b.Name })
	memo[name] = out
	return out
}

// resolve checks every derived counter's identifiers: an identifier is a counter of this catalog,
// or, when written in lower case, an agent constant (agent properties are lower case). An upper
// case name the catalog lacks makes the counter unsupported here, and so does a reference to an
// unsupported counter or a cycle. It runs until nothing changes, because dropping one counter can
// leave another without its operand.
func (c *Catalog) resolve() {
	cycles := c.cycles()
	for _, name := range slices.Sorted(maps.Keys(cycles)) {
		c.drop(name, "expression refers to itself: "+pathText(cycles[name]))
	}
	for changed := true; changed; {
		changed = false
		for _, name := range slices.Sorted(maps.Keys(c.counters)) {
			k := c.counters[name]
			if k.base != nil {
				continue
			}
			var missing, unsupported []string
			k.ast.Idents(func(id *Node) {
				switch {
				case c.Has(id.Name) || isConstantName(id.Name):
				case c.unsupported(id.Name):
					unsupported = append(unsupported, fmt.Sprintf("%s (position %d)", id.Name, id.Pos))
				default:
					missing = append(missing, fmt.Sprintf("%s (position %d)", id.Name, id.Pos))
				}
			})
			switch {
			case len(missing) > 0:
				c.drop(name, fmt.Sprintf("expression %q uses %s, which %s does not define",
					k.expression, strings.Join(missing, ", "), c.Source))
				changed = true
			case len(unsupported) > 0:
				c.drop(name, fmt.Sprintf("expression %q uses %s, which is unsupported on %s",
					k.expression, strings.Join(unsupported, ", "), c.Source))
				changed = true
			}
		}
	}
}

// cycles returns every derived counter whose expression reaches itself or a counter that does,
// each with a path from it to the counter that repeats. One walk of the definitions' graph, each
// counter visited once: shared operands (E = F*F, F = G*G, ...) cost no more than a chain.
func (c *Catalog) cycles() map[string][]string {
	w := cycleWalk{c: c, memo: map[string][]string{}, onPath: map[string]bool{}, found: map[string][]string{}}
	for _, name := range slices.Sorted(maps.Keys(c.counters)) {
		w.walk(name)
	}
	return w.found
}

type cycleWalk struct {
	c      *Catalog
	memo   map[string][]string // finished counters: their path into a cycle, nil for none
	onPath map[string]bool     // the counters being walked
	found  map[string][]string
}

func (w *cycleWalk) walk(name string) []string {
	if w.onPath[name] {
		return []string{name}
	}
	if p, ok := w.memo[name]; ok {
		return p
	}
	k, ok := w.c.counters[name]
	if !ok || k.base != nil {
		return nil
	}
	w.onPath[name] = true
	var path []string
	k.ast.Idents(func(id *Node) {
		if path == nil && w.c.Has(id.Name) {
			if p := w.walk(id.Name); p != nil {
				path = append([]string{name}, p...)
			}
		}
	})
	delete(w.onPath, name)
	w.memo[name] = path
	if path != nil {
		w.found[name] = path
	}
	return path
}

// pathText words a path of counters, its middle cut when it is long.
func pathText(path []string) string {
	const keep = 8
	if len(path) <= keep {
		return strings.Join(path, " -> ")
	}
	return strings.Join(path[:keep/2], " -> ") + fmt.Sprintf(" -> ... (%d more) -> ", len(path)-keep) +
		strings.Join(path[len(path)-keep/2:], " -> ")
}

func (c *Catalog) drop(name, reason string) {
	delete(c.counters, name)
	c.Unsupported = append(c.Unsupported, Unsupported{Name: name, Reason: reason})
}

func (c *Catalog) unsupported(name string) bool {
	for _, u := range c.Unsupported {
		if u.Name == name {
			return true
		}
	}
	return false
}

func isConstantName(s string) bool {
	return s == strings.ToLower(s)
}
