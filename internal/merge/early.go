package merge

import (
	"errors"
	"fmt"
)

// earlyCheck is the check of an element's records (check.go) done by the heads pass on the way,
// in place of skipping them, so that the element's records are read twice rather than three
// times. It reads what check would read only where the heads pass can tell that the records come
// in one array: an element without the kernel trace, whose counter records are its passes. Any
// doubt or error gives it up (void), and check then reads the records itself as it always did, so
// that what it finds and how it says it stays the same.
type earlyCheck struct {
	h      *head
	g      grouper
	rec    recordJSON
	seen   map[string]bool // the record arrays met, by key
	holder string          // the one record array that has records, once one has
	void   bool
}

var errTwoArrays = errors.New("records in two arrays")

// newEarlyCheck starts the check of h's records, whose head is filled; nil for an element whose
// kernel trace the check joins in.
func newEarlyCheck(h *head) *earlyCheck {
	if h.kernelTrace {
		return nil
	}
	e := &earlyCheck{h: h, seen: map[string]bool{}}
	// The passes are decoded with the rotation's groups, which prepare reads; readFile prepares the
	// head again, and says what is wrong with it in its turn.
	if err := h.prepare(); err != nil {
		e.void = true
	}
	e.g.fn = h.passCheck()
	return e
}

// array reads the record array named key into the check; false, the array's reading given up
// anywhere in it, where the check cannot take it.
func (e *earlyCheck) array(l *lexer, key string) bool {
	if e == nil || e.void || e.seen[key] {
		e.giveUp()
		return false
	}
	e.seen[key] = true
	err := l.array(func(int) error {
		if e.holder != "" && e.holder != key {
			return errTwoArrays
		}
		e.holder = key
		if err := l.record(&e.rec); err != nil {
			return err
		}
		d, err := e.h.dispatchOf(&e.rec)
		if err != nil {
			return err
		}
		return e.g.add(d)
	})
	if err != nil {
		e.void = true
	}
	return err == nil
}

func (e *earlyCheck) giveUp() {
	if e != nil {
		e.void = true
	}
}

// finish ends the check after the element's last key.
func (e *earlyCheck) finish() {
	if e == nil || e.void || e.g.flush() != nil {
		return
	}
	e.h.checked = true
}

// skipRecords reads a record array of an element, from the offset at, where its value begins: into
// the early check where it can, else skipped by its brackets as the build reads it later.
func skipRecords(l *lexer, e *earlyCheck, key string, at int64) error {
	if e.array(l, key) {
		return nil
	}
	if l.off() != at {
		if err := l.rewind(at); err != nil {
			return fmt.Errorf("reading the records again: %w", err)
		}
	}
	return l.skip()
}
