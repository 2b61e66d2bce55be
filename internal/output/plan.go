package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// PlanAgent is what the planner decided for one agent: the passes a dispatch on it is replayed for,
// and notes on groups it dropped, trimmed or split.
type PlanAgent struct {
	Agent  contract.Agent
	Passes []PlanPass
	Notes  []string
}

// PlanPass is one replay pass: the user group it comes from (0-based), the counters it reports as
// the user named them (derived counters included), and the hardware events it programs.
type PlanPass struct {
	Group    int
	Counters []string
	Hardware []string
}

// PlanTables writes one table per agent: pass, --pmc group (counted from 1, as the user counts
// flags), counters and hardware events, then the planner's notes.
func PlanTables(w io.Writer, plans []PlanAgent) error {
	for i, p := range plans {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "Agent %d: %s, %d %s\n", p.Agent.Index, p.Agent.Name, len(p.Passes), Plural(len(p.Passes), "pass", "passes"))
		if len(p.Passes) > 0 {
			t := tablewriter.NewWriter(w)
			t.Header("Pass", "Group", "Counters", "Hardware events")
			for k, pass := range p.Passes {
				if err := t.Append(fmt.Sprint(k), fmt.Sprint(pass.Group+1), strings.Join(pass.Counters, " "), strings.Join(pass.Hardware, " ")); err != nil {
					return fmt.Errorf("plan of agent %d: %w", p.Agent.Index, err)
				}
			}
			if err := t.Render(); err != nil {
				return fmt.Errorf("plan of agent %d: %w", p.Agent.Index, err)
			}
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	return nil
}

// Plural picks the word for n things.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
