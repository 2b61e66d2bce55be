package cli

import (
	"context"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// wire connects the command line to the packages that do the work. Everything here runs only when a
// command calls the corresponding Factory function.
func wire(f *Factory) {
	f.Runner = replay.Run
	f.Comparer = replay.Compare
	f.AvailData = availFromSession
	f.PlanData = planFromSession
}

// availFromSession asks the backend's query helper for its agents and lists each one's catalog with
// that agent's dimension sizes.
func availFromSession(ctx context.Context, backend string) ([]AgentCounters, error) {
	sess, err := replay.OpenSession(ctx, backend, "")
	if err != nil {
		return nil, err
	}
	out := make([]AgentCounters, 0, len(sess.Targets))
	for _, t := range sess.Targets {
		out = append(out, AgentCounters{Agent: agentByIndex(sess.Agents, t.Index, t.Name), Counters: t.Catalog.ListFor(t.Consts)})
	}
	return out, nil
}

// planFromSession plans the groups on the backend's agents and keeps what the plan command shows.
func planFromSession(ctx context.Context, backend string, groups []counters.Group) ([]AgentPlan, error) {
	sess, err := replay.OpenSession(ctx, backend, "")
	if err != nil {
		return nil, err
	}
	plan, err := sess.Plan(groups)
	if err != nil {
		return nil, err
	}
	out := make([]AgentPlan, 0, len(plan.Agents))
	for _, a := range plan.Agents {
		v := AgentPlan{Agent: agentByIndex(sess.Agents, a.Index, a.Name)}
		for _, p := range a.Passes {
			pass := PlannedPass{Group: p.Group, Counters: p.Requested}
			for _, b := range p.Base {
				pass.Hardware = append(pass.Hardware, b.Name)
			}
			v.Passes = append(v.Passes, pass)
		}
		for _, n := range a.Notes {
			v.Notes = append(v.Notes, n.Message)
		}
		out = append(out, v)
	}
	return out, nil
}

func agentByIndex(list []contract.Agent, index int, name string) contract.Agent {
	for _, a := range list {
		if a.Index == index {
			return a
		}
	}
	return contract.Agent{Index: index, Name: name}
}
