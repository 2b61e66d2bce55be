package replay

import (
	"fmt"
	"io"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
)

// printNotes tells the user, before launch, what the planner changed in their groups.
func printNotes(w io.Writer, plan *counters.Plan) {
	for _, a := range plan.Agents {
		for _, n := range a.Notes {
			fmt.Fprintf(w, "gorocprof: %s: %s\n", noteLevel(n), n.Message)
		}
	}
}

func noteLevel(n counters.Note) string {
	if n.Kind == counters.NoteSplit {
		return "note"
	}
	return "warning"
}

// planMetadata is what results.json records about the plan, so a reader knows which pass held what.
type planPass struct {
	Pass     int      `json:"pass"`
	Group    int      `json:"group"`
	Counters []string `json:"counters"`
	Base     []string `json:"base_counters"`
}

type planAgent struct {
	Index  int        `json:"agent_index"`
	Name   string     `json:"agent_name"`
	Passes []planPass `json:"passes"`
	Notes  []string   `json:"notes,omitempty"`
}

func planMetadata(plan *counters.Plan) []planAgent {
	view := describe(plan, func(index int, name string) contract.Agent { return contract.Agent{Index: index, Name: name} })
	out := make([]planAgent, 0, len(view))
	for _, a := range view {
		pa := planAgent{Index: a.Agent.Index, Name: a.Agent.Name, Passes: []planPass{}, Notes: a.Notes}
		for i, p := range a.Passes {
			pa.Passes = append(pa.Passes, planPass{Pass: i, Group: p.Group, Counters: p.Counters, Base: p.Hardware})
		}
		out = append(out, pa)
	}
	return out
}

// Describe turns a plan into what the plan tables and `plan --json` show, agent by agent.
func (s *Session) Describe(plan *counters.Plan) []output.PlanAgent { return describe(plan, s.Agent) }

// describe is the plan agent by agent: each pass's group, counters and hardware events, and the
// planner's notes; agent names the agent of an index.
func describe(plan *counters.Plan, agent func(index int, name string) contract.Agent) []output.PlanAgent {
	out := make([]output.PlanAgent, 0, len(plan.Agents))
	for _, a := range plan.Agents {
		v := output.PlanAgent{Agent: agent(a.Index, a.Name)}
		for _, p := range a.Passes {
			pass := output.PlanPass{Group: p.Group, Counters: p.Requested}
			for _, b := range p.Base {
				pass.Hardware = append(pass.Hardware, b.Name)
			}
			v.Passes = append(v.Passes, pass)
		}
		for _, n := range a.Notes {
			v.Notes = append(v.Notes, n.Message)
		}
		out = append(out, v)
	}
	return out
}

// Agent is the session's agent with that index, or a bare description when it has none.
func (s *Session) Agent(index int, name string) contract.Agent {
	for _, a := range s.Agents {
		if a.Index == index {
			return a
		}
	}
	return contract.Agent{Index: index, Name: name}
}

// PrintPlan writes the plan tables of --dry-run, the same as the plan command's.
func PrintPlan(w io.Writer, sess *Session, plan *counters.Plan) error {
	return output.PlanTables(w, sess.Describe(plan))
}
