package contract

import "encoding/json"

// Plan is the plan file the tool reads (plan.json). Its agents are written in the tool's shape
// (toolAgent): the passes' base counters only.
type Plan struct {
	Version         int    `json:"version"`
	Backend         string `json:"backend"`
	ReplayMode      string `json:"replay_mode"`
	ApplicationPass int    `json:"application_pass"`
	// GroupInterval: under rotation, the dispatches of an agent that collect one pass before the
	// next pass takes over (>= 1); absent in the other modes.
	GroupInterval int  `json:"group_interval,omitempty"`
	KernelTrace   bool `json:"kernel_trace"`
	// TraceDomains are the domains the tool traces (docs/tracing.md), sorted; none when empty.
	TraceDomains []string    `json:"trace_domains,omitempty"`
	Filters      Filters     `json:"filters"`
	Agents       []PlanAgent `json:"-"` // written by MarshalJSON as "agents"
}

// PlanAgent is what the planner decided for one agent: the passes a dispatch on it is replayed for
// and what it changed in the user's groups. It is the one plan type of the front end: the planner
// makes it, the plan file carries it to the tool, and its own JSON (MarshalJSON) is the plan as
// results.json's metadata ("gorocprof_plan") and `gorocprof plan --json` print it.
type PlanAgent struct {
	Index  int        // the backend's device ordinal, the agent's GPU number (Agent.Index)
	Number int64      // its number in the files and messages (Agent.LogicalNodeID)
	Name   string     // the agent's name, which the tool checks against the runtime's
	Passes []PlanPass // what replay pass i collects
	Notes  []PlanNote // what the planner changed in the user's groups on this agent
}

// PlanPass is one replay pass of one agent.
type PlanPass struct {
	Group     int           // 0-based --pmc group it came from
	Requested []string      // user counters reported on this pass (derived ones included), sorted
	Base      []PlanCounter // what the hardware counts, sorted by name
}

// PlanCounter identifies one base counter for the tool.
type PlanCounter struct {
	Name  string `json:"name"`
	Block string `json:"block"`
	Event int    `json:"event"`
}

// Note kinds: what the planner changed in a user's group on one agent.
const (
	NoteDropped = "dropped" // none of the group's counters exist on the agent
	NotePartial = "partial" // some do; the rest are left out
	NoteSplit   = "split"   // the group exceeds the hardware and takes several passes
)

// PlanNote tells the user what the planner did to one group on one agent.
type PlanNote struct {
	Kind     string
	Group    int      // 0-based --pmc group
	Counters []string // the missing counters (dropped, partial)
	Passes   int      // the passes the group takes (split)
	Message  string
}

// reportAgent is a PlanAgent as the user reads it: each pass's user counters and base counter names,
// and the notes' messages.
type reportAgent struct {
	Index  int          `json:"agent_index"`
	Number int64        `json:"logical_node_id"`
	Name   string       `json:"agent_name"`
	Passes []reportPass `json:"passes"`
	Notes  []string     `json:"notes,omitempty"`
}

type reportPass struct {
	Pass     int      `json:"pass"`
	Group    int      `json:"group"`
	Counters []string `json:"counters"`
	Base     []string `json:"base_counters"`
}

// Label names the agent in messages and tables (AgentLabel).
func (a PlanAgent) Label() string { return AgentLabel(a.Number, int64(a.Index), a.Name) }

// MarshalJSON writes the plan of one agent as results.json's metadata and `plan --json` show it.
func (a PlanAgent) MarshalJSON() ([]byte, error) {
	r := reportAgent{Index: a.Index, Number: a.Number, Name: a.Name, Passes: make([]reportPass, 0, len(a.Passes))}
	for i, p := range a.Passes {
		rp := reportPass{Pass: i, Group: p.Group, Counters: p.Requested}
		for _, b := range p.Base {
			rp.Base = append(rp.Base, b.Name)
		}
		r.Passes = append(r.Passes, rp)
	}
	for _, n := range a.Notes {
		r.Notes = append(r.Notes, n.Message)
	}
	return json.Marshal(r)
}

// toolAgent is a PlanAgent as the tool reads it from the plan file (docs/record-format.md).
type toolAgent struct {
	Index  int        `json:"index"`
	Name   string     `json:"name"`
	Passes []toolPass `json:"passes"`
}

type toolPass struct {
	Group    int           `json:"group"`
	Counters []PlanCounter `json:"counters"`
}

// planFields is Plan without its methods, so that its fields encode as they are.
type planFields Plan

// MarshalJSON writes the plan file.
func (p Plan) MarshalJSON() ([]byte, error) {
	agents := make([]toolAgent, 0, len(p.Agents))
	for _, a := range p.Agents {
		ta := toolAgent{Index: a.Index, Name: a.Name, Passes: make([]toolPass, 0, len(a.Passes))}
		for _, ps := range a.Passes {
			ta.Passes = append(ta.Passes, toolPass{Group: ps.Group, Counters: append([]PlanCounter{}, ps.Base...)})
		}
		agents = append(agents, ta)
	}
	return json.Marshal(struct {
		planFields
		Agents []toolAgent `json:"agents"`
	}{planFields(p), agents})
}

// UnmarshalJSON reads a plan file (the recorded runs of testdata keep theirs).
func (p *Plan) UnmarshalJSON(data []byte) error {
	var f struct {
		planFields
		Agents []toolAgent `json:"agents"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	*p = Plan(f.planFields)
	for _, ta := range f.Agents {
		a := PlanAgent{Index: ta.Index, Name: ta.Name, Passes: make([]PlanPass, 0, len(ta.Passes))}
		for _, tp := range ta.Passes {
			a.Passes = append(a.Passes, PlanPass{Group: tp.Group, Base: tp.Counters})
		}
		p.Agents = append(p.Agents, a)
	}
	return nil
}

// Encode is the plan file's bytes as the front end writes them: indented, for a reader of a run
// directory kept after a failure.
func (p Plan) Encode() ([]byte, error) {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
