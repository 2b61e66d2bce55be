package contract

import "fmt"

// NodeID is the id the output files give an agent: its KFD node id (node_id) when the backend
// reports one, else its handle. agent_info.csv's Node_Id is this value.
func (a Agent) NodeID() uint64 {
	if n, ok := a.Props["node_id"]; ok && n > 0 {
		return uint64(n)
	}
	return a.ID
}

// LogicalNodeID is the agent's number in the files by rocprofv3's default --agent-index
// (relative, Agent_Id "Agent <n>"): its logical node id, else its node id. gorocprof's messages
// and tables number agents by it.
func (a Agent) LogicalNodeID() int64 {
	if n, ok := a.Props["logical_node_id"]; ok && n > 0 {
		return n
	}
	return int64(a.NodeID())
}

// Label names the agent in messages and tables by both its numbers, as rocprofv3's messages name
// one: AgentLabel of its logical node id and its index.
func (a Agent) Label() string { return AgentLabel(a.LogicalNodeID(), int64(a.Index), a.Name) }

// AgentLabel names a GPU agent by its number in the files, its GPU ordinal (Index: every backend
// gives it as the agent's logical_node_type_id, rocprofv3-avail's GPU:<n>, --pmc's :device=<n>)
// and its name: "Agent 1 (GPU 0, gfx90a)" (docs/output.md, "Numbering").
func AgentLabel(logical, gpu int64, name string) string {
	return fmt.Sprintf("Agent %d (GPU %d, %s)", logical, gpu, name)
}
