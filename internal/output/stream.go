package output

import (
	"errors"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// A Sink is one view of a process's stream of evaluated dispatches: a file format, the summary
// table, compare's statistics. A new output format is one more Sink.
type Sink interface {
	// Begin opens one process: everything its records say except the dispatches.
	Begin(p *Process) error
	// Dispatch takes one logical dispatch of the process, in dispatch id order. d and what it
	// points to are valid only during the call.
	Dispatch(d *Dispatch) error
	// End closes the process. failed is nil when every dispatch went by; otherwise the stream
	// stopped early and the sink releases what Begin took. End returns what failed, failed itself
	// included.
	End(failed error) error
}

// A TraceSink is a Sink that also takes the process's trace lines (docs/tracing.md): after its
// last dispatch and before End, in records.Process.EachTrace's order. t is valid only during the
// call. A Sink that is not a TraceSink never sees them.
type TraceSink interface {
	Trace(t *contract.Trace) error
}

// Process is one process as its sinks see it before the dispatches: its records (header, agents,
// kernels, messages, totals) and the counters the plan requested of it, numbered as results.json
// numbers them.
type Process struct {
	*records.Process
	Counters Counters // nil when nothing was counted
	// Plan is the plan results.json's metadata and the database carry for this process
	// (gorocprof_plan); nil gives the Options' PlanMetadata. A merge of several runs' processes
	// gives each its own.
	Plan any
	// Rotation is the process's rotation of groups over its dispatches; nil gives the Options'.
	// A merge gives each process the rotation its input says it ran with.
	Rotation *Rotation
	catalog  *catalog
}

// Dispatch is one logical dispatch with every pass evaluated.
type Dispatch struct {
	ID     uint64
	Passes []Pass // by pass index
}

// Pass is one recorded pass of a dispatch and the counters the plan requested of it.
type Pass struct {
	Record *contract.Dispatch
	Agent  *contract.Agent // the pass's agent; nil when the records define none with its id
	// Counters are the pass's requested counters by name: recorded ones as recorded (an undelivered
	// value as 0), derived ones evaluated from the pass's base values. None when the agent is
	// unknown or the pass recorded no counter.
	Counters []PassCounter
	Errs     []error // the requested counters that could not be evaluated
}

// PassCounter is one requested counter of one pass, one value per hardware instance.
type PassCounter struct {
	Name      string
	Values    []float64
	ID        uint64 // results.json's counter id; 0 when the process's catalog has none
	Evaluated bool   // computed from base values, not recorded
}

// Stream hands one process to every sink: Begin, each logical dispatch once with its derived
// counters evaluated once, then End. The dispatches are read once (records.Process.EachLogical),
// whatever the number of sinks. Every sink that was begun is ended, with the first failure.
func Stream(proc *records.Process, cs Counters, sinks ...Sink) error {
	return StreamPlanned(proc, cs, nil, nil, sinks...)
}

// StreamPlanned is Stream of a process that carries its own plan and rotation (Process.Plan and
// Process.Rotation).
func StreamPlanned(proc *records.Process, cs Counters, plan any, rot *Rotation, sinks ...Sink) error {
	p := &Process{Process: proc, Counters: cs, Plan: plan, Rotation: rot, catalog: buildCatalog(proc, cs)}
	begun := 0
	var err error
	for _, s := range sinks {
		begun++
		if err = s.Begin(p); err != nil {
			break
		}
	}
	if err == nil {
		st := streamer{p: p, agents: map[uint64]*contract.Agent{}}
		for i := range proc.Agents {
			st.agents[proc.Agents[i].ID] = &proc.Agents[i]
		}
		err = proc.EachLogical(func(l records.Logical) error {
			d := st.evaluate(l)
			for _, s := range sinks {
				if err := s.Dispatch(d); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err == nil && proc.TraceCount() > 0 {
		err = streamTraces(proc, sinks)
	}
	var errs []error
	if err != nil {
		errs = append(errs, err)
	}
	for _, s := range sinks[:begun] {
		if e := s.End(err); e != nil && !errors.Is(e, err) {
			errs = append(errs, e)
		}
	}
	if err == nil && len(errs) > 0 {
		return errs[0]
	}
	return err
}

// streamer evaluates logical dispatches into storage reused from one to the next: one evaluator
// per pass position, so every pass of a dispatch stays valid while the sinks look at it.
type streamer struct {
	p      *Process
	agents map[uint64]*contract.Agent
	evals  []evaluator
	d      Dispatch
	cvs    [][]PassCounter
}

func (st *streamer) evaluate(l records.Logical) *Dispatch {
	st.d.ID, st.d.Passes = l.ID, st.d.Passes[:0]
	for i, rec := range l.Passes {
		if i == len(st.evals) {
			st.evals = append(st.evals, evaluator{cs: st.p.Counters})
			st.cvs = append(st.cvs, nil)
		}
		pass := Pass{Record: rec, Agent: st.agents[rec.AgentID]}
		if pass.Agent != nil {
			cvs, errs := st.evals[i].pass(pass.Agent.Index, rec)
			out := st.cvs[i][:0]
			for k, c := range cvs {
				id := st.p.catalog.ids[catalogKey{rec.AgentID, c.Name}]
				out = append(out, PassCounter{Name: c.Name, Values: c.Values, ID: id, Evaluated: st.evals[i].evaluated[k]})
			}
			st.cvs[i] = out
			pass.Counters, pass.Errs = out, errs
		}
		st.d.Passes = append(st.d.Passes, pass)
	}
	return &st.d
}

// CatalogCounter is one counter of a process's catalog: the id results.json gives it (and every
// PassCounter of it carries), its agent and what the catalog says of it.
type CatalogCounter struct {
	ID      uint64
	AgentID uint64
	Info    CounterInfo
}

// Catalog lists the process's requested counters, by agent id and then name, numbered from 1.
func (p *Process) Catalog() []CatalogCounter {
	out := make([]CatalogCounter, 0, len(p.catalog.entries))
	for _, e := range p.catalog.entries {
		out = append(out, CatalogCounter{ID: e.id, AgentID: e.agentID, Info: e.info})
	}
	return out
}

// streamTraces hands the process's trace lines to the sinks that take them.
func streamTraces(proc *records.Process, sinks []Sink) error {
	var ts []TraceSink
	for _, s := range sinks {
		if t, ok := s.(TraceSink); ok {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return nil
	}
	return proc.EachTrace(func(t *contract.Trace) error {
		for _, s := range ts {
			if err := s.Trace(t); err != nil {
				return err
			}
		}
		return nil
	})
}
