package records

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// passChecker checks the pass rules of one record file as its dispatch lines go by, in file order:
// the passes of a dispatch are consecutive lines, each pass index appears once and lies in
// [0, passes), and all passes agree on the pass count, kernel and agent. It does not ask for every
// pass to be present (an application-replay run holds one pass per dispatch); logicalFacts notes
// what each logical dispatch lacks, for kernel replay (MissingPasses).
//
// The tool writes all passes of a dispatch in one write(2), so each dispatch is one block of
// consecutive lines: only the current block is kept. To tell a dispatch that comes back after
// others (its passes not consecutive) and to measure how far lines lie from their place
// (ReorderWindow), the greatest bound ids are kept as runs. A line further back than that cannot be
// judged with that memory: finish then checks the spooled lines again with every id kept, as a file
// that far out of order needs.
type passChecker struct {
	bound    int
	first    contract.Dispatch // the current block's first line, without counters
	started  bool
	seen     []int // pass indexes of the current block
	lowest   int   // the lowest pass index of the current block, and the pass count that line states
	lowestOf int
	problems []string
	facts    logicalFacts
	ids      idRuns
	window   int  // the most dispatches with a greater id that came before a dispatch's lines
	split    bool // a dispatch's lines are not consecutive: its blocks are not its logical dispatch
	overflow bool // a line lay more than bound dispatches back
}

func newPassChecker(bound int) *passChecker { return &passChecker{bound: bound} }

func (c *passChecker) add(d *contract.Dispatch) {
	if !c.started || d.DispatchID != c.first.DispatchID {
		greater, seen := c.ids.add(d.DispatchID, c.bound)
		if greater >= c.bound {
			c.overflow = true
		}
		c.window = max(c.window, greater)
		c.closeBlock()
		if seen {
			c.split = true
			c.problems = append(c.problems, fmt.Sprintf(
				"dispatch %d: passes are not consecutive (pass %d appears after other dispatches)", d.DispatchID, d.Pass))
		}
		c.first, c.started = *d, true
		c.first.Counters = nil
		c.seen = c.seen[:0]
	}
	if len(c.seen) == 0 || d.Pass < c.lowest {
		// A logical dispatch's first line is the earliest of its lowest pass index.
		c.lowest, c.lowestOf = d.Pass, d.Passes
	}
	first := &c.first
	if d.Passes < 1 || d.Pass < 0 || d.Pass >= d.Passes {
		c.problems = append(c.problems, fmt.Sprintf("dispatch %d: pass %d is outside 0..%d",
			d.DispatchID, d.Pass, d.Passes-1))
	}
	dup := false
	for _, s := range c.seen {
		dup = dup || s == d.Pass
	}
	if dup {
		c.problems = append(c.problems, fmt.Sprintf("dispatch %d: pass %d appears twice", d.DispatchID, d.Pass))
	}
	c.seen = append(c.seen, d.Pass)
	if len(c.seen) == 1 {
		return
	}
	if d.Passes != first.Passes {
		c.problems = append(c.problems, fmt.Sprintf("dispatch %d: pass %d says %d passes, pass %d says %d",
			d.DispatchID, d.Pass, d.Passes, first.Pass, first.Passes))
	}
	if d.KernelID != first.KernelID || d.AgentID != first.AgentID {
		c.problems = append(c.problems, fmt.Sprintf(
			"dispatch %d: pass %d ran kernel %d on agent %d, pass %d kernel %d on agent %d",
			d.DispatchID, d.Pass, d.KernelID, d.AgentID, first.Pass, first.KernelID, first.AgentID))
	}
}

// closeBlock ends the current block: while every dispatch is one block, a block is its logical
// dispatch.
func (c *passChecker) closeBlock() {
	if c.started {
		c.facts.add(c.seen, c.lowestOf)
	}
}

// finish ends the file and leaves the process its window and the facts of its logical dispatches.
// A file with a line beyond the bound is checked again from the spool with every id kept; one whose
// dispatches are split over several blocks has its logical dispatches grouped from the spool.
func (c *passChecker) finish(p *Process) error {
	if c.overflow {
		again := newPassChecker(math.MaxInt)
		r := p.spool.reader()
		for {
			d, _, err := r.next()
			if err != nil {
				if !isEOF(err) {
					return err
				}
				break
			}
			again.add(d)
		}
		*c = *again
	}
	c.closeBlock()
	p.window = c.window
	if !c.split {
		p.facts = c.facts
		return nil
	}
	var facts logicalFacts
	var passes []int
	err := p.EachLogical(func(l Logical) error {
		passes = passes[:0]
		for _, d := range l.Passes {
			passes = append(passes, d.Pass)
		}
		facts.add(passes, l.Passes[0].Passes)
		return nil
	})
	p.facts = facts
	return err
}

// logicalFacts is what the logical dispatches of a process say as a whole: how many there are, how
// many have several pass lines, and how many lack some pass index below the pass count of their
// first line (as a kernel-replay run must have them all). Only the count is kept: every dispatch of
// an application-replay run lacks the other runs' passes, and MissingPasses words them from the
// spool when asked.
type logicalFacts struct {
	logicals uint64
	replayed uint64
	missing  uint64
	lacking  []int // missingPasses's storage
}

func (f *logicalFacts) add(passes []int, want int) {
	f.logicals++
	if len(passes) > 1 {
		f.replayed++
	}
	if f.lacking = missingPasses(f.lacking[:0], passes, want); len(f.lacking) > 0 {
		f.missing++
	}
}

// missingPasses appends to dst the pass indexes below want that passes lacks.
func missingPasses(dst, passes []int, want int) []int {
	for i := 0; i < want; i++ {
		if !slices.Contains(passes, i) {
			dst = append(dst, i)
		}
	}
	return dst
}

// missingText words missingPasses's answer for dispatch id.
// A message names at most maxListed passes, and how many more there are.
func missingText(id uint64, missing []int, want int) string {
	const maxListed = 10
	words := make([]string, 0, min(len(missing), maxListed))
	for _, m := range missing[:min(len(missing), maxListed)] {
		words = append(words, strconv.Itoa(m))
	}
	if len(missing) > maxListed {
		return fmt.Sprintf("dispatch %d: %d of %d passes missing: %s and %d more", id, len(missing), want,
			strings.Join(words, ", "), len(missing)-maxListed)
	}
	return fmt.Sprintf("dispatch %d: pass %s of %d missing", id, strings.Join(words, ", "), want)
}
