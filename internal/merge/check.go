package merge

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// maxPasses bounds a pass index, as the output's counter catalog bounds the passes it looks at: no
// plan has that many, and the records builder spends time on every pass below a dispatch's count.
const maxPasses = 4096

// check reads every dispatch pass of the process once, before anything is written: each in
// dispatch and pass order, on an agent and a kernel the process lists. On the way it notes what
// the write needs: the counters of each (agent, pass) and the largest ids. The heads pass has
// done the reading already for most elements without the kernel trace (early.go).
func (h *head) check() error {
	for _, k := range h.kernels {
		h.maxKernel = max(h.maxKernel, k.KernelID)
		if _, ok := h.agent(k.AgentID); !ok && k.AgentID != 0 {
			return fmt.Errorf("kernel %d names agent %d, which the process does not list", k.KernelID, k.AgentID)
		}
	}
	agents := map[uint64]bool{}
	for _, a := range h.agents {
		if agents[a.ID] {
			return fmt.Errorf("agent %d listed twice", a.ID)
		}
		agents[a.ID] = true
	}
	if !h.checked {
		if err := h.src.each(h, h.passCheck()); err != nil {
			return err
		}
	}
	return h.traceCheck()
}

// traceCheck takes the trace lines' correlation ids into the largest one, which the next process's
// ids are shifted past, so that a call and the dispatches and copies it issued keep one id that
// no other process's call has.
func (h *head) traceCheck() error {
	ts, ok := h.src.(traceSource)
	if !ok {
		return nil
	}
	return ts.traces(h, func(t *contract.Trace) error {
		h.maxCorrelation = max(h.maxCorrelation, t.CorrelationID)
		return nil
	})
}

// passCheck returns the check of each pass, in the order the source gives them; it starts what the
// check notes afresh.
func (h *head) passCheck() func(d *contract.Dispatch) error {
	kernels := map[uint64]bool{}
	for _, k := range h.kernels {
		kernels[k.KernelID] = true
	}
	h.requested = map[[2]int]map[string]bool{}
	h.maxDispatch, h.maxCorrelation, h.passes = 0, 0, 0
	var prev *contract.Dispatch
	var last contract.Dispatch
	return func(d *contract.Dispatch) error {
		if prev != nil && !before(prev, d) {
			return fmt.Errorf("dispatch %d pass %d comes after dispatch %d pass %d: the records are not in dispatch and pass order",
				d.DispatchID, d.Pass, prev.DispatchID, prev.Pass)
		}
		if d.Pass < 0 || d.Pass >= maxPasses {
			return fmt.Errorf("dispatch %d: replay_pass %d is not a pass index (0 to %d)", d.DispatchID, d.Pass, maxPasses-1)
		}
		last = contract.Dispatch{DispatchID: d.DispatchID, Pass: d.Pass}
		prev = &last
		a, ok := h.agent(d.AgentID)
		if !ok {
			return fmt.Errorf("dispatch %d pass %d names agent %d, which the process does not list", d.DispatchID, d.Pass, d.AgentID)
		}
		if !kernels[d.KernelID] {
			return fmt.Errorf("dispatch %d pass %d names kernel %d, which the process does not list", d.DispatchID, d.Pass, d.KernelID)
		}
		if len(d.Counters) > 0 {
			key := [2]int{a.Index, d.Pass}
			if h.requested[key] == nil {
				h.requested[key] = map[string]bool{}
			}
			for _, c := range d.Counters {
				h.requested[key][c.Name] = true
			}
		}
		h.maxDispatch = max(h.maxDispatch, d.DispatchID)
		h.maxCorrelation = max(h.maxCorrelation, d.CorrelationID)
		if h.kernelTrace || len(d.Counters) > 0 {
			h.passes++
		}
		return nil
	}
}

// inputCounters is what the output needs of a process's counters, from its input: each (agent,
// pass) requests the counters its passes carry, described as the input describes them. Every value
// is taken as recorded; none is evaluated again.
type inputCounters struct {
	requested map[[2]int][]string
	info      map[int]map[string]counters.CounterInfo // by agent index, then name
}

// newInputCounters takes the requests from the process's plan (results.json's gorocprof_plan), so
// that an agent without dispatches lists its counters as the input does; without a plan, from the
// counters the passes carry.
func newInputCounters(h *head) (*inputCounters, error) {
	cs := &inputCounters{requested: map[[2]int][]string{}, info: map[int]map[string]counters.CounterInfo{}}
	if h.plan != nil {
		for _, a := range h.planAgents {
			for i, p := range a.Passes {
				cs.requested[[2]int{a.Index, i}] = p.Requested
			}
		}
	} else {
		for key, names := range h.requested {
			cs.requested[key] = slices.Sorted(maps.Keys(names))
		}
	}
	for _, c := range h.counters {
		a, ok := h.agent(c.agentID)
		if !ok {
			continue
		}
		if cs.info[a.Index] == nil {
			cs.info[a.Index] = map[string]counters.CounterInfo{}
		}
		cs.info[a.Index][c.info.Name] = c.info
	}
	return cs, nil
}

func (cs *inputCounters) Requested(agentIndex, pass int) []string {
	return cs.requested[[2]int{agentIndex, pass}]
}

func (cs *inputCounters) Describe(agentIndex int, name string) counters.CounterInfo {
	return cs.info[agentIndex][name]
}

func (cs *inputCounters) Evaluate(_ int, name string, _ map[string][]float64) ([]float64, error) {
	return nil, fmt.Errorf("the input has no value of %s for this pass", name)
}
