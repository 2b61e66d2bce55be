package output

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// pushedRange says whether a marker line is a range pushed and popped on its thread (roctxRangePush
// and Pop, nvtxRangePush and Pop), the ranges rocprofv3 keeps a stack of per thread to name the
// kernels launched inside them; a start/stop range (roctxRangeStart, nvtxRangeStart) may end on
// another thread and a mark has no extent.
func pushedRange(t *contract.Trace) bool {
	return t.Kind == contract.RecMarker && t.End > t.Start &&
		(t.Op == "roctxThreadRangeA" || strings.Contains(t.Op, "RangePush"))
}

// launchRegions are the marker ranges the process's API calls were made in: for every call made
// inside a pushed range of its thread, the message of the innermost such range, by the call's
// correlation id. A dispatch or copy names its launch by that id (docs/tracing.md), so this is the
// region rocprofv3 gives the kernels a range encloses.
type launchRegions struct {
	corrs    []uint64 // sorted
	messages []int32  // of corrs[i], an index into names
	names    []string
}

// region is the message of the range the call with correlation id corr was made in, and whether
// there is one.
func (l *launchRegions) region(corr uint64) (string, bool) {
	i, ok := slices.BinarySearch(l.corrs, corr)
	if !ok {
		return "", false
	}
	return l.names[l.messages[i]], true
}

// span is one pushed range of a thread.
type span struct {
	start, end int64
	msg        int32
}

// findLaunchRegions reads the process's trace lines for its pushed ranges and, when it has some,
// again for the calls made inside them. Memory follows the ranges and the calls inside them.
func findLaunchRegions(proc *records.Process) (*launchRegions, error) {
	l := &launchRegions{}
	if proc.TraceCount() == 0 {
		return l, nil
	}
	ranges := map[uint64][]span{}
	ids := map[string]int32{}
	err := proc.EachTrace(func(t *contract.Trace) error {
		if !pushedRange(t) {
			return nil
		}
		id, ok := ids[t.Message]
		if !ok {
			id = int32(len(l.names))
			ids[t.Message] = id
			l.names = append(l.names, t.Message)
		}
		ranges[t.ThreadID] = append(ranges[t.ThreadID], span{t.Start, t.End, id})
		return nil
	})
	if err != nil || len(ranges) == 0 {
		return l, err
	}
	// Of ranges that begin together the longer holds the other: it goes on the stack first.
	for _, rs := range ranges {
		slices.SortStableFunc(rs, func(a, b span) int {
			return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end))
		})
	}
	type walk struct {
		next  int
		stack []span
	}
	walks := map[uint64]*walk{}
	type pair struct {
		corr uint64
		msg  int32
	}
	var found []pair
	err = proc.EachTrace(func(t *contract.Trace) error {
		rs := ranges[t.ThreadID]
		if t.Kind != contract.RecAPI || len(rs) == 0 {
			return nil
		}
		w := walks[t.ThreadID]
		if w == nil {
			w = &walk{}
			walks[t.ThreadID] = w
		}
		// Every range that began by the call's start is opened, after closing those that ended
		// before it began; then those that ended by the call's start are closed.
		for w.next < len(rs) && rs[w.next].start <= t.Start {
			w.stack = popEnded(w.stack, rs[w.next].start)
			w.stack = append(w.stack, rs[w.next])
			w.next++
		}
		w.stack = popEnded(w.stack, t.Start)
		if n := len(w.stack); n > 0 {
			found = append(found, pair{t.CorrelationID, w.stack[n-1].msg})
		}
		return nil
	})
	slices.SortStableFunc(found, func(a, b pair) int { return cmp.Compare(a.corr, b.corr) })
	for _, p := range found {
		if n := len(l.corrs); n > 0 && l.corrs[n-1] == p.corr {
			continue // a correlation id named twice (damaged records): the first call's
		}
		l.corrs, l.messages = append(l.corrs, p.corr), append(l.messages, p.msg)
	}
	return l, err
}

// popEnded closes the ranges of a stack that ended by ts.
func popEnded(stack []span, ts int64) []span {
	for len(stack) > 0 && stack[len(stack)-1].end <= ts {
		stack = stack[:len(stack)-1]
	}
	return stack
}

// callParents finds the call each API call was made in (rocprofv3's ancestor correlation id): the
// innermost API call of the same thread that holds it, fed the lines in EachTrace's order. Memory
// follows the depth of the threads' open calls.
type callParents struct {
	open map[uint64][]openCall // by thread
}

type openCall struct {
	end  int64
	corr uint64
}

func newCallParents() *callParents { return &callParents{open: map[uint64][]openCall{}} }

// parent returns the correlation id of the call t was made in, 0 for none, and opens t.
func (c *callParents) parent(t *contract.Trace) uint64 {
	stack := c.open[t.ThreadID]
	// A call that ended before t ends, or by the time t starts, does not hold it.
	for n := len(stack); n > 0 && (stack[n-1].end < t.End || stack[n-1].end <= t.Start); n = len(stack) {
		stack = stack[:len(stack)-1]
	}
	var parent uint64
	if n := len(stack); n > 0 && stack[n-1].corr != t.CorrelationID {
		parent = stack[n-1].corr
	}
	c.open[t.ThreadID] = append(stack, openCall{t.End, t.CorrelationID})
	return parent
}
