package merge

import (
	"maps"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// build reads one process of an input back into records, its ids shifted, through the records
// builder: its dispatches go to a spool on disk, as a record file's do, so that memory follows the
// process's agents and kernels, not its dispatches.
func build(h *head, s shift) (*records.Process, error) {
	b := records.NewBuilder(h.input)
	header := h.header
	b.Add(records.Record{Type: contract.RecHeader, Header: &header})
	for _, a := range h.agents {
		a.Props = maps.Clone(a.Props)
		ids := s.agents[a.ID]
		a.ID = ids.handle
		a.Props["node_id"] = int64(ids.node)
		b.Add(records.Record{Type: contract.RecAgent, Agent: &a})
	}
	for _, k := range h.kernels {
		k.KernelID = s.id(k.KernelID, s.kernel)
		if a, ok := s.agents[k.AgentID]; ok {
			k.AgentID = a.handle
		}
		b.Add(records.Record{Type: contract.RecKernel, Kernel: &k})
	}
	for _, d := range h.declines {
		d.DispatchID = s.id(d.DispatchID, s.dispatch)
		b.Add(records.Record{Type: contract.RecDecline, Decline: &d})
	}
	for _, w := range h.warnings {
		b.Add(records.Record{Type: contract.RecWarning, Message: &contract.Message{Message: w}})
	}
	for _, f := range h.fatals {
		b.Add(records.Record{Type: contract.RecFatal, Message: &contract.Message{Message: f}})
	}
	err := h.src.each(h, func(d *contract.Dispatch) error {
		s.apply(d)
		b.Add(records.Record{Type: contract.RecDispatch, Dispatch: d})
		return nil
	})
	if ts, ok := h.src.(traceSource); ok && err == nil {
		err = ts.traces(h, func(t *contract.Trace) error {
			s.applyTrace(t)
			b.Add(records.Record{Type: t.Kind, Trace: t})
			return nil
		})
	}
	if h.end != nil {
		end := *h.end
		b.Add(records.Record{Type: contract.RecEnd, End: &end})
	}
	p, ferr := b.Finish()
	if err != nil {
		if p != nil {
			p.Close()
		}
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	// What the input says of its process stands: the builder's own findings would be about the
	// records read back, not about the run.
	p.Problems, p.Truncated = h.problems, h.truncated
	return p, nil
}
