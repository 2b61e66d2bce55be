package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/backend/helper"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// Session is what a run knows before launch: the backend, its agents and their counter catalogs.
type Session struct {
	Backend backend.Backend
	Agents  []contract.Agent
	Targets []counters.Target
}

// OpenSession chooses the backend (resolving auto against the application, when one is given), asks
// it for the agents and builds each agent's catalog.
func OpenSession(ctx context.Context, choose backend.Chooser, c backend.Choice, app string) (*Session, error) {
	began := time.Now()
	b, err := choose(ctx, c, app)
	if err != nil {
		return nil, err
	}
	list, err := b.Agents(ctx)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("backend %s reports no agents", b.Name())
	}
	tracePhase("backend and agents", began)
	began = time.Now()
	s, err := newSession(ctx, b, list)
	if err != nil {
		return nil, err
	}
	tracePhase("counter catalogs", began)
	return s, nil
}

// newSession builds the counter catalog of each of the backend's agents.
func newSession(ctx context.Context, b backend.Backend, list []contract.Agent) (*Session, error) {
	s := &Session{Backend: b, Agents: list}
	for _, a := range list {
		cat, err := b.Catalog(ctx, a)
		if err != nil {
			return nil, err
		}
		s.Targets = append(s.Targets, counters.Target{Index: a.Index, Name: a.Name, Catalog: cat, Consts: counters.ConstsFromProps(a.Props)})
	}
	return s, nil
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

// Plan plans the groups onto the session's agents.
func (s *Session) Plan(groups []counters.Group) (*counters.Plan, error) {
	return counters.NewPlan(groups, s.Targets)
}

// WithExtra is the session with extra counter definitions (-E) merged into every agent's catalog,
// or the session itself without any. The session's own catalogs are not changed (a sweep's sessions
// serve every job, each with its own -E).
func (s *Session) WithExtra(e *counters.Extra) (*Session, error) {
	if e == nil {
		return s, nil
	}
	out := &Session{Backend: s.Backend, Agents: s.Agents, Targets: slices.Clone(s.Targets)}
	for i, t := range out.Targets {
		cat, err := t.Catalog.WithExtra(e)
		if err != nil {
			return nil, err // it names the file, the line and the agent's architecture
		}
		out.Targets[i].Catalog = cat
	}
	return out, nil
}
