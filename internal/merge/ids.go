package merge

import (
	"fmt"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// The merged result keeps the ids of different processes apart, so that a dispatch, correlation,
// kernel or agent id names one thing in every file (docs/record-format.md, "Merged results"):
//   - dispatch, correlation and kernel ids of the k-th process (in merge order) are shifted by the
//     sum of the largest such ids of the processes before it, so the first keeps its own and the
//     ids stay contiguous where the inputs' were; 0 (none) stays 0;
//   - an agent is one physical device: the same host and the same device UUID, else the same PCI
//     bus id, else the same domain, location, node id and name. Processes that share a device share
//     its handle and node id (Agent_Id of the CSV files); the first process to list a device keeps
//     its ids when no other device has them yet, else the device takes the next unused one.

// shift is what one process's ids become.
type shift struct {
	dispatch, correlation, kernel uint64
	agents                        map[uint64]agentIDs // by the input's handle
}

type agentIDs struct {
	handle, node uint64
}

func (s shift) id(v, by uint64) uint64 {
	if v == 0 {
		return 0
	}
	return v + by
}

// dispatch shifts d's ids in place.
func (s shift) apply(d *contract.Dispatch) {
	d.DispatchID = s.id(d.DispatchID, s.dispatch)
	d.CorrelationID = s.id(d.CorrelationID, s.correlation)
	d.KernelID = s.id(d.KernelID, s.kernel)
	if a, ok := s.agents[d.AgentID]; ok {
		d.AgentID = a.handle
	}
}

// applyTrace shifts a trace line's ids in place: its correlation id as the dispatches', a copy's
// agents as the process's agents.
func (s shift) applyTrace(t *contract.Trace) {
	t.CorrelationID = s.id(t.CorrelationID, s.correlation)
	if t.Kind != contract.RecCopy {
		return
	}
	if a, ok := s.agents[t.SrcAgentID]; ok {
		t.SrcAgentID = a.handle
	}
	if a, ok := s.agents[t.DstAgentID]; ok {
		t.DstAgentID = a.handle
	}
}

// idSpace hands out agent ids of one kind (handles, node ids), each to one device.
type idSpace struct {
	owner map[uint64]string // id -> device
	of    map[string]uint64 // device -> id
	max   uint64
}

func newIDSpace() *idSpace { return &idSpace{owner: map[uint64]string{}, of: map[string]uint64{}} }

func (s *idSpace) assign(device string, want uint64) uint64 {
	if id, ok := s.of[device]; ok {
		return id
	}
	if _, taken := s.owner[want]; taken {
		want = s.max + 1
	}
	s.owner[want], s.of[device] = device, want
	s.max = max(s.max, want)
	return want
}

// shifts computes the ids of every process, in merge order.
func shifts(heads []*head) []shift {
	out := make([]shift, len(heads))
	handles, nodes := newIDSpace(), newIDSpace()
	var dispatch, correlation, kernel uint64
	for i, h := range heads {
		s := shift{dispatch: dispatch, correlation: correlation, kernel: kernel, agents: map[uint64]agentIDs{}}
		seen := map[string]bool{}
		for _, a := range h.agents {
			dev := device(h.header.Hostname, a)
			if seen[dev] { // two agents of one process are two devices whatever they say
				dev = fmt.Sprintf("%s\x00handle %d", dev, a.ID)
			}
			seen[dev] = true
			s.agents[a.ID] = agentIDs{handle: handles.assign(dev, a.ID), node: nodes.assign(dev, nodeID(a))}
		}
		out[i] = s
		dispatch += h.maxDispatch
		correlation += h.maxCorrelation
		kernel += h.maxKernel
	}
	return out
}

// device names the physical device an agent is.
func device(host string, a contract.Agent) string {
	if u := a.Strings["uuid"]; u != "" {
		return host + "\x00uuid " + u
	}
	if b := a.Strings["pci_bus_id"]; b != "" {
		return host + "\x00bus " + b
	}
	return fmt.Sprintf("%s\x00domain %d location %d node %d name %s", host, a.Props["domain"], a.Props["location_id"], nodeID(a), a.Name)
}

// nodeID is the agent's Agent_Id in the CSV files: its node id, else its handle (as output does).
func nodeID(a contract.Agent) uint64 {
	if n := a.Props["node_id"]; n > 0 {
		return uint64(n)
	}
	return a.ID
}
