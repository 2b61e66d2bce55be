package records

// The pass rules the slow way, over every dispatch of a file held in memory: the model the one
// streaming reader (passChecker, logicalFacts, EachLogical) is checked against.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// readAllDispatches decodes every dispatch line of a record file, in file order.
func readAllDispatches(t testing.TB, path string) []contract.Dispatch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := NewDecoder(f)
	dec.SkipBadLines()
	var ds []contract.Dispatch
	for {
		rec, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return ds
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Type == contract.RecDispatch {
			ds = append(ds, *rec.Dispatch)
		}
	}
}

// refCheckPasses checks the pass structure the tool promises in one file, in file order: the passes of
// a dispatch are consecutive lines, each pass index appears once and lies in [0, passes), and all
// passes agree on the pass count, kernel and agent. It does not ask for every pass to be present:
// an application-replay run holds one pass per dispatch (see refMissingPasses for kernel replay).
func refCheckPasses(ds []contract.Dispatch) []string {
	var problems []string
	closed := map[uint64]bool{}
	var first *contract.Dispatch
	seen := map[int]bool{}
	for i := range ds {
		d := &ds[i]
		if first == nil || d.DispatchID != first.DispatchID {
			if first != nil {
				closed[first.DispatchID] = true
			}
			if closed[d.DispatchID] {
				problems = append(problems, fmt.Sprintf(
					"dispatch %d: passes are not consecutive (pass %d appears after other dispatches)",
					d.DispatchID, d.Pass))
			}
			first = d
			clear(seen)
		}
		if d.Passes < 1 || d.Pass < 0 || d.Pass >= d.Passes {
			problems = append(problems, fmt.Sprintf("dispatch %d: pass %d is outside 0..%d",
				d.DispatchID, d.Pass, d.Passes-1))
		}
		if seen[d.Pass] {
			problems = append(problems, fmt.Sprintf("dispatch %d: pass %d appears twice", d.DispatchID, d.Pass))
		}
		seen[d.Pass] = true
		if d == first {
			continue
		}
		if d.Passes != first.Passes {
			problems = append(problems, fmt.Sprintf("dispatch %d: pass %d says %d passes, pass %d says %d",
				d.DispatchID, d.Pass, d.Passes, first.Pass, first.Passes))
		}
		if d.KernelID != first.KernelID || d.AgentID != first.AgentID {
			problems = append(problems, fmt.Sprintf(
				"dispatch %d: pass %d ran kernel %d on agent %d, pass %d kernel %d on agent %d",
				d.DispatchID, d.Pass, d.KernelID, d.AgentID, first.Pass, first.KernelID, first.AgentID))
		}
	}
	return problems
}

// refMissingPasses lists the dispatches that lack some pass index in 0..passes-1, as a kernel-replay
// run must have them all. Declined dispatches ran once on purpose and are not listed.
func refMissingPasses(ds []contract.Dispatch, declines []contract.Decline) []string {
	declined := map[uint64]bool{}
	for _, d := range declines {
		declined[d.DispatchID] = true
	}
	var problems []string
	for _, l := range refGroup(ds) {
		if declined[l.ID] {
			continue
		}
		want := l.Passes[0].Passes
		have := map[int]bool{}
		for _, d := range l.Passes {
			have[d.Pass] = true
		}
		var missing []string
		for i := 0; i < want; i++ {
			if !have[i] {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		switch {
		case len(missing) > 10:
			problems = append(problems, fmt.Sprintf("dispatch %d: %d of %d passes missing: %s and %d more",
				l.ID, len(missing), want, strings.Join(missing[:10], ", "), len(missing)-10))
		case len(missing) > 0:
			problems = append(problems, fmt.Sprintf("dispatch %d: pass %s of %d missing",
				l.ID, strings.Join(missing, ", "), want))
		}
	}
	return problems
}

// refGroup collects dispatch lines into logical dispatches ordered by dispatch_id, passes ordered by
// pass index. It does not rely on file order, so merged runs group the same way.
func refGroup(ds []contract.Dispatch) []Logical {
	idx := make([]int, len(ds))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		da, db := &ds[idx[a]], &ds[idx[b]]
		if da.DispatchID != db.DispatchID {
			return da.DispatchID < db.DispatchID
		}
		return da.Pass < db.Pass
	})
	var out []Logical
	for _, i := range idx {
		d := &ds[i]
		if n := len(out); n > 0 && out[n-1].ID == d.DispatchID {
			out[n-1].Passes = append(out[n-1].Passes, d)
			continue
		}
		out = append(out, Logical{ID: d.DispatchID, Passes: []*contract.Dispatch{d}})
	}
	return out
}

// checkPasses runs the reader's pass checker over dispatch lines in file order.
func checkPasses(ds []contract.Dispatch) []string {
	c := newPassChecker(MaxReorderWindow + 1)
	for i := range ds {
		c.add(&ds[i])
	}
	return c.problems
}

// dispatchLines counts the dispatch lines a process hands out.
func dispatchLines(t testing.TB, p *Process) int {
	t.Helper()
	n := 0
	if err := p.EachLogical(func(l Logical) error { n += len(l.Passes); return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}
