package contract

import "testing"

// An agent's numbers fall back as the files' do: the logical node id to the node id, the node id to
// the handle; the label gives the number and the index (the GPU number).
func TestAgentNumbers(t *testing.T) {
	tests := []struct {
		name    string
		a       Agent
		node    uint64
		logical int64
		label   string
	}{
		{"all numbers", Agent{ID: 9, Index: 1, Name: "gfx942", Props: map[string]int64{"node_id": 3, "logical_node_id": 2}},
			3, 2, "Agent 2 (GPU 1, gfx942)"},
		{"node id only (KFD)", Agent{ID: 3, Index: 0, Name: "gfx90a", Props: map[string]int64{"node_id": 3}},
			3, 3, "Agent 3 (GPU 0, gfx90a)"},
		{"handle only", Agent{ID: 5, Index: 0, Name: "GH100"}, 5, 5, "Agent 5 (GPU 0, GH100)"},
	}
	for _, tc := range tests {
		if got := tc.a.NodeID(); got != tc.node {
			t.Errorf("%s: NodeID %d, want %d", tc.name, got, tc.node)
		}
		if got := tc.a.LogicalNodeID(); got != tc.logical {
			t.Errorf("%s: LogicalNodeID %d, want %d", tc.name, got, tc.logical)
		}
		if got := tc.a.Label(); got != tc.label {
			t.Errorf("%s: Label %q, want %q", tc.name, got, tc.label)
		}
	}
	if got := (PlanAgent{Index: 1, Number: 2, Name: "gfx942"}).Label(); got != "Agent 2 (GPU 1, gfx942)" {
		t.Errorf("PlanAgent.Label %q", got)
	}
}
