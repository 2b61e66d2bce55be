package output

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// PlanTables writes one table per agent: pass, --pmc group, counters and hardware events, then the
// planner's notes. Passes and groups are counted from 0, as plan --json, results.json's replay_pass
// and pmc_group, and the tool's plan count them (docs/output.md, "Numbering").
func PlanTables(w io.Writer, plans []contract.PlanAgent) error {
	for i, p := range plans {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s: %d %s\n", p.Label(), len(p.Passes), Plural(len(p.Passes), "pass", "passes"))
		if len(p.Passes) > 0 {
			t := tablewriter.NewWriter(w)
			t.Header("Pass", "Group", "Counters", "Hardware events")
			for k, pass := range p.Passes {
				if err := t.Append(fmt.Sprint(k), fmt.Sprint(pass.Group), strings.Join(pass.Requested, " "), strings.Join(baseNames(pass.Base), " ")); err != nil {
					return fmt.Errorf("plan of %s: %w", p.Label(), err)
				}
			}
			if err := t.Render(); err != nil {
				return fmt.Errorf("plan of %s: %w", p.Label(), err)
			}
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "note: %s\n", n.Message)
		}
	}
	return nil
}

func baseNames(base []contract.PlanCounter) []string {
	names := make([]string, len(base))
	for i, b := range base {
		names[i] = b.Name
	}
	return names
}

// Plural picks the word for n things.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
