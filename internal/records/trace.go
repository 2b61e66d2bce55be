package records

import (
	"slices"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// EachTrace hands fn every trace line of the process (docs/tracing.md) in output order: by start
// time, then thread, then correlation id, then file order. The record is valid only during the call.
func (p *Process) EachTrace(fn func(*contract.Trace) error) error {
	idx := make([]int, 0, p.traceCount)
	for i := range p.kept {
		if p.kept[i].Trace != nil {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := p.kept[idx[a]].Trace, p.kept[idx[b]].Trace
		if x.Start != y.Start {
			return x.Start < y.Start
		}
		if x.ThreadID != y.ThreadID {
			return x.ThreadID < y.ThreadID
		}
		return x.CorrelationID < y.CorrelationID
	})
	for _, i := range idx {
		if err := fn(p.kept[i].Trace); err != nil {
			return err
		}
	}
	return nil
}

// TraceCount is the number of trace lines of the process.
func (p *Process) TraceCount() int { return p.traceCount }

// TracedDomains are the domains the process's trace lines name, sorted.
func (p *Process) TracedDomains() []string {
	var ds []string
	for i := range p.kept {
		if t := p.kept[i].Trace; t != nil {
			if d := t.TraceDomain(); !slices.Contains(ds, d) {
				ds = append(ds, d)
			}
		}
	}
	slices.Sort(ds)
	return ds
}
