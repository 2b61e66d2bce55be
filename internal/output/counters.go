package output

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/records"
)

// Counters answers what output needs to know about the planned counters. agentIndex is the agent's
// index in the plan (contract.Agent.Index); pass is the 0-based replay pass.
type Counters interface {
	// Requested lists the user's counters (base or derived) that pass collects on the agent.
	Requested(agentIndex, pass int) []string
	// Describe returns catalog facts about one counter of the agent.
	Describe(agentIndex int, name string) CounterInfo
	// Evaluate computes a derived counter, one value per instance, from one pass's base values.
	Evaluate(agentIndex int, name string, base map[string][]float64) ([]float64, error)
}

// CounterInfo is one counter as the catalog describes it, and Dimension one axis of its hardware
// instances: the catalog's own types, so a *counters.Plan is a Counters as it is.
type (
	CounterInfo = counters.CounterInfo
	Dimension   = counters.Dimension
)

// counterValues is one requested counter's per-instance values on one pass.
type counterValues struct {
	Name   string
	Values []float64
}

// passCounters returns the requested counters of one pass, sorted by name. A counter the record
// carries is taken as recorded (a value the hardware did not deliver counts as 0; the reader has
// reported it); any other is evaluated from the pass's base values. A pass that recorded no counters
// at all yields none. Failures are returned per counter so that the others are still written.
func passCounters(cs Counters, agentIndex int, d *contract.Dispatch) ([]counterValues, []error) {
	e := evaluator{cs: cs}
	return e.pass(agentIndex, d)
}

// evaluator is passCounters for a stream of passes: the sorted request list of each (agent, pass)
// is built once and values live in storage reused from pass to pass, so what pass returns is valid
// until the next call.
type evaluator struct {
	cs    Counters
	names map[[2]int][]string
	vals  []float64
	out   []counterValues
	// evaluated[i] says out[i] was computed from base values, not recorded.
	evaluated []bool
	base      map[string][]float64
}

func (e *evaluator) requested(agentIndex, pass int) []string {
	key := [2]int{agentIndex, pass}
	if names, ok := e.names[key]; ok {
		return names
	}
	names := append([]string(nil), e.cs.Requested(agentIndex, pass)...)
	sort.Strings(names)
	names = slices.Compact(names)
	if e.names == nil {
		e.names = map[[2]int][]string{}
	}
	e.names[key] = names
	return names
}

func (e *evaluator) pass(agentIndex int, d *contract.Dispatch) ([]counterValues, []error) {
	if e.cs == nil || len(d.Counters) == 0 {
		return nil, nil
	}
	names := e.requested(agentIndex, d.Pass)
	e.vals, e.out, e.evaluated, e.base = e.vals[:0], e.out[:0], e.evaluated[:0], nil
	var errs []error
	for _, name := range names {
		// The last line of a counter wins, as when the values are looked up by name.
		rec := -1
		for i := range d.Counters {
			if d.Counters[i].Name == name {
				rec = i
			}
		}
		if rec >= 0 {
			e.out = append(e.out, counterValues{name, e.values(d.Counters[rec].Values)})
			e.evaluated = append(e.evaluated, false)
			continue
		}
		if e.base == nil {
			e.base = make(map[string][]float64, len(d.Counters))
			for _, c := range d.Counters {
				e.base[c.Name] = e.values(c.Values)
			}
		}
		vals, err := e.cs.Evaluate(agentIndex, name, e.base)
		if err != nil {
			errs = append(errs, fmt.Errorf("dispatch %d pass %d: counter %s: %w", d.DispatchID, d.Pass, name, err))
			continue
		}
		e.out = append(e.out, counterValues{name, vals})
		e.evaluated = append(e.evaluated, true)
	}
	return e.out, errs
}

// values copies a record's values into the pass's storage, a missing value as 0.
func (e *evaluator) values(vs []*float64) []float64 {
	start := len(e.vals)
	for _, v := range vs {
		if v != nil {
			e.vals = append(e.vals, *v)
		} else {
			e.vals = append(e.vals, 0)
		}
	}
	return e.vals[start:len(e.vals):len(e.vals)]
}

func sum(vals []float64) float64 {
	var s float64
	for _, v := range vals {
		s += v
	}
	return s
}

// catalog numbers the requested counters of one process: agents by id, each agent's counters by
// name, handles from 1, so the same process always gets the same ids.
type catalog struct {
	entries []catalogEntry
	ids     map[catalogKey]uint64
	dims    []dimensionID
}

type catalogKey struct {
	agentID uint64
	name    string
}

type catalogEntry struct {
	id      uint64
	agentID uint64
	info    CounterInfo
	dimIDs  []int
}

type dimensionID struct {
	id int
	Dimension
}

func buildCatalog(proc *records.Process, cs Counters) *catalog {
	cat := &catalog{ids: map[catalogKey]uint64{}}
	if cs == nil {
		return cat
	}
	maxPasses := proc.PassCounts()
	for _, a := range sortedAgents(proc) {
		names := map[string]bool{}
		// Every planned pass requests something, so the first empty pass past the recorded ones
		// ends the plan; the bound only guards against a Counters that never says so.
		for pass := 0; pass < 4096; pass++ {
			req := cs.Requested(a.Index, pass)
			if len(req) == 0 && pass >= maxPasses[a.ID] {
				break
			}
			for _, n := range req {
				names[n] = true
			}
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			id := uint64(len(cat.entries) + 1)
			cat.ids[catalogKey{a.ID, n}] = id
			info := cs.Describe(a.Index, n)
			info.Name = n
			cat.entries = append(cat.entries, catalogEntry{id: id, agentID: a.ID, info: info})
		}
	}
	cat.numberDimensions()
	return cat
}

// numberDimensions gives each distinct (name, size) pair an id, in name then size order.
func (c *catalog) numberDimensions() {
	seen := map[Dimension]bool{}
	for _, e := range c.entries {
		for _, d := range e.info.Dimensions {
			seen[d] = true
		}
	}
	all := make([]Dimension, 0, len(seen))
	for d := range seen {
		all = append(all, d)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Name != all[j].Name {
			return all[i].Name < all[j].Name
		}
		return all[i].Size < all[j].Size
	})
	ids := map[Dimension]int{}
	for i, d := range all {
		ids[d] = i
		c.dims = append(c.dims, dimensionID{i, d})
	}
	for i := range c.entries {
		e := &c.entries[i]
		e.dimIDs = []int{}
		for _, d := range e.info.Dimensions {
			e.dimIDs = append(e.dimIDs, ids[d])
		}
	}
}

func sortedAgents(proc *records.Process) []contract.Agent {
	as := append([]contract.Agent(nil), proc.Agents...)
	sort.Slice(as, func(i, j int) bool { return as[i].ID < as[j].ID })
	return as
}
