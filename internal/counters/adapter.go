package counters

import "fmt"

// The methods below are what the output writer needs from a plan. Agents are named by their index
// (the backend's device ordinal, contract.PlanAgent.Index), passes by their 0-based position.

// Requested returns the user counters reported on one pass of one agent, sorted; nil when the
// agent or pass is not in the plan.
func (p *Plan) Requested(agentIndex, pass int) []string {
	for _, a := range p.Agents {
		if a.Index == agentIndex && pass >= 0 && pass < len(a.Passes) {
			return append([]string(nil), a.Passes[pass].Requested...)
		}
	}
	return nil
}

// Describe returns the catalog facts of a counter on an agent; only Name is set when the agent or
// the counter is unknown.
func (p *Plan) Describe(agentIndex int, name string) CounterInfo {
	t, ok := p.targets[agentIndex]
	if !ok {
		return CounterInfo{Name: name}
	}
	info, _ := t.Catalog.Describe(name, t.Consts)
	return info
}

// Evaluate computes a base or derived counter of an agent from the base values of one pass.
func (p *Plan) Evaluate(agentIndex int, name string, base map[string][]float64) ([]float64, error) {
	t, ok := p.targets[agentIndex]
	if !ok {
		return nil, fmt.Errorf("evaluating %s: GPU %d is not in the plan", name, agentIndex)
	}
	return t.Catalog.Evaluate(name, base, t.Consts)
}
