package merge

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
)

// head is one process of one input, everything but its dispatches, and what the check of its
// dispatches found (check.go). Its ids are the input's.
type head struct {
	input string        // the input file
	src   source        // how its dispatches are read again
	read  *atomic.Int64 // the bytes read of the inputs, for the progress line; nil for none

	header     contract.Header
	end        *contract.End // nil when the process did not end normally
	truncated  bool
	declines   []contract.Decline
	warnings   []string
	fatals     []string
	problems   []string
	plan       json.RawMessage // metadata.gorocprof_plan; nil when absent
	planAgents []contract.PlanAgent
	// interval is metadata.gorocprof.pmc_group_interval: > 0 for a run that rotated its groups,
	// whose rotation and passOf (the pass of each group, by agent handle) prepare sets.
	interval    int
	rotation    *output.Rotation
	passOf      map[uint64]map[int]int
	kernelTrace bool
	agents      []contract.Agent
	counters    map[uint64]inCounter // by the input's counter id
	kernels     []contract.Kernel

	// found by the check of the dispatches; checked when the heads pass did it (early.go)
	checked        bool
	recordBytes    int64                      // the bytes of its record arrays, which the check reads when not checked
	requested      map[[2]int]map[string]bool // counter names by (agent index, pass)
	maxDispatch    uint64
	maxCorrelation uint64
	maxKernel      uint64
	// pass records a merged output can hold: with the kernel trace every one, else those with counters
	// (results.json has no counter record without a counter, as the tool writes none)
	passes int
	cs     *inputCounters
}

// inCounter is one counter of the input's catalog.
type inCounter struct {
	agentID uint64
	info    counters.CounterInfo
}

// source reads the dispatch passes of one process of an input again, in their order, each with
// its counters by name and its Passes set; d is valid during the call only.
type source interface {
	each(h *head, fn func(d *contract.Dispatch) error) error
}

// traceSource is a source that also holds the process's trace lines (docs/tracing.md): traces
// hands fn each of them, in any order (the records builder sorts them), t valid only during the
// call.
type traceSource interface {
	traces(h *head, fn func(t *contract.Trace) error) error
}

// metadata is results.json's metadata object (the database's process extdata is the same object
// with kernel_trace added).
type metadata struct {
	PID       int64    `json:"pid"`
	PPID      int64    `json:"ppid"`
	InitTime  int64    `json:"init_time"`
	FiniTime  int64    `json:"fini_time"`
	Hostname  string   `json:"hostname"`
	Command   []string `json:"command"`
	Gorocprof *struct {
		ContractVersion int                `json:"contract_version"`
		Backend         string             `json:"backend"`
		Ended           bool               `json:"ended"`
		Truncated       bool               `json:"truncated"`
		Declines        []contract.Decline `json:"declines"`
		Warnings        []string           `json:"warnings"`
		Fatals          []string           `json:"fatals"`
		Problems        []string           `json:"problems"`
		Dispatches      uint64             `json:"dispatches"`
		Replayed        uint64             `json:"replayed"`
		Declined        uint64             `json:"declined"`
		GroupInterval   int                `json:"pmc_group_interval"`
	} `json:"gorocprof"`
	Plan        json.RawMessage `json:"gorocprof_plan"`
	KernelTrace *bool           `json:"kernel_trace"`
}

var errNotGorocprof = errors.New("not written by gorocprof: its metadata has no gorocprof object (contract_version, backend, ...)")

// apply fills h's header and run facts from the metadata.
func (m *metadata) apply(h *head) error {
	g := m.Gorocprof
	if g == nil {
		return errNotGorocprof
	}
	if g.ContractVersion != contract.Version {
		return fmt.Errorf("contract version %d, this gorocprof reads version %d", g.ContractVersion, contract.Version)
	}
	h.header = contract.Header{Version: g.ContractVersion, PID: m.PID, PPID: m.PPID, Backend: g.Backend,
		Hostname: m.Hostname, InitTime: m.InitTime, Cmdline: m.Command}
	if g.Ended {
		h.end = &contract.End{FiniTime: m.FiniTime, Dispatches: g.Dispatches, Replayed: g.Replayed, Declined: g.Declined}
	}
	h.truncated = g.Truncated
	h.declines, h.warnings, h.fatals, h.problems = g.Declines, g.Warnings, g.Fatals, g.Problems
	if len(m.Plan) > 0 && string(m.Plan) != "null" {
		h.plan = m.Plan
	}
	if g.GroupInterval < 0 {
		return fmt.Errorf("metadata.gorocprof.pmc_group_interval %d is not a number of dispatches", g.GroupInterval)
	}
	h.interval = g.GroupInterval
	return nil
}

// prepare reads the process's plan and, for a run that rotated its groups, the rotation: which
// pass of its agent each group is, for the records that name their group (pmc_group).
func (h *head) prepare() error {
	h.planAgents, h.rotation, h.passOf = nil, nil, nil
	if h.plan != nil {
		var plan []struct {
			AgentIndex int    `json:"agent_index"`
			AgentName  string `json:"agent_name"`
			Passes     []struct {
				Group    int      `json:"group"`
				Counters []string `json:"counters"`
			} `json:"passes"`
		}
		if err := json.Unmarshal(h.plan, &plan); err != nil {
			return fmt.Errorf("metadata.gorocprof_plan: %w", err)
		}
		for _, a := range plan {
			pa := contract.PlanAgent{Index: a.AgentIndex, Name: a.AgentName}
			for _, p := range a.Passes {
				pa.Passes = append(pa.Passes, contract.PlanPass{Group: p.Group, Requested: p.Counters})
			}
			h.planAgents = append(h.planAgents, pa)
		}
	}
	if h.interval == 0 {
		return nil
	}
	if h.plan == nil {
		return errors.New("metadata.gorocprof.pmc_group_interval without metadata.gorocprof_plan: the groups of the rotation are unknown")
	}
	h.rotation = &output.Rotation{Interval: h.interval, Plan: h.planAgents}
	h.passOf = map[uint64]map[int]int{}
	for _, a := range h.agents {
		for _, pa := range h.planAgents {
			if pa.Index != a.Index {
				continue
			}
			groups := map[int]int{}
			for i, p := range pa.Passes {
				groups[p.Group] = i
			}
			h.passOf[a.ID] = groups
		}
	}
	return nil
}

// rotatedPass sets the pass of a record that names its group (pmc_group) under rotation: the pass
// of the agent's plan that collected the group, of as many passes as the agent has, as the tool
// records a rotated dispatch.
func (h *head) rotatedPass(d *contract.Dispatch, group *int) error {
	if group == nil {
		return nil
	}
	if h.passOf == nil {
		return fmt.Errorf("dispatch %d: pmc_group %d, but the metadata has no pmc_group_interval: only a rotation run's records name a group", d.DispatchID, *group)
	}
	pass, ok := h.passOf[d.AgentID][*group]
	if !ok {
		return fmt.Errorf("dispatch %d: pmc_group %d is not a group the plan gives agent %d", d.DispatchID, *group, d.AgentID)
	}
	d.Pass, d.Passes = pass, len(h.passOf[d.AgentID])
	return nil
}

// name is how messages name the process: its input, pid and host.
func (h *head) name() string {
	return fmt.Sprintf("%s (process %d, host %q)", h.input, h.header.PID, h.header.Hostname)
}

// agent returns the agent with the input's id.
func (h *head) agent(id uint64) (*contract.Agent, bool) {
	for i := range h.agents {
		if h.agents[i].ID == id {
			return &h.agents[i], true
		}
	}
	return nil, false
}
