package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// Session is what a run knows before launch: the backend and its agents. The agents' counter catalogs
// are built for what is asked of them: the whole ones (Catalogs) or those of a run's groups (Plan).
type Session struct {
	Backend backend.Backend
	Agents  []contract.Agent
	Extra   *counters.Extra // -E's definitions, merged into every catalog built (WithExtra)
}

// OpenSession chooses the backend (resolving auto against the application, when one is given) and asks
// it for the agents, announcing the scope the catalogs will be asked for next (c.Ahead).
func OpenSession(ctx context.Context, choose backend.Chooser, c backend.Choice, app string) (*Session, error) {
	began := time.Now()
	b, err := choose(ctx, c, app)
	if err != nil {
		return nil, err
	}
	list, err := b.Agents(ctx, c.Ahead)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend %s reports no agents", b.Name())
	}
	tracePhase("backend and agents", began)
	return &Session{Backend: b, Agents: list}, nil
}

// Catalogs are the agents' whole counter catalogs (avail).
func (s *Session) Catalogs(ctx context.Context) ([]counters.Target, error) {
	return s.targets(ctx, func(int) *counters.Scope { return nil })
}

// targets builds each agent's catalog for the scope scopeOf gives its index.
func (s *Session) targets(ctx context.Context, scopeOf func(agent int) *counters.Scope) ([]counters.Target, error) {
	began := time.Now()
	out := make([]counters.Target, 0, len(s.Agents))
	for _, a := range s.Agents {
		scope := scopeOf(a.Index)
		if s.Extra != nil {
			// The backend knows nothing of -E's counters: a catalog of the run's names alone would lack
			// them and the base counters their expressions name, so the whole one is built.
			scope = nil
		}
		cat, err := s.Backend.Catalog(ctx, a, scope)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.WithExtra(s.Extra); err != nil {
			return nil, err // it names the file, the line and the agent's architecture
		}
		out = append(out, counters.Target{Index: a.Index, Number: a.LogicalNodeID(), Name: a.Name, Catalog: cat, Consts: counters.ConstsFromProps(a.Props)})
	}
	tracePhase("counter catalogs", began)
	return out, nil
}

// processStart is when this package was initialised, close enough to the process's start to show what
// the time before planning (loading the binary, the runtime) costs.
var processStart = time.Now()

// traceOut is where planning phases are traced (stderr when helper.EnvTrace is 1); tests replace it.
var traceOut io.Writer = os.Stderr

// tracePhase prints, with GOROCPROF_QUERY_TRACE=1, how long a planning phase took: together with the
// helper calls the query package traces, where a run's time before launch goes.
func tracePhase(phase string, began time.Time) {
	if os.Getenv(helper.EnvTrace) == "1" {
		fmt.Fprintf(traceOut, "gorocprof: planning: %s: %d ms\n", phase, time.Since(began).Milliseconds())
	}
}

// Plan plans the groups onto the session's agents, on catalogs built for the groups' counters.
func (s *Session) Plan(ctx context.Context, groups []counters.Group) (*counters.Plan, error) {
	targets, err := s.targets(ctx, func(agent int) *counters.Scope { return counters.ScopeOf(groups, agent) })
	if err != nil {
		return nil, err
	}
	began := time.Now()
	plan, err := counters.NewPlan(groups, targets)
	if err == nil {
		tracePhase("passes", began)
	}
	return plan, err
}

// WithExtra is the session with extra counter definitions (-E) merged into every catalog it builds,
// or the session itself without any. The session itself is not changed (a sweep's sessions serve every
// job, each with its own -E).
func (s *Session) WithExtra(e *counters.Extra) *Session {
	if e == nil {
		return s
	}
	out := *s
	out.Extra = e
	return &out
}
