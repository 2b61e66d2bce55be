package counters

import (
	"slices"
	"strings"
)

// Scope is what planning a run will ask of one agent's catalog: the counters its groups name for that
// agent, and each group's set of them, whose pass count the planner asks first. A backend whose whole
// catalog is expensive to build (an H200 lists 150,179 metrics) can build one of these names alone.
type Scope struct {
	Names []string   // sorted, each once
	Sets  [][]string // one per group that names a counter for the agent, each sorted, in group order
}

// ScopeOf is the scope of groups on the agent of index agent: the counters without a device and those
// qualified with that agent's.
func ScopeOf(groups []Group, agent int) *Scope {
	s := &Scope{Names: []string{}}
	for _, g := range groups {
		var set []string
		for _, r := range g.Counters {
			if r.Device != nil && *r.Device != agent {
				continue
			}
			set = append(set, r.Name)
		}
		if len(set) == 0 {
			continue
		}
		slices.Sort(set)
		set = slices.Compact(set)
		s.Sets = append(s.Sets, set)
		s.Names = append(s.Names, set...)
	}
	slices.Sort(s.Names)
	s.Names = slices.Compact(s.Names)
	return s
}

// CommonScope is the scope every agent has for groups: nil when a counter is qualified with a device
// (agents' scopes then differ) or when the groups name no counter.
func CommonScope(groups []Group) *Scope {
	for _, g := range groups {
		for _, r := range g.Counters {
			if r.Device != nil {
				return nil
			}
		}
	}
	if s := ScopeOf(groups, 0); len(s.Names) > 0 {
		return s
	}
	return nil
}

// Key names the scope in one string (for memos): its names and sets.
func (s *Scope) Key() string {
	if s == nil {
		return "*"
	}
	var b strings.Builder
	b.WriteString(strings.Join(s.Names, ","))
	for _, set := range s.Sets {
		b.WriteByte(';')
		b.WriteString(strings.Join(set, ","))
	}
	return b.String()
}
