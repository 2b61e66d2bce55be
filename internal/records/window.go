package records

import "slices"

// MaxReorderWindow is the most logical dispatches the pass checker of ReadProcess follows while it
// reads a file: how many dispatches with a greater id may come before a dispatch's lines for it to
// judge them with bounded memory, one run of ids per gap among the greatest MaxReorderWindow+1 ids
// (16 bytes each, 2 MiB at most). A file from a multi-threaded application lands a few dispatches out
// of place (about as many as it has threads replaying at once); a file past this bound is checked
// again from the spool with every id kept, and EachLogical then holds back as many dispatches as the
// file needs, which a file from threads never comes near.
const MaxReorderWindow = 1 << 16

// idWindow holds dispatch ids in increasing order, each with a value. Inserting shifts only the
// greater ids, which the reorder window bounds; removing the smallest advances a head index, and the
// live part is moved down once the head passed half the array, so the storage stays within twice the
// largest number of ids held at once.
type idWindow[T any] struct {
	ids  []uint64
	vals []T
	head int
}

func (w *idWindow[T]) len() int { return len(w.ids) - w.head }

// find returns where id is or would go, counted from the smallest id held.
func (w *idWindow[T]) find(id uint64) (int, bool) {
	return slices.BinarySearch(w.ids[w.head:], id)
}

// greater returns how many ids held are greater than id, given find's answer for it.
func (w *idWindow[T]) greater(i int, found bool) int {
	if found {
		return w.len() - i - 1
	}
	return w.len() - i
}

// at returns the value of the i-th smallest id held.
func (w *idWindow[T]) at(i int) *T { return &w.vals[w.head+i] }

// insert puts id with v at find's position i.
func (w *idWindow[T]) insert(i int, id uint64, v T) {
	if w.head > 0 && 2*w.head >= len(w.ids) {
		n := copy(w.ids, w.ids[w.head:])
		copy(w.vals, w.vals[w.head:])
		clear(w.vals[n:])
		w.ids, w.vals, w.head = w.ids[:n], w.vals[:n], 0
	}
	at := w.head + i
	w.ids = slices.Insert(w.ids, at, id)
	w.vals = slices.Insert(w.vals, at, v)
}

// popMin removes and returns the smallest id and its value.
func (w *idWindow[T]) popMin() (uint64, T) {
	id, v := w.ids[w.head], w.vals[w.head]
	var zero T
	w.vals[w.head] = zero
	w.head++
	if w.head == len(w.ids) {
		w.ids, w.vals, w.head = w.ids[:0], w.vals[:0], 0
	}
	return id, v
}
