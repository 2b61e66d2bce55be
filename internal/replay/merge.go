package replay

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// mergeLookahead bounds how many dispatches of one run the merge holds while it looks for the
// partner of a dispatch of the first run. Runs of a deterministic application dispatch in the same
// order, so the merge holds at most the few dispatches that completed in another order; only a
// diverging run reaches the bound, and then its unmatched dispatches are reported, not held.
const mergeLookahead = 1 << 16

// MergeReport says what a merge of application-replay runs produced.
type MergeReport struct {
	Processes   int          // merged processes
	Dispatches  uint64       // logical dispatches written (those of the first run)
	Complete    uint64       // logical dispatches that every run had
	Divergences []Divergence // where the runs disagree, ordered by process, pass, agent, kernel
}

// MergeRuns merges the processes of the runs of an application replay: runs[i] are the processes
// of pass i, as records.ReadRun read them. Processes are matched by their order of start in each
// run, dispatches by (agent, kernel name, per-kernel ordinal) and checked for the same launch
// geometry. Each merged process holds the first run's header, agents, kernels and trace lines and, for every
// dispatch of the first run, one dispatch line per run that matched it, carrying the first run's
// dispatch id and that run's pass: a records.Process built as if from a merged record file
// (records.Builder), of which none is written. Dispatches that do not match are reported in the
// returned divergences and left out; the rest is kept. The runs are read from their processes'
// spools, one dispatch at a time; the caller closes the merged processes.
func MergeRuns(runs [][]*records.Process) ([]*records.Process, MergeReport, error) {
	var rep MergeReport
	if len(runs) == 0 {
		return nil, rep, errors.New("merging application replay runs: no runs")
	}
	ordered := make([][]*records.Process, len(runs))
	for i, ps := range runs {
		ordered[i] = byStart(ps)
	}
	for r := 1; r < len(ordered); r++ {
		if len(ordered[r]) != len(ordered[0]) {
			rep.Divergences = append(rep.Divergences, Divergence{Pass: r + 1, Kind: DivergenceProcesses, Count: 1,
				Detail: fmt.Sprintf("pass %d ran %s, pass 1 ran %d; processes are matched by their order of start",
					r+1, plural(len(ordered[r]), "profiled process", "profiled processes"), len(ordered[0]))})
		}
	}
	var merged []*records.Process
	for p, base := range ordered[0] {
		partners := make([]*records.Process, len(ordered))
		for r := 1; r < len(ordered); r++ {
			if p < len(ordered[r]) {
				partners[r] = ordered[r][p]
			}
		}
		mp, pr, err := mergeProcess(p+1, base, partners)
		if err != nil {
			for _, m := range merged {
				m.Close()
			}
			return nil, rep, err
		}
		merged = append(merged, mp)
		rep.Processes++
		rep.Dispatches += pr.Dispatches
		rep.Complete += pr.Complete
		rep.Divergences = append(rep.Divergences, pr.Divergences...)
	}
	return merged, rep, nil
}

// byStart orders the processes of a run by start time, then process id: the order in which a
// deterministic application starts them again.
func byStart(ps []*records.Process) []*records.Process {
	out := slices.Clone(ps)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Header, out[j].Header
		if a.InitTime != b.InitTime {
			return a.InitTime < b.InitTime
		}
		if a.PID != b.PID {
			return a.PID < b.PID
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// mergeProcess merges process number proc (1-based) of every run; partners[r] is run r's process,
// nil where run r has none (partners[0] is unused: base is run 0's).
func mergeProcess(proc int, base *records.Process, partners []*records.Process) (*records.Process, MergeReport, error) {
	b := records.NewBuilder(base.Path)
	m := &merger{proc: proc, w: &mergedRecords{b}, div: newDivergences(proc), baseAgent: map[int]uint64{}, baseKernel: map[kernelKey]uint64{}}
	err := m.run(base, partners)
	merged, ferr := b.Finish()
	if err == nil {
		err = ferr
	}
	if err != nil {
		if merged != nil {
			merged.Close()
		}
		return nil, MergeReport{}, fmt.Errorf("merging process %d (%s): %w", proc, base.Path, err)
	}
	return merged, MergeReport{Processes: 1, Dispatches: m.dispatches, Complete: m.complete, Divergences: m.div.list()}, nil
}

// mergedRecords hands the merged records to the builder of the merged process, numbered as the
// lines of a merged record file would be; nil takes nothing (the first run's own warnings).
type mergedRecords struct{ b *records.Builder }

func (w *mergedRecords) write(t string, v any) error {
	if w == nil {
		return nil
	}
	rec := records.Record{Type: t}
	switch x := v.(type) {
	case *contract.Header:
		rec.Header = x
	case *contract.Agent:
		rec.Agent = x
	case *contract.Kernel:
		rec.Kernel = x
	case *contract.Dispatch:
		rec.Dispatch = x
	case *contract.Decline:
		rec.Decline = x
	case contract.Message:
		rec.Message = &x
	case contract.End:
		rec.End = &x
	case *contract.Trace:
		rec.Trace = x
	default:
		return fmt.Errorf("a merged %s record holds a %T", t, v)
	}
	w.b.Add(rec)
	return nil
}

// problem records an inconsistency of the input as a warning of the merged process.
func (w *mergedRecords) problem(msg string) {
	_ = w.write(contract.RecWarning, contract.Message{Message: msg})
}

// merger merges one process: the first run drives, the others are read just far enough to find
// each dispatch's partner.
type merger struct {
	proc       int
	w          *mergedRecords
	div        *divergences
	others     []*runStream         // index = run; nil for run 0 and for runs without this process
	baseAgent  map[int]uint64       // agent index -> agent id in the first run
	baseKernel map[kernelKey]uint64 // kernel -> kernel id in the first run
	dispatches uint64
	complete   uint64
	ended      bool
	end        *contract.End
}

func (m *merger) run(base *records.Process, partners []*records.Process) error {
	m.others = make([]*runStream, len(partners))
	for r := 1; r < len(partners); r++ {
		if partners[r] == nil {
			continue
		}
		m.others[r] = openRunStream(r, partners[r], m.w, m.div.names)
		if !slices.Equal(partners[r].Header.Cmdline, base.Header.Cmdline) {
			m.div.add(Divergence{Pass: r + 1, Kind: DivergenceProcesses, Count: 1,
				Detail: fmt.Sprintf("process %d ran %q on pass %d but %q on pass 1", m.proc, partners[r].Header.Cmdline, r+1, base.Header.Cmdline)})
		}
	}
	bs := openRunStream(0, base, nil, m.div.names)
	// A dispatch of the first run is merged before the next is read; the others' may wait in a
	// queue, so only this stream reuses its storage.
	bs.dec.ReuseDispatches()
	for {
		rec, err := bs.dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("pass 1: %s: %w", bs.path, err)
		}
		if err := m.base(bs, rec); err != nil {
			return err
		}
	}
	for r, s := range m.others {
		if s == nil {
			continue
		}
		if err := s.drain(m.div); err != nil {
			return err
		}
		if s.end == nil {
			m.ended = false
		}
		if s.truncated {
			if err := m.w.write(contract.RecWarning, passTruncated(r+1)); err != nil {
				return err
			}
		}
	}
	if m.end != nil && m.ended {
		e := *m.end
		e.Dispatches, e.Replayed, e.Declined = m.dispatches, 0, 0
		return m.w.write(contract.RecEnd, e)
	}
	return nil
}

// base handles one record of the first run.
func (m *merger) base(bs *runStream, rec records.Record) error {
	switch rec.Type {
	case contract.RecHeader:
		return m.w.write(contract.RecHeader, rec.Header)
	case contract.RecAgent:
		bs.agents[rec.Agent.ID] = rec.Agent.Index
		m.baseAgent[rec.Agent.Index] = rec.Agent.ID
		m.div.numbers[rec.Agent.Index] = rec.Agent.LogicalNodeID()
		return m.w.write(contract.RecAgent, rec.Agent)
	case contract.RecKernel:
		key := kernelKey{agent: bs.agents[rec.Kernel.AgentID], name: rec.Kernel.Name}
		bs.kernels[rec.Kernel.KernelID] = key
		bs.names[rec.Kernel.Name] = rec.Kernel.Demangled
		m.baseKernel[key] = rec.Kernel.KernelID
		return m.w.write(contract.RecKernel, rec.Kernel)
	case contract.RecDispatch:
		return m.dispatch(bs, rec.Dispatch)
	case contract.RecDecline:
		return m.w.write(contract.RecDecline, rec.Decline)
	case contract.RecAPI, contract.RecMarker, contract.RecCopy:
		// Only the first run traces (its plan alone has trace_domains): its calls are the merge's.
		return m.w.write(rec.Type, rec.Trace)
	case contract.RecWarning, contract.RecFatal:
		return m.w.write(rec.Type, passMessage(1, rec.Message.Message))
	case contract.RecEnd:
		m.end, m.ended = rec.End, true
	case records.TypeTruncated:
		return m.w.write(contract.RecWarning, passTruncated(1))
	case records.TypeSkipped:
		return m.w.write(contract.RecWarning, bs.skipped(rec))
	}
	return nil
}

// dispatch writes one dispatch of the first run followed by its partner in every other run. The
// partners are found first, so that warnings read on the way never split a dispatch's lines.
func (m *merger) dispatch(bs *runStream, d *contract.Dispatch) error {
	key := bs.keyOf(d)
	ord := bs.nextOrdinal(key)
	m.dispatches++
	partners := make([]*contract.Dispatch, len(m.others))
	complete := true
	for r, s := range m.others {
		if r == 0 {
			continue
		}
		if s == nil {
			complete = false
			continue
		}
		p, err := s.take(key)
		if err != nil {
			return err
		}
		switch {
		case p == nil:
			complete = false
			what := ""
			if s.queued >= mergeLookahead {
				what = fmt.Sprintf("no partner within the next %d dispatches of pass %d", mergeLookahead, r+1)
			}
			m.div.note(DivergenceMissing, key, ord, r+1, what)
		case p.Grid != d.Grid || p.Workgroup != d.Workgroup:
			complete = false
			m.div.note(DivergenceGeometry, key, ord, r+1, fmt.Sprintf("grid %v and workgroup %v on pass 1, grid %v and workgroup %v on pass %d",
				d.Grid, d.Workgroup, p.Grid, p.Workgroup, r+1))
		default:
			if p.Pass != r {
				// The tool writes application_pass as the pass; anything else is a run of another plan.
				m.w.problem(fmt.Sprintf("application replay pass %d: dispatch %d says pass %d", r+1, p.DispatchID, p.Pass))
			}
			partners[r] = p
		}
	}
	if err := m.w.write(contract.RecDispatch, d); err != nil {
		return err
	}
	for _, p := range partners {
		if p == nil {
			continue
		}
		// The logical dispatch keeps the first run's identity; times, queue and thread are the
		// run's own, as every pass of a kernel replay keeps its own.
		p.DispatchID, p.CorrelationID, p.ExternalID = d.DispatchID, d.CorrelationID, d.ExternalID
		p.KernelID, p.AgentID = d.KernelID, d.AgentID
		if err := m.w.write(contract.RecDispatch, p); err != nil {
			return err
		}
	}
	if complete {
		m.complete++
	}
	return nil
}

// kernelKey identifies a kernel across runs: kernel ids are handed out per process and may differ,
// the agent index and the symbol name do not.
type kernelKey struct {
	agent int
	name  string
}

// runStream reads one run's records of one process.
type runStream struct {
	run       int // 0-based pass
	path      string
	dec       *records.RecordReader
	sink      *mergedRecords // where this run's warnings go; nil for the first run
	agents    map[uint64]int
	kernels   map[uint64]kernelKey
	names     map[string]string // demangled kernel names by symbol, shared by the runs of a process
	ordinals  map[kernelKey]uint64
	queues    map[kernelKey]*dispatchQueue
	queued    int
	eof       bool
	end       *contract.End
	truncated bool
}

func openRunStream(run int, p *records.Process, sink *mergedRecords, names map[string]string) *runStream {
	return &runStream{run: run, path: p.Path, dec: p.Records(), sink: sink, names: names,
		agents: map[uint64]int{}, kernels: map[uint64]kernelKey{}, ordinals: map[kernelKey]uint64{},
		queues: map[kernelKey]*dispatchQueue{}}
}

// skipped words a damaged line the reader skipped: what it held is missing from the merge.
func (s *runStream) skipped(rec records.Record) contract.Message {
	return contract.Message{Message: fmt.Sprintf("application replay pass %d: %s line %d: damaged line skipped: %v",
		s.run+1, filepath.Join(contract.RecordsDir, filepath.Base(s.path)), rec.Line, rec.Err)}
}

func (s *runStream) keyOf(d *contract.Dispatch) kernelKey {
	if k, ok := s.kernels[d.KernelID]; ok {
		return k
	}
	// The reader reports a dispatch of an unknown kernel; keep it matchable by its id.
	return kernelKey{agent: s.agents[d.AgentID], name: fmt.Sprintf("<kernel %d>", d.KernelID)}
}

// nextOrdinal returns the 1-based ordinal of the next dispatch of a kernel in this run.
func (s *runStream) nextOrdinal(k kernelKey) uint64 {
	s.ordinals[k]++
	return s.ordinals[k]
}

// take returns this run's next unmatched dispatch of the kernel, reading ahead as far as needed
// (and allowed); nil when the run has no such dispatch within reach.
func (s *runStream) take(k kernelKey) (*contract.Dispatch, error) {
	for {
		if q := s.queues[k]; q != nil && q.len() > 0 {
			s.queued--
			return q.pop(), nil
		}
		if s.eof || s.queued >= mergeLookahead {
			return nil, nil
		}
		d, err := s.next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			continue
		}
		dk := s.keyOf(d)
		s.nextOrdinal(dk)
		q := s.queues[dk]
		if q == nil {
			q = &dispatchQueue{}
			s.queues[dk] = q
		}
		q.push(d)
		s.queued++
	}
}

// next reads one record, keeps what later dispatches need and hands over a dispatch; nil for
// other records and at the end.
func (s *runStream) next() (*contract.Dispatch, error) {
	rec, err := s.dec.Next()
	if errors.Is(err, io.EOF) {
		s.eof = true
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pass %d: %s: %w", s.run+1, s.path, err)
	}
	switch rec.Type {
	case contract.RecAgent:
		s.agents[rec.Agent.ID] = rec.Agent.Index
	case contract.RecKernel:
		s.kernels[rec.Kernel.KernelID] = kernelKey{agent: s.agents[rec.Kernel.AgentID], name: rec.Kernel.Name}
		s.names[rec.Kernel.Name] = rec.Kernel.Demangled
	case contract.RecDispatch:
		return rec.Dispatch, nil
	case contract.RecWarning, contract.RecFatal:
		return nil, s.sink.write(rec.Type, passMessage(s.run+1, rec.Message.Message))
	case contract.RecDecline:
		return nil, s.sink.write(contract.RecWarning, passDecline(s.run+1, rec.Decline))
	case contract.RecEnd:
		s.end = rec.End
	case records.TypeTruncated:
		s.truncated = true
	case records.TypeSkipped:
		return nil, s.sink.write(contract.RecWarning, s.skipped(rec))
	}
	return nil, nil
}

// drain reads the rest of the run and reports every dispatch the first run had no partner for.
func (s *runStream) drain(div *divergences) error {
	keys := make([]kernelKey, 0, len(s.queues))
	for k, q := range s.queues {
		if q.len() > 0 {
			keys = append(keys, k)
		}
	}
	sortKeys(keys)
	for _, k := range keys {
		q := s.queues[k]
		first := s.ordinals[k] - uint64(q.len()) + 1
		for q.len() > 0 {
			q.pop()
			div.note(DivergenceExtra, k, first, s.run+1, "")
			first++
		}
	}
	s.queued = 0
	for !s.eof {
		d, err := s.next()
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		k := s.keyOf(d)
		div.note(DivergenceExtra, k, s.nextOrdinal(k), s.run+1, "")
	}
	return nil
}

func sortKeys(keys []kernelKey) {
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].agent != keys[j].agent {
			return keys[i].agent < keys[j].agent
		}
		return keys[i].name < keys[j].name
	})
}

// dispatchQueue is a FIFO that reuses its storage once drained, so a run read in step with the
// first one allocates nothing per dispatch for it.
type dispatchQueue struct {
	items []*contract.Dispatch
	head  int
}

func (q *dispatchQueue) len() int { return len(q.items) - q.head }

func (q *dispatchQueue) push(d *contract.Dispatch) { q.items = append(q.items, d) }

func (q *dispatchQueue) pop() *contract.Dispatch {
	d := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head == len(q.items) {
		q.items, q.head = q.items[:0], 0
	}
	return d
}
