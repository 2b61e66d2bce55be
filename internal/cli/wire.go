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
	f.Prepare = replay.NewPreparer()
	f.Runner = replay.Run
	f.Comparer = replay.Compare
	f.Processor = replay.Process
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
		out = append(out, AgentCounters{Agent: sess.Agent(t.Index, t.Name), Counters: t.Catalog.ListFor(t.Consts)})
	}
	return out, nil
}

// planFromSession plans the groups on the backend's agents: the plan a run with these groups would
// carry in results.json.
func planFromSession(ctx context.Context, backend string, groups []counters.Group) ([]contract.PlanAgent, error) {
	sess, err := replay.OpenSession(ctx, backend, "")
	if err != nil {
		return nil, err
	}
	plan, err := sess.Plan(groups)
	if err != nil {
		return nil, err
	}
	return plan.Agents, nil
}
