package records

// idRun is the dispatch ids lo..hi, all seen.
type idRun struct{ lo, hi uint64 }

// idRuns holds the greatest dispatch ids seen, up to a bound, as runs of consecutive ids in
// increasing order. The tool takes dispatch ids one after the other, so what lies inside the reorder
// window is a few runs with the dispatches still in flight between them: its size follows the
// window and the gaps in the ids, not the number of ids. Finding an id walks down from the greatest
// run and touches only the runs above it, whose ids lie ahead of it.
type idRuns struct {
	runs []idRun
	head int    // runs[:head] were dropped
	n    uint64 // ids held
}

// add notes id, keeping no more than bound ids, and reports how many ids held are greater than id
// (counting stops at bound, and the runs are then left as they were) and whether id was held
// already.
func (r *idRuns) add(id uint64, bound int) (greater int, seen bool) {
	live := r.runs[r.head:]
	j := len(live) // the first run wholly above id
	for j > 0 && live[j-1].hi > id {
		run := live[j-1]
		if run.lo <= id {
			return greater + int(run.hi-id), true
		}
		greater += int(run.hi - run.lo + 1)
		if greater >= bound {
			return bound, false
		}
		j--
	}
	if j > 0 && live[j-1].hi == id {
		return greater, true
	}
	switch left, right := j > 0 && live[j-1].hi+1 == id, j < len(live) && live[j].lo-1 == id; {
	case left && right:
		live[j-1].hi = live[j].hi
		r.runs = append(r.runs[:r.head+j], r.runs[r.head+j+1:]...)
	case left:
		live[j-1].hi = id
	case right:
		live[j].lo = id
	default:
		r.insert(j, idRun{id, id})
	}
	r.n++
	if r.n > uint64(bound) {
		low := &r.runs[r.head]
		if low.lo == low.hi {
			r.head++
		} else {
			low.lo++
		}
		r.n--
	}
	return greater, false
}

// insert puts run at position j of the live runs, moving the live runs down to the front of the
// array first once the dropped ones are half of it, so the array stays within twice the live runs.
func (r *idRuns) insert(j int, run idRun) {
	if r.head > 0 && 2*r.head >= len(r.runs) {
		n := copy(r.runs, r.runs[r.head:])
		r.runs, r.head = r.runs[:n], 0
	}
	at := r.head + j
	r.runs = append(r.runs, idRun{})
	copy(r.runs[at+1:], r.runs[at:])
	r.runs[at] = run
}
