package replay

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
)

// planCounters lets the output writers read a plan: which counters each pass reports, their catalog
// facts and their values from a pass's base counters.
type planCounters struct{ plan *counters.Plan }

func (p planCounters) Requested(agentIndex, pass int) []string {
	return p.plan.Requested(agentIndex, pass)
}

func (p planCounters) Describe(agentIndex int, name string) output.CounterInfo {
	c := p.plan.Describe(agentIndex, name)
	info := output.CounterInfo{Name: c.Name, Description: c.Description, Block: c.Block, Expression: c.Expression, Derived: c.Derived}
	for _, d := range c.Dimensions {
		info.Dimensions = append(info.Dimensions, output.Dimension{Name: d.Name, Size: d.Size})
	}
	return info
}

func (p planCounters) Evaluate(agentIndex int, name string, base map[string][]float64) ([]float64, error) {
	return p.plan.Evaluate(agentIndex, name, base)
}

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
	out := make([]planAgent, 0, len(plan.Agents))
	for _, a := range plan.Agents {
		pa := planAgent{Index: a.Index, Name: a.Name, Passes: []planPass{}}
		for i, p := range a.Passes {
			pp := planPass{Pass: i, Group: p.Group, Counters: p.Requested}
			for _, b := range p.Base {
				pp.Base = append(pp.Base, b.Name)
			}
			pa.Passes = append(pa.Passes, pp)
		}
		for _, n := range a.Notes {
			pa.Notes = append(pa.Notes, n.Message)
		}
		out = append(out, pa)
	}
	return out
}

// PrintPlan writes one table per agent: pass -> group -> counters, then the planner's notes.
func PrintPlan(w io.Writer, sess *Session, plan *counters.Plan) error {
	for _, a := range plan.Agents {
		fmt.Fprintf(w, "Agent %d (%s): %d pass(es)\n", a.Index, a.Name, len(a.Passes))
		t := tablewriter.NewTable(w)
		t.Header([]string{"PASS", "GROUP", "COUNTERS", "HARDWARE EVENTS"})
		for i, p := range a.Passes {
			base := make([]string, 0, len(p.Base))
			for _, b := range p.Base {
				base = append(base, b.Name)
			}
			if err := t.Append([]string{fmt.Sprint(i), fmt.Sprint(p.Group + 1), strings.Join(p.Requested, " "), strings.Join(base, " ")}); err != nil {
				return fmt.Errorf("writing the plan table: %w", err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("writing the plan table: %w", err)
		}
		for _, n := range a.Notes {
			fmt.Fprintf(w, "  %s: %s\n", n.Kind, n.Message)
		}
		fmt.Fprintln(w)
	}
	return nil
}
