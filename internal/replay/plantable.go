package replay

import (
	"fmt"
	"io"
	"strings"

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

func noteLevel(n contract.PlanNote) string {
	if n.Kind == contract.NoteSplit {
		return "note"
	}
	return "warning"
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
func PrintPlan(w io.Writer, plan *counters.Plan) error {
	return output.PlanTables(w, plan.Agents)
}

// printTracing says, under a dry run's plan tables, what the run traces: the domains of plan.json's
// trace_domains, and under application replay that the first run alone traces them.
func printTracing(w io.Writer, req Request) error {
	if len(req.TraceDomains) == 0 {
		return nil
	}
	when := ""
	if req.Mode == contract.ModeApplication {
		when = " (on the first run of the application replay)"
	}
	_, err := fmt.Fprintf(w, "\ntraces: %s%s\n", strings.Join(req.TraceDomains, ", "), when)
	return err
}

// printRotation says, under a dry run's plan tables, that the passes of a rotation are taken in turn
// by the dispatches, not replayed.
func printRotation(w io.Writer, req Request) error {
	if req.Mode != contract.ModeRotation {
		return nil
	}
	_, err := fmt.Fprintf(w, "\nrotation (pmc_groups): nothing is replayed; dispatch k (from 1) of an agent collects its pass ((k-1) / %d) mod its passes\n",
		groupInterval(req))
	return err
}
