package output

import (
	"fmt"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
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

// CounterInfo is one counter as the catalog describes it.
type CounterInfo struct {
	Name, Description, Block, Expression string
	Derived                              bool
	Dimensions                           []Dimension
}

// Dimension is one axis of a counter's hardware instances.
type Dimension struct {
	Name string
	Size int
}

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
	if cs == nil || len(d.Counters) == 0 {
		return nil, nil
	}
	base := make(map[string][]float64, len(d.Counters))
	for _, c := range d.Counters {
		vals := make([]float64, len(c.Values))
		for i, v := range c.Values {
			if v != nil {
				vals[i] = *v
			}
		}
		base[c.Name] = vals
	}
	names := append([]string(nil), cs.Requested(agentIndex, d.Pass)...)
	sort.Strings(names)
	out := make([]counterValues, 0, len(names))
	var errs []error
	for i, name := range names {
		if i > 0 && names[i-1] == name {
			continue
		}
		if vals, ok := base[name]; ok {
			out = append(out, counterValues{name, vals})
			continue
		}
		vals, err := cs.Evaluate(agentIndex, name, base)
		if err != nil {
			errs = append(errs, fmt.Errorf("dispatch %d pass %d: counter %s: %w", d.DispatchID, d.Pass, name, err))
			continue
		}
		out = append(out, counterValues{name, vals})
	}
	return out, errs
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
	maxPasses := map[uint64]int{}
	for _, d := range proc.Dispatches {
		maxPasses[d.AgentID] = max(maxPasses[d.AgentID], d.Passes)
	}
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
		for _, n := range sortedKeys(names) {
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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
