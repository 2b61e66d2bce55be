package cli

import (
	"context"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// wire connects the command line to the packages that do the work. Everything here runs only when a
// command calls the corresponding Factory function.
func wire(f *Factory) {
	f.Backend = backend.Choose
	f.Prepare = replay.NewPreparer(f.Backend)
	f.Runner = replay.Run
	f.Comparer = replay.NewComparer(f.Prepare)
	f.Processor = replay.Process
	f.AvailData = func(ctx context.Context, c backend.Choice, extra *counters.Extra) ([]AgentCounters, error) {
		return availFromSession(ctx, f.Backend, c, extra)
	}
	f.PlanData = func(ctx context.Context, c backend.Choice, extra *counters.Extra, groups []counters.Group) ([]contract.PlanAgent, error) {
		return planFromSession(ctx, f.Backend, c, extra, groups)
	}
}

// availFromSession asks the backend for its agents and lists each one's catalog with that agent's
// dimension sizes.
func availFromSession(ctx context.Context, choose backend.Chooser, c backend.Choice, extra *counters.Extra) ([]AgentCounters, error) {
	sess, err := openSession(ctx, choose, c, extra)
	if err != nil {
		return nil, err
	}
	targets, err := sess.Catalogs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]AgentCounters, 0, len(targets))
	for _, t := range targets {
		out = append(out, AgentCounters{Agent: sess.Agent(t.Index, t.Name), Counters: t.Catalog.ListFor(t.Consts)})
	}
	return out, nil
}

// planFromSession plans the groups on the backend's agents: the plan a run with these groups would
// carry in results.json.
func planFromSession(ctx context.Context, choose backend.Chooser, c backend.Choice, extra *counters.Extra, groups []counters.Group) ([]contract.PlanAgent, error) {
	c.Ahead = counters.CommonScope(groups)
	sess, err := openSession(ctx, choose, c, extra)
	if err != nil {
		return nil, err
	}
	plan, err := sess.Plan(ctx, groups)
	if err != nil {
		return nil, err
	}
	return plan.Agents, nil
}

// openSession is the backend's session without an application, its catalogs with the extra counters.
func openSession(ctx context.Context, choose backend.Chooser, c backend.Choice, extra *counters.Extra) (*replay.Session, error) {
	sess, err := replay.OpenSession(ctx, choose, c, "")
	if err != nil {
		return nil, err
	}
	return sess.WithExtra(extra), nil
}
