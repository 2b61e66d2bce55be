package records

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// passChecker is CheckPasses and MissingPasses over a stream whose dispatches may come a bounded
// distance out of (dispatch id, pass) order, as threads that finish their replays in another order
// than they launched write them. The tool writes all passes of a dispatch in one write(2), so each
// dispatch is one block of consecutive lines, which CheckPasses judges on its own and which alone
// says what passes the dispatch lacks; only the current block is kept. Of the dispatches before it,
// only the greatest MaxReorderWindow+1 ids are kept, as runs, to measure the window EachLogical
// needs. A line that lies further back than MaxReorderWindow dispatches, or a dispatch whose lines
// are not consecutive (which CheckPasses reports as a problem), makes the caller read the file whole.
type passChecker struct {
	first     contract.Dispatch // the current block's first line, without counters
	started   bool
	seen      []int // pass indexes of the current block
	lowest    int   // the lowest pass index of the current block, and the pass count that line states
	lowestOf  int
	problems  []string
	missing   []missingPasses
	ids       idRuns
	window    int // the most dispatches with a greater id that came before a dispatch's lines
	logicals  uint64
	replayed  uint64 // logical dispatches with more than one line
	readWhole bool   // the file cannot be streamed
}

type missingPasses struct {
	id   uint64
	text string
}

func (c *passChecker) add(d *contract.Dispatch) {
	if !c.started || d.DispatchID != c.first.DispatchID {
		greater, seen := c.ids.add(d.DispatchID, MaxReorderWindow+1)
		if seen || greater > MaxReorderWindow {
			c.readWhole = true
			return
		}
		c.window = max(c.window, greater)
		c.closeBlock()
		c.first, c.started = *d, true
		c.first.Counters = nil
		c.seen = c.seen[:0]
	}
	if len(c.seen) == 0 || d.Pass < c.lowest {
		// Group orders a dispatch's lines by pass index, equal ones in file order: its first line is
		// the earliest of the lowest index.
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

// closeBlock notes the passes the current dispatch lacks, as MissingPasses words them.
func (c *passChecker) closeBlock() {
	if !c.started {
		return
	}
	c.logicals++
	if len(c.seen) > 1 {
		c.replayed++
	}
	want := c.lowestOf
	var missing []string
	for i := 0; i < want; i++ {
		have := false
		for _, s := range c.seen {
			have = have || s == i
		}
		if !have {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		c.missing = append(c.missing, missingPasses{c.first.DispatchID, fmt.Sprintf("dispatch %d: pass %s of %d missing",
			c.first.DispatchID, strings.Join(missing, ", "), want)})
	}
}

// finish closes the last block and puts the notes in MissingPasses's order, by dispatch id.
func (c *passChecker) finish() {
	c.closeBlock()
	sort.SliceStable(c.missing, func(i, j int) bool { return c.missing[i].id < c.missing[j].id })
}
