package merge

import (
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

func agentOn(handle uint64, node int64, name string, strs map[string]string) contract.Agent {
	return contract.Agent{ID: handle, Name: name, Props: map[string]int64{"node_id": node}, Strings: strs}
}

// TestShifts checks the ids each process gets: dispatch, correlation and kernel ids shifted past the
// processes before it, a device shared by processes of one host joined, and a device of another host
// that has the same ids given ids of its own.
func TestShifts(t *testing.T) {
	gpu := func(h uint64, node int64) contract.Agent { return agentOn(h, node, "gfx90a", nil) }
	cuda := func(h uint64, node int64, uuid string) contract.Agent {
		return agentOn(h, node, "H200", map[string]string{"uuid": uuid})
	}
	proc := func(host string, maxD, maxC, maxK uint64, agents ...contract.Agent) *head {
		return &head{header: contract.Header{Hostname: host}, agents: agents, maxDispatch: maxD, maxCorrelation: maxC, maxKernel: maxK}
	}
	tests := []struct {
		name  string
		procs []*head
		want  []shift
	}{
		{"two ranks of one node share its GPUs", []*head{
			proc("n1", 30, 31, 10, gpu(1, 1), gpu(2, 2)),
			proc("n1", 5, 6, 2, gpu(1, 1), gpu(2, 2)),
		}, []shift{
			{0, 0, 0, map[uint64]agentIDs{1: {1, 1}, 2: {2, 2}}},
			{30, 31, 10, map[uint64]agentIDs{1: {1, 1}, 2: {2, 2}}},
		}},
		{"the same ids on another node are another GPU", []*head{
			proc("n1", 3, 3, 1, gpu(1, 1)),
			proc("n2", 3, 3, 1, gpu(1, 1)),
			proc("n2", 3, 3, 1, gpu(1, 1)),
		}, []shift{
			{0, 0, 0, map[uint64]agentIDs{1: {1, 1}}},
			{3, 3, 1, map[uint64]agentIDs{1: {2, 2}}},
			{6, 6, 2, map[uint64]agentIDs{1: {2, 2}}},
		}},
		{"a CUDA device is its UUID, whatever ordinal a process gave it", []*head{
			proc("n1", 1, 1, 1, cuda(1, 1, "GPU-a"), cuda(2, 2, "GPU-b")),
			proc("n1", 1, 1, 1, cuda(1, 1, "GPU-b")),
		}, []shift{
			{0, 0, 0, map[uint64]agentIDs{1: {1, 1}, 2: {2, 2}}},
			{1, 1, 1, map[uint64]agentIDs{1: {2, 2}}},
		}},
		{"two agents of one process that look alike stay two", []*head{
			proc("n1", 1, 1, 1, gpu(1, 1), gpu(2, 1)),
		}, []shift{
			{0, 0, 0, map[uint64]agentIDs{1: {1, 1}, 2: {2, 2}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := shifts(tc.procs)
			for i, w := range tc.want {
				g := got[i]
				if g.dispatch != w.dispatch || g.correlation != w.correlation || g.kernel != w.kernel {
					t.Errorf("process %d: shifts %d/%d/%d, want %d/%d/%d", i, g.dispatch, g.correlation, g.kernel,
						w.dispatch, w.correlation, w.kernel)
				}
				for h, ids := range w.agents {
					if g.agents[h] != ids {
						t.Errorf("process %d agent %d: ids %+v, want %+v", i, h, g.agents[h], ids)
					}
				}
			}
		})
	}
}
