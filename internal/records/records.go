package records

import (
	"fmt"
	"io"
	"math"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// RecordReader hands out a process's records again in file order, as the Decoder handed them to
// ReadProcess, without decoding anything: the records it kept, the dispatch lines of its spool and
// its trace lines, merged by line number. The application replay's merge reads the runs' processes
// with it.
type RecordReader struct {
	p      *Process
	kept   int // the next of p.kept
	spool  *spoolReader
	next   *contract.Dispatch // the spool's next dispatch, read ahead
	line   int                // its line
	done   bool               // the spool is exhausted
	reuse  bool
	traces []uint32 // the trace lines in file order; nil until the first Next
	trace  int      // the next of traces
	t      contract.Trace
}

// Records returns a reader of the process's records from its first.
func (p *Process) Records() *RecordReader {
	return &RecordReader{p: p, spool: p.spool.reader()}
}

// ReuseDispatches makes Next hand out the same Dispatch (and counter storage) for every dispatch
// record, and the same Trace for every trace line, overwritten by the next call, as
// Decoder.ReuseDispatches does.
func (r *RecordReader) ReuseDispatches() { r.reuse = true }

// Next returns the next record, or io.EOF after the last one.
func (r *RecordReader) Next() (Record, error) {
	if r.next == nil && !r.done {
		d, line, err := r.spool.next()
		switch {
		case isEOF(err):
			r.done = true
		case err != nil:
			return Record{}, fmt.Errorf("reading records %s: %w", r.p.Path, err)
		default:
			r.next, r.line = d, line
		}
	}
	if r.traces == nil && r.p.traces != nil {
		r.traces = r.p.traces.byLine()
	}
	// The next line of the three sources, kept records first on a tie (there is none in a file).
	keptLine, traceLine := math.MaxInt, math.MaxInt
	if r.kept < len(r.p.kept) {
		keptLine = r.p.kept[r.kept].Line
	}
	if r.trace < len(r.traces) {
		traceLine = int(r.p.traces.recs[r.traces[r.trace]].line)
	}
	spoolLine := math.MaxInt
	if r.next != nil {
		spoolLine = r.line
	}
	switch {
	case keptLine == math.MaxInt && traceLine == math.MaxInt && r.next == nil:
		return Record{}, io.EOF
	case keptLine <= traceLine && keptLine <= spoolLine && keptLine != math.MaxInt:
		rec := r.p.kept[r.kept]
		r.kept++
		return rec, nil
	case traceLine < spoolLine || r.next == nil:
		return r.nextTrace(), nil
	}
	d := r.next
	r.next = nil
	if !r.reuse {
		d = copyDispatch(d)
	}
	return Record{Type: contract.RecDispatch, Line: r.line, Dispatch: d, Recovered: r.spool.recovered}, nil
}

// nextTrace hands out the next trace line.
func (r *RecordReader) nextTrace() Record {
	rec := &r.p.traces.recs[r.traces[r.trace]]
	r.trace++
	t := &r.t
	if !r.reuse {
		t = new(contract.Trace)
	}
	r.p.traces.fill(t, rec)
	return Record{Type: t.Kind, Line: int(rec.line), Trace: t}
}

// copyDispatch is a copy of d that shares no storage with it.
func copyDispatch(d *contract.Dispatch) *contract.Dispatch {
	var s dispatchSlot
	return s.copyOf(d)
}

// Builder builds a Process from records handed to it one at a time, numbered as the lines of a
// record file holding them would be, with every check ReadProcess makes: what the merge of an
// application replay produces instead of a merged record file.
type Builder struct {
	c    collector
	line int
}

// NewBuilder starts a process whose records would lie at path.
func NewBuilder(path string) *Builder {
	p := &Process{Path: path, Kernels: map[uint64]contract.Kernel{}, passCounts: map[uint64]int{}, spool: newSpool(), traces: newTraceStore()}
	return &Builder{c: collector{p: p, agents: map[uint64]bool{}, check: newPassChecker(MaxReorderWindow + 1)}}
}

// Add adds the next record; its Line is set here. The builder copies what it keeps, so rec's
// payload may be reused once Add returns.
func (b *Builder) Add(rec Record) {
	b.line++
	rec.Line = b.line
	b.c.add(rec)
}

// Finish ends the process and returns it; the builder is done.
func (b *Builder) Finish() (*Process, error) { return b.finish("merging") }

func (b *Builder) finish(doing string) (*Process, error) {
	p := b.c.p
	if err := p.spool.finish(); err != nil {
		p.Close()
		return nil, fmt.Errorf("%s records %s: %w", doing, p.Path, err)
	}
	if err := b.c.check.finish(p); err != nil {
		p.Close()
		return nil, fmt.Errorf("%s records %s: %w", doing, p.Path, err)
	}
	p.Problems = append(p.Problems, b.c.check.problems...)
	p.traces.sort()
	return p, nil
}
