package records

import (
	"cmp"
	"math"
	"slices"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// traceStore keeps a process's trace lines (docs/tracing.md) between the one decode of its record
// file and the sinks, in a fixed-size record each: a PyTorch step makes 10^4 to 10^5 API calls, a
// long run 10^7, so the strings a line repeats (its kind, domain and operation, its thread, a
// marker's message) are numbered once per process and a copy's own fields live apart from the
// calls'. A line costs about 40 bytes here where its JSON took 150 to 250.
type traceStore struct {
	recs    []traceRec   // every line, once sort has gathered them
	chunks  [][]traceRec // the lines added since, in chunks of traceChunk: no growing slice to copy
	count   int
	names   []traceName // kind, domain and operation by number
	nameOf  map[traceName]uint32
	threads []uint64 // thread ids by number
	thread  map[uint64]uint32
	msgs    []string // marker messages by number - 1
	msgOf   map[string]uint32
	copies  []copyFields
	sorted  bool // recs are in output order (sort)
}

// traceRec is one line. extra is a marker's message number + 1 (0: none) or a copy's index in
// copies.
type traceRec struct {
	start, end int64
	corr       uint64
	line       uint32 // the record file's line: the last key of the order, and Records' order
	thread     uint32
	name       uint32
	extra      uint32
}

// traceChunk is the lines of one chunk while the file is read (about 1.3 MB).
const traceChunk = 1 << 15

type traceName struct{ kind, domain, op string }

type copyFields struct{ src, dst, queue, stream, size, srcAddr, dstAddr uint64 }

func newTraceStore() *traceStore {
	return &traceStore{nameOf: map[traceName]uint32{}, thread: map[uint64]uint32{}, msgOf: map[string]uint32{}}
}

// add keeps t, read from line.
func (s *traceStore) add(line int, t *contract.Trace) {
	n := traceName{kind: t.Kind, domain: t.Domain, op: t.Op}
	r := traceRec{start: t.Start, end: t.End, corr: t.CorrelationID, line: uint32(min(line, math.MaxUint32)),
		name: intern(s.nameOf, &s.names, n), thread: intern(s.thread, &s.threads, t.ThreadID)}
	switch {
	case t.Kind == contract.RecCopy:
		r.extra = uint32(len(s.copies))
		s.copies = append(s.copies, copyFields{src: t.SrcAgentID, dst: t.DstAgentID, queue: t.QueueID, stream: t.StreamID,
			size: t.Size, srcAddr: t.SrcAddress, dstAddr: t.DstAddress})
	case t.Message != "":
		r.extra = intern(s.msgOf, &s.msgs, t.Message) + 1
	}
	if n := len(s.chunks); n == 0 || len(s.chunks[n-1]) == traceChunk {
		s.chunks = append(s.chunks, make([]traceRec, 0, traceChunk))
	}
	last := &s.chunks[len(s.chunks)-1]
	*last = append(*last, r)
	s.count++
	s.sorted = false
}

// intern returns v's number in list, adding it when new.
func intern[K comparable](index map[K]uint32, list *[]K, v K) uint32 {
	if i, ok := index[v]; ok {
		return i
	}
	i := uint32(len(*list))
	index[v] = i
	*list = append(*list, v)
	return i
}

// fill sets t to record r; the strings are the store's.
func (s *traceStore) fill(t *contract.Trace, r *traceRec) {
	n := s.names[r.name]
	*t = contract.Trace{Kind: n.kind, Domain: n.domain, Op: n.op, CorrelationID: r.corr, ThreadID: s.threads[r.thread],
		Start: r.start, End: r.end}
	switch {
	case n.kind == contract.RecCopy:
		c := s.copies[r.extra]
		t.SrcAgentID, t.DstAgentID, t.QueueID, t.StreamID = c.src, c.dst, c.queue, c.stream
		t.Size, t.SrcAddress, t.DstAddress = c.size, c.srcAddr, c.dstAddr
	case r.extra > 0:
		t.Message = s.msgs[r.extra-1]
	}
}

// sort puts the lines in output order once (docs/tracing.md): by start time, then thread id, then
// correlation id, then kind (api, marker, copy), domain and op, then end time, then file order. A
// call and the copy it issued share thread and correlation id and may share a start: the order
// does not depend on which the file holds first, so a merge that reads them back kind by kind
// (results.json) gives the run's order. The line number makes the order total, so an unstable sort
// gives it.
func (s *traceStore) sort() {
	if s.sorted {
		return
	}
	// The lines in file order: those sorted before, then the chunks'.
	at := func(i uint32) *traceRec {
		if int(i) < len(s.recs) {
			return &s.recs[i]
		}
		i -= uint32(len(s.recs))
		return &s.chunks[i/traceChunk][i%traceChunk]
	}
	// Threads and names compare by their values, not by the order they appeared in.
	thread := ranks(s.threads, cmp.Compare[uint64])
	name := ranks(s.names, func(a, b traceName) int {
		if c := cmp.Compare(kindOrder(a.kind), kindOrder(b.kind)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.kind, b.kind); c != 0 {
			return c
		}
		if c := cmp.Compare(a.domain, b.domain); c != 0 {
			return c
		}
		return cmp.Compare(a.op, b.op)
	})
	full := func(x, y *traceRec) int {
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		if c := cmp.Compare(thread[x.thread], thread[y.thread]); c != 0 {
			return c
		}
		if c := cmp.Compare(x.corr, y.corr); c != 0 {
			return c
		}
		if c := cmp.Compare(name[x.name], name[y.name]); c != 0 {
			return c
		}
		if c := cmp.Compare(x.end, y.end); c != 0 {
			return c
		}
		return cmp.Compare(x.line, y.line)
	}
	// Small keys are sorted, which moves less than half the bytes the records would, and nearly
	// every comparison ends at the start times; then the records are copied once, in order, into
	// one slice of the exact size (cycling them in place instead was slower: docs/perf.md).
	type key struct {
		start int64
		i     uint32
	}
	keys := make([]key, s.count)
	for i := range keys {
		keys[i] = key{at(uint32(i)).start, uint32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.start != b.start {
			return cmp.Compare(a.start, b.start)
		}
		return full(at(a.i), at(b.i))
	})
	sorted := make([]traceRec, len(keys))
	for k, key := range keys {
		sorted[k] = *at(key.i)
	}
	s.recs, s.chunks = sorted, nil
	s.sorted = true
}

// ranks returns each element's rank in list ordered by compare.
func ranks[T any](list []T, compare func(a, b T) int) []uint32 {
	order := make([]uint32, len(list))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return compare(list[a], list[b]) })
	rank := make([]uint32, len(list))
	for r, i := range order {
		rank[i] = uint32(r)
	}
	return rank
}

// kindOrder orders the kinds of lines that tie on start, thread and correlation id: an API call
// before a marker before a copy (another kind, from a newer tool, after them).
func kindOrder(kind string) int {
	switch kind {
	case contract.RecAPI:
		return 0
	case contract.RecMarker:
		return 1
	case contract.RecCopy:
		return 2
	}
	return 3
}

// byLine returns the indices of the records in file order, once sort has gathered them.
func (s *traceStore) byLine() []uint32 {
	s.sort()
	idx := make([]uint32, len(s.recs))
	for i := range idx {
		idx[i] = uint32(i)
	}
	slices.SortFunc(idx, func(a, b uint32) int { return cmp.Compare(s.recs[a].line, s.recs[b].line) })
	return idx
}

// EachTrace hands fn every trace line of the process (docs/tracing.md) in output order: by start
// time, then thread, then correlation id, then file order. The record is valid only during the call.
func (p *Process) EachTrace(fn func(*contract.Trace) error) error {
	s := p.traces
	if s == nil { // a Process not read or built here
		return nil
	}
	s.sort()
	var t contract.Trace
	for i := range s.recs {
		s.fill(&t, &s.recs[i])
		if err := fn(&t); err != nil {
			return err
		}
	}
	return nil
}

// TraceCount is the number of trace lines of the process.
func (p *Process) TraceCount() int {
	if p.traces == nil {
		return 0
	}
	return p.traces.count
}

// TracedDomains are the domains the process's trace lines name, sorted.
func (p *Process) TracedDomains() []string {
	if p.traces == nil {
		return nil
	}
	var ds []string
	for _, n := range p.traces.names {
		t := contract.Trace{Kind: n.kind, Domain: n.domain}
		if d := t.TraceDomain(); !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	slices.Sort(ds)
	return ds
}

// copyOps are the operations a copy line may name (docs/tracing.md).
var copyOps = []string{"MEMORY_COPY_HOST_TO_HOST", "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY_DEVICE_TO_HOST",
	"MEMORY_COPY_DEVICE_TO_DEVICE", "MEMORY_SET"}

// checkTrace reports what a trace line gets wrong; the line is kept either way, as a dispatch's is.
func (c *collector) checkTrace(line int, t *contract.Trace) {
	// What the messages call the line; built only for a line that has a problem.
	what := func() string {
		if t.Op == "" {
			return t.Kind + " line"
		}
		return t.Kind + " " + t.Op
	}
	if t.Op == "" {
		c.problem(line, "%s has no op", what())
	}
	if t.Kind != contract.RecCopy && t.Domain == "" {
		c.problem(line, "%s (correlation id %d) has no domain", what(), t.CorrelationID)
	}
	if t.End < t.Start {
		c.problem(line, "%s (correlation id %d) ends at %d, before its start %d", what(), t.CorrelationID, t.End, t.Start)
	}
	if t.Kind != contract.RecCopy {
		return
	}
	if t.Op != "" && !slices.Contains(copyOps, t.Op) {
		c.problem(line, "copy (correlation id %d): unknown op %q", t.CorrelationID, t.Op)
	}
	if !c.agents[t.SrcAgentID] {
		c.problem(line, "%s (correlation id %d) names source agent %d, which has no agent record before it", what(), t.CorrelationID, t.SrcAgentID)
	}
	if !c.agents[t.DstAgentID] {
		c.problem(line, "%s (correlation id %d) names destination agent %d, which has no agent record before it", what(), t.CorrelationID, t.DstAgentID)
	}
}
