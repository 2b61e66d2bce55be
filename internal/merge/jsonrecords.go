package merge

import (
	"fmt"
	"io"
	"os"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

type correlationJSON struct {
	Internal uint64 `json:"internal"`
	External uint64 `json:"external"`
}

type dim3JSON struct {
	X uint32 `json:"x"`
	Y uint32 `json:"y"`
	Z uint32 `json:"z"`
}

type dispatchInfoJSON struct {
	AgentID    handleJSON `json:"agent_id"`
	QueueID    handleJSON `json:"queue_id"`
	KernelID   uint64     `json:"kernel_id"`
	DispatchID uint64     `json:"dispatch_id"`
	Private    int64      `json:"private_segment_size"`
	Group      int64      `json:"group_segment_size"`
	Workgroup  dim3JSON   `json:"workgroup_size"`
	Grid       dim3JSON   `json:"grid_size"`
}

// recordJSON is a counter record (its dispatch_data's fields and records) or a kernel dispatch
// record (the same fields at the top); the one struct takes either. lexer.record fills it.
type recordJSON struct {
	DispatchData    dispatchDataJSON // a counter record's; HasDispatchData says whether it had one
	HasDispatchData bool
	Correlation     correlationJSON
	Start           int64
	End             int64
	Info            dispatchInfoJSON
	Records         []counterRecordJSON
	ThreadID        uint64
	ReplayPass      int
	StreamID        handleJSON
	PMCGroup        *int // under rotation, the group the dispatch collected
}

type dispatchDataJSON struct {
	Correlation correlationJSON
	Start       int64
	End         int64
	Info        dispatchInfoJSON
}

type counterRecordJSON struct {
	CounterID handleJSON
	Value     float64 // NaN for a null value
}

// arrayCursor walks one record array of an element, a pass at a time. A goroutine of its own
// decodes the array ahead of the reader (decoder), so that the decoding and what the reader does
// with each pass (the check, the records builder, the other array's decoding) take two cores.
type arrayCursor struct {
	f       *os.File
	cur     *contract.Dispatch // nil when the array is done
	batches chan decoded
	stop    chan struct{} // closed by close: the decoder gives up
	exited  chan struct{} // closed by the decoder when it returns
	pending []*contract.Dispatch
	err     error // what the decoder met after pending
	done    bool
}

// decoded is a run of the array's passes, in order, and the error the decoder met after them (nil
// while there is more).
type decoded struct {
	passes []*contract.Dispatch
	err    error
}

// decodeBatch is how many passes go to the reader at a time: enough that handing them over costs
// little beside their decoding, few enough that memory stays a few MB.
const decodeBatch = 256

// openArray starts a cursor at the array whose key ends at offset at; nil when at < 0.
func openArray(path string, at int64, h *head, name string) (*arrayCursor, error) {
	if at < 0 {
		return &arrayCursor{done: true}, nil
	}
	f, err := boundedread.Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	lex := newLexer(f, at, h.read)
	if err := lex.expect(':'); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := lex.expect('['); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &arrayCursor{f: f, batches: make(chan decoded, 4), stop: make(chan struct{}), exited: make(chan struct{})}
	go (&decoder{lex: lex, h: h, name: name}).run(c)
	return c, c.next()
}

// close stops the decoder, if it still runs, and closes the file once it has.
func (c *arrayCursor) close() {
	if c.f == nil {
		return
	}
	close(c.stop)
	<-c.exited
	c.f.Close()
	c.f = nil
}

// next sets cur to the next pass, or to nil after the last; the decoder's error comes where it
// met it, after the passes before it.
func (c *arrayCursor) next() error {
	c.cur = nil
	for len(c.pending) == 0 {
		if c.done || c.err != nil {
			return c.err
		}
		b, ok := <-c.batches
		if !ok {
			c.done = true
			return nil
		}
		c.pending, c.err = b.passes, b.err
	}
	c.cur = c.pending[0]
	c.pending[0] = nil
	c.pending = c.pending[1:]
	return nil
}

// decoder reads one record array into passes for an arrayCursor.
type decoder struct {
	lex  *lexer
	h    *head
	rec  recordJSON // reused: its Records keep their room from record to record
	name string
	n    int
}

// run sends the array's passes in batches until its end, an error or the cursor's close.
func (d *decoder) run(c *arrayCursor) {
	defer close(c.exited)
	defer close(c.batches)
	for {
		b := decoded{passes: make([]*contract.Dispatch, 0, decodeBatch)}
		last := false
		for len(b.passes) < decodeBatch {
			p, err := d.next()
			if err != nil || p == nil {
				b.err, last = err, true
				break
			}
			b.passes = append(b.passes, p)
		}
		select {
		case c.batches <- b:
		case <-c.stop:
			return
		}
		if last {
			return
		}
	}
}

// next reads the next record, nil after the last.
func (d *decoder) next() (*contract.Dispatch, error) {
	more, err := d.lex.more(d.n == 0, ']')
	if err != nil {
		return nil, fmt.Errorf("%s[%d]: %w", d.name, d.n, err)
	}
	if !more {
		return nil, nil
	}
	if err := d.lex.record(&d.rec); err != nil {
		return nil, fmt.Errorf("%s[%d]: %w", d.name, d.n, err)
	}
	p, err := d.h.dispatchOf(&d.rec)
	if err != nil {
		return nil, fmt.Errorf("%s[%d]: %w", d.name, d.n, err)
	}
	d.n++
	return p, nil
}

// dispatchOf turns a record into the pass it records, its counters named; a run of instance
// values of one counter id is that counter's values.
func (h *head) dispatchOf(r *recordJSON) (*contract.Dispatch, error) {
	corr, start, end, info := r.Correlation, r.Start, r.End, r.Info
	if r.HasDispatchData {
		corr, start, end, info = r.DispatchData.Correlation, r.DispatchData.Start, r.DispatchData.End, r.DispatchData.Info
	}
	d := &contract.Dispatch{DispatchID: info.DispatchID, Pass: r.ReplayPass, CorrelationID: corr.Internal,
		ExternalID: corr.External, AgentID: info.AgentID.Handle, QueueID: info.QueueID.Handle, StreamID: r.StreamID.Handle, ThreadID: r.ThreadID,
		KernelID: info.KernelID, Grid: [3]uint32{info.Grid.X, info.Grid.Y, info.Grid.Z},
		Workgroup: [3]uint32{info.Workgroup.X, info.Workgroup.Y, info.Workgroup.Z}, LDS: info.Group,
		Scratch: info.Private, Start: start, End: end}
	if err := h.rotatedPass(d, r.PMCGroup); err != nil {
		return nil, err
	}
	// One allocation for the values of the pass and one for their pointers, which the counters'
	// Values slice, each capped at its own end, not one per instance.
	values := make([]float64, len(r.Records))
	ptrs := make([]*float64, len(r.Records))
	runs := 0
	for i := range r.Records {
		if i == 0 || r.Records[i].CounterID.Handle != r.Records[i-1].CounterID.Handle {
			runs++
		}
	}
	d.Counters = make([]contract.CounterValue, 0, runs)
	last, first := uint64(0), 0
	for i, rec := range r.Records {
		id := rec.CounterID.Handle
		values[i] = rec.Value
		ptrs[i] = &values[i]
		if len(d.Counters) > 0 && id == last {
			d.Counters[len(d.Counters)-1].Values = ptrs[first : i+1 : i+1]
			continue
		}
		c, ok := h.counters[id]
		if !ok {
			return nil, fmt.Errorf("dispatch %d pass %d: counter id %d is not in the counters list", d.DispatchID, d.Pass, id)
		}
		if c.agentID != d.AgentID {
			return nil, fmt.Errorf("dispatch %d pass %d: counter %s (id %d) belongs to agent %d, the dispatch ran on agent %d",
				d.DispatchID, d.Pass, c.info.Name, id, c.agentID, d.AgentID)
		}
		for _, prev := range d.Counters {
			if prev.Name == c.info.Name {
				return nil, fmt.Errorf("dispatch %d pass %d: counter %s appears twice, apart", d.DispatchID, d.Pass, c.info.Name)
			}
		}
		d.Counters = append(d.Counters, contract.CounterValue{Name: c.info.Name, Values: ptrs[i : i+1 : i+1]})
		last, first = id, i
	}
	return d, nil
}

func (src *jsonSource) each(h *head, fn func(d *contract.Dispatch) error) error {
	cs, err := openArray(h.input, src.countersAt, h, "callback_records.counter_collection")
	if err != nil {
		return err
	}
	defer cs.close()
	first, err := openArray(h.input, src.traceAt, h, "buffer_records.kernel_dispatch")
	if err != nil {
		return err
	}
	defer first.close()
	replays, err := openArray(h.input, src.replaysAt, h, "buffer_records."+replayArray)
	if err != nil {
		return err
	}
	defer replays.close()
	ts := &mergedCursor{a: first, b: replays}
	ts.pick()
	// Under rotation a dispatch is one pass, which its counter record names by its group and its
	// kernel dispatch record as pass 0: the two are joined by dispatch id.
	order := before
	if h.rotation != nil {
		order = func(a, b *contract.Dispatch) bool { return a.DispatchID < b.DispatchID }
	}
	g := grouper{fn: fn}
	for cs.cur != nil || ts.cur != nil {
		var d *contract.Dispatch
		switch {
		case ts.cur == nil || (cs.cur != nil && order(cs.cur, ts.cur)):
			d = cs.cur
			err = cs.next()
		case cs.cur == nil || order(ts.cur, cs.cur):
			d = ts.cur
			err = ts.next()
		default: // the same pass in both: the counter record has every field the trace record has
			d = cs.cur
			if err = cs.next(); err == nil {
				err = ts.next()
			}
		}
		if err != nil {
			return err
		}
		if err := g.add(d); err != nil {
			return err
		}
	}
	return g.flush()
}

// mergedCursor walks the kernel dispatch records of both arrays (the first passes, the others) as one
// array in (dispatch id, pass) order, which each holds them in.
type mergedCursor struct {
	a, b *arrayCursor
	cur  *contract.Dispatch
	from *arrayCursor // the array cur came from
}

func (m *mergedCursor) pick() {
	m.from = m.a
	if m.a.cur == nil || (m.b.cur != nil && before(m.b.cur, m.a.cur)) {
		m.from = m.b
	}
	m.cur = m.from.cur
}

func (m *mergedCursor) next() error {
	if err := m.from.next(); err != nil {
		return err
	}
	m.pick()
	return nil
}

// before orders passes as the arrays hold them: by dispatch id, then pass.
func before(a, b *contract.Dispatch) bool {
	if a.DispatchID != b.DispatchID {
		return a.DispatchID < b.DispatchID
	}
	return a.Pass < b.Pass
}

// grouper collects the passes of one dispatch id, so that each gets Passes (its pass count: one
// past the highest pass recorded, unless its record gave it one) before it goes on.
type grouper struct {
	fn     func(*contract.Dispatch) error
	passes []*contract.Dispatch
}

func (g *grouper) add(d *contract.Dispatch) error {
	if len(g.passes) > 0 && g.passes[0].DispatchID != d.DispatchID {
		if err := g.flush(); err != nil {
			return err
		}
	}
	g.passes = append(g.passes, d)
	return nil
}

func (g *grouper) flush() error {
	n := 0
	for _, d := range g.passes {
		n = max(n, d.Pass+1)
	}
	for _, d := range g.passes {
		if d.Passes == 0 {
			d.Passes = n
		}
		if err := g.fn(d); err != nil {
			return err
		}
	}
	g.passes = g.passes[:0]
	return nil
}
