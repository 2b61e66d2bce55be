package counters

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// Target is one agent to plan for: its index (the backend's device ordinal), its number in the files
// (contract.Agent.LogicalNodeID), its name, its counter catalog and its constants (agent
// properties, for derived counters and dimension sizes).
type Target struct {
	Index   int
	Number  int64
	Name    string
	Catalog *Catalog
	Consts  map[string]float64
}

// ConstsFromProps turns an agent's integer properties into the constants expressions use.
func ConstsFromProps(props map[string]int64) map[string]float64 {
	out := make(map[string]float64, len(props))
	for k, v := range props {
		out[strings.ToLower(k)] = float64(v)
	}
	return out
}

// Plan is the planner's answer for every agent, ordered by agent index, with the catalogs it was
// planned on (for the counters' descriptions and derived expressions).
type Plan struct {
	Agents  []contract.PlanAgent
	targets map[int]Target
}

// NewPlan turns user groups into per-agent passes. On each agent a group keeps the counters the agent
// has (a note says what it lacks; a group with none is dropped there) and is split into the fewest
// passes its hardware allows. A counter no agent offers is an error that suggests near names.
func NewPlan(groups []Group, agents []Target) (*Plan, error) {
	targets := append([]Target(nil), agents...)
	sort.SliceStable(targets, func(i, j int) bool { return targets[i].Index < targets[j].Index })
	if err := checkRequest(groups, targets); err != nil {
		return nil, err
	}
	p := &Plan{Agents: []contract.PlanAgent{}, targets: map[int]Target{}}
	for _, t := range targets {
		if _, dup := p.targets[t.Index]; dup {
			return nil, fmt.Errorf("planning: two agents with index %d", t.Index)
		}
		p.targets[t.Index] = t
		ap, err := planAgent(groups, t)
		if err != nil {
			return nil, err
		}
		p.Agents = append(p.Agents, ap)
	}
	return p, nil
}

func checkRequest(groups []Group, targets []Target) error {
	indices := map[int]bool{}
	for _, t := range targets {
		if t.Catalog == nil {
			return fmt.Errorf("planning: %s has no counter catalog", t.label())
		}
		indices[t.Index] = true
	}
	// Every name the agents know, for suggestions: gathered only when a name is unknown (an H200
	// knows 150,179).
	var known []string
	knownNames := func() []string {
		if known == nil {
			for _, t := range targets {
				known = append(known, t.Catalog.Names()...)
			}
		}
		return known
	}
	var problems []string
	reported := map[string]bool{}
	for gi, g := range groups {
		for _, r := range g.Counters {
			if r.Device != nil && !indices[*r.Device] {
				problems = append(problems, fmt.Sprintf("--pmc group %d: %s: there is no GPU %d (agents: %s)",
					gi+1, r, *r.Device, indexList(targets)))
				continue
			}
			if reported[r.Name] || offered(r.Name, targets) {
				continue
			}
			reported[r.Name] = true
			problems = append(problems, unknownCounter(r.Name, targets, knownNames()))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}

func offered(name string, targets []Target) bool {
	for _, t := range targets {
		if t.Catalog.Has(name) {
			return true
		}
	}
	return false
}

func unknownCounter(name string, targets []Target, known []string) string {
	for _, t := range targets {
		for _, u := range t.Catalog.Unsupported {
			if u.Name == name {
				return fmt.Sprintf("counter %s cannot be collected on %s: %s", name, t.Name, u.Reason)
			}
		}
	}
	msg := fmt.Sprintf("unknown counter %s", name)
	if len(targets) == 0 {
		return msg + ": there is no agent to collect counters on"
	}
	if s := suggest(name, known, 3); len(s) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, ", "))
	}
	return msg
}

// indexList lists the agents by their labels, which hold the GPU number :device=N takes.
func indexList(targets []Target) string {
	if len(targets) == 0 {
		return "none"
	}
	parts := make([]string, len(targets))
	for i, t := range targets {
		parts[i] = t.label()
	}
	return strings.Join(parts, ", ")
}

// label names the agent as messages do (contract.AgentLabel).
func (t Target) label() string { return contract.AgentLabel(t.Number, int64(t.Index), t.Name) }

func planAgent(groups []Group, t Target) (contract.PlanAgent, error) {
	ap := contract.PlanAgent{Index: t.Index, Number: t.Number, Name: t.Name, Passes: []contract.PlanPass{}}
	for gi, g := range groups {
		var have, missing []string
		seen := map[string]bool{}
		for _, r := range g.Counters {
			if (r.Device != nil && *r.Device != t.Index) || seen[r.Name] {
				continue
			}
			seen[r.Name] = true
			if t.Catalog.Has(r.Name) {
				have = append(have, r.Name)
			} else {
				missing = append(missing, r.Name)
			}
		}
		sort.Strings(have)
		sort.Strings(missing)
		switch {
		case len(have) == 0 && len(missing) == 0:
			continue // every counter of the group is meant for other agents
		case len(have) == 0:
			ap.Notes = append(ap.Notes, contract.PlanNote{Kind: contract.NoteDropped, Group: gi, Counters: missing,
				Message: fmt.Sprintf("--pmc group %d is dropped on %s: it has none of %s",
					gi+1, t.label(), strings.Join(missing, ", "))})
			continue
		case len(missing) > 0:
			ap.Notes = append(ap.Notes, contract.PlanNote{Kind: contract.NotePartial, Group: gi, Counters: missing,
				Message: fmt.Sprintf("--pmc group %d on %s leaves out %s, which the agent lacks",
					gi+1, t.label(), strings.Join(missing, ", "))})
		}
		passes, err := pack(t.Catalog, have)
		if err != nil {
			return ap, fmt.Errorf("planning --pmc group %d on %s: %w", gi+1, t.label(), err)
		}
		if len(passes) > 1 {
			ap.Notes = append(ap.Notes, contract.PlanNote{Kind: contract.NoteSplit, Group: gi, Passes: len(passes),
				Message: fmt.Sprintf("--pmc group %d exceeds the counter registers of %s and is split into %d passes",
					gi+1, t.label(), len(passes))})
		}
		for _, b := range passes {
			ap.Passes = append(ap.Passes, b.pass(gi))
		}
	}
	return ap, nil
}
