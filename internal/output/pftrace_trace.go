package output

import (
	"math"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/perfetto"
)

// The trace lines in the Perfetto trace: a track per thread (below the process, before its agents)
// with its API calls and markers as slices nested as they ran, marks as instants; below each
// agent's track a track per copy operation to it with its copies. rocprofv3's categories name the
// slices (hip_api, hsa_api, marker_api, memory_copy); an API call, the copies it issued and the
// first pass of the dispatch it launched share a flow.

// threadTrack is a thread's lanes: each holds the slices open on it, innermost last, ending in
// order. A slice goes on the first lane where it fits inside the open ones (or where none is
// open), so that calls that overlap without one holding the other (a range started on one thread
// and stopped on another) get a lane of their own; the UI shows the lanes, siblings of one name,
// as one track.
type threadTrack struct {
	name  string
	rank  int32
	lanes []threadLane
}

type threadLane struct {
	track perfetto.Track
	open  []int64 // the ends of its open slices
}

// threadRankBase puts the threads' tracks before the agents' (ranked by agent index from 0).
const threadRankBase = math.MinInt32 / 2

// flowShift keeps the flows of the processes of one trace apart: a process's flow ids are its
// correlation ids plus its number in the trace times 2^40.
const flowShift = 40

// traceCategory is the category of a domain's slices: rocprofv3's for its domains, the domain's
// name in lower case for the others (CUDA's).
func traceCategory(domain string) string {
	switch {
	case strings.HasPrefix(domain, "HIP_"):
		return "hip_api"
	case strings.HasPrefix(domain, "HSA_"):
		return "hsa_api"
	case strings.HasPrefix(domain, "MARKER_"):
		return "marker_api"
	case domain == contract.DomainMemoryCopy:
		return "memory_copy"
	}
	return strings.ToLower(domain)
}

// beginTraces prepares the process's trace lines: its agents by handle for the copies' tracks, and
// whether its dispatches and copies name the host calls that issued them (an API domain is
// traced), which the flows follow.
func (s *pftraceSink) beginTraces(p *Process) {
	s.threads, s.nthreads = map[uint64]*threadTrack{}, 0
	s.byHandle = map[uint64]*contract.Agent{}
	for i := range p.Agents {
		s.byHandle[p.Agents[i].ID] = &p.Agents[i]
	}
	s.flows = false
	for _, d := range p.TracedDomains() {
		if d != contract.DomainMemoryCopy && !strings.HasPrefix(d, "MARKER_") {
			s.flows = true
		}
	}
	s.flowBase = uint64(s.nprocs) << flowShift
	s.nprocs++
}

// flow is the flow of the host call with correlation id corr: none when the process's correlation
// ids do not name host calls, or for 0 (the call was not traced).
func (s *pftraceSink) flow(corr uint64) []uint64 {
	if !s.flows || corr == 0 {
		return nil
	}
	s.flowIDs = append(s.flowIDs[:0], s.flowBase+corr)
	return s.flowIDs
}

// Trace writes one trace line.
func (s *pftraceSink) Trace(t *contract.Trace) error {
	if t.Kind == contract.RecCopy {
		return s.copySlice(t)
	}
	th, err := s.thread(t.ThreadID)
	if err != nil {
		return err
	}
	cat := traceCategory(t.Domain)
	s.args = append(s.args[:0], perfetto.Uint("corr_id", t.CorrelationID), perfetto.Uint("tid", t.ThreadID),
		perfetto.String("operation", t.Op))
	name, flows := t.Op, s.flow(t.CorrelationID)
	if t.Kind == contract.RecMarker {
		// As rocprofv3 names a marker's slice: its message. A marker starts no flow.
		name, flows = t.Message, nil
		if name == "" {
			name = t.Op
		}
	}
	end := t.End
	if end < t.Start {
		s.args, end = append(s.args, perfetto.Int("recorded_end", t.End)), t.Start
	}
	if t.Kind == contract.RecMarker && end == t.Start {
		l := &th.lanes[0]
		if err := s.closeEnded(l, t.Start); err != nil {
			return err
		}
		return s.w.Instant(l.track, cat, name, t.Start, s.args)
	}
	l, err := s.threadLane(th, t.Start, end)
	if err != nil {
		return err
	}
	l.open = append(l.open, end)
	return s.w.Begin(l.track, cat, name, t.Start, s.args, flows...)
}

// thread returns the thread's track, declaring its first lane the first time: "THREAD n (tid)" as
// rocprofv3 names them, the main thread (tid = pid) 0 and the others from 1 in the order their first
// lines come.
func (s *pftraceSink) thread(tid uint64) (*threadTrack, error) {
	if th := s.threads[tid]; th != nil {
		return th, nil
	}
	n := 0
	if tid != uint64(s.p.Header.PID) {
		s.nthreads++
		n = s.nthreads
	}
	th := &threadTrack{name: "THREAD " + strconv.Itoa(n) + " (" + strconv.FormatUint(tid, 10) + ")", rank: int32(threadRankBase + n)}
	t, err := s.w.Child(s.proc, th.name, th.rank)
	if err != nil {
		return nil, err
	}
	th.lanes = append(th.lanes, threadLane{track: t})
	s.threads[tid] = th
	return th, nil
}

// threadLane returns the lane a slice from start to end goes on, after closing on each lane tried
// the slices that ended by start.
func (s *pftraceSink) threadLane(th *threadTrack, start, end int64) (*threadLane, error) {
	for i := range th.lanes {
		l := &th.lanes[i]
		if err := s.closeEnded(l, start); err != nil {
			return nil, err
		}
		if n := len(l.open); n == 0 || end <= l.open[n-1] {
			return l, nil
		}
	}
	t, err := s.w.Child(s.proc, th.name, th.rank)
	if err != nil {
		return nil, err
	}
	th.lanes = append(th.lanes, threadLane{track: t})
	return &th.lanes[len(th.lanes)-1], nil
}

// closeEnded ends the lane's open slices that ended by ts, innermost first.
func (s *pftraceSink) closeEnded(l *threadLane, ts int64) error {
	for n := len(l.open); n > 0 && l.open[n-1] <= ts; n = len(l.open) {
		if err := s.w.End(l.track, l.open[n-1]); err != nil {
			return err
		}
		l.open = l.open[:n-1]
	}
	return nil
}

// endTraces ends every slice still open, thread by thread in the order their tracks were declared.
func (s *pftraceSink) endTraces() error {
	for _, th := range s.threadOrder() {
		for i := range th.lanes {
			if err := s.closeEnded(&th.lanes[i], math.MaxInt64); err != nil {
				return err
			}
		}
	}
	return nil
}

// threadOrder lists the thread tracks by rank, the order of their declaration.
func (s *pftraceSink) threadOrder() []*threadTrack {
	out := make([]*threadTrack, s.nthreads+1)
	for _, th := range s.threads {
		out[th.rank-threadRankBase] = th
	}
	kept := out[:0]
	for _, th := range out {
		if th != nil {
			kept = append(kept, th)
		}
	}
	return kept
}

// copySlice writes a copy on its destination agent's track of its operation, in lanes as a queue's
// dispatches are.
func (s *pftraceSink) copySlice(t *contract.Trace) error {
	a, err := s.agentTrack(t.DstAgentID, s.byHandle[t.DstAgentID])
	if err != nil {
		return err
	}
	q := a.copies[t.Op]
	if q == nil {
		q = &queueTrack{rank: int32(1<<20 + len(a.copies))}
		a.copies[t.Op] = q
	}
	end := t.End
	s.args = append(s.args[:0], perfetto.Uint("corr_id", t.CorrelationID), perfetto.Uint("tid", t.ThreadID),
		perfetto.String("src_agent", s.agentLabel(t.SrcAgentID)), perfetto.String("dst_agent", s.agentLabel(t.DstAgentID)),
		perfetto.Uint("copy_bytes", t.Size), perfetto.Uint("queue_id", t.QueueID), perfetto.Uint("stream_ID", t.StreamID))
	if end < t.Start {
		s.args, end = append(s.args, perfetto.Int("recorded_end", t.End)), t.Start
	}
	l, err := q.place(s.w, a.track, t.Op, t.Start, end)
	if err != nil {
		return err
	}
	return s.w.Slice(l, traceCategory(contract.DomainMemoryCopy), t.Op, t.Start, end, s.args, s.flow(t.CorrelationID)...)
}

// agentLabel names an agent as --agent-index does ("Agent 1", "GPU 0"); one without a record by
// its handle.
func (s *pftraceSink) agentLabel(id uint64) string {
	if a := s.byHandle[id]; a != nil {
		return agentIndexLabel(*a, s.opts.AgentIndex, " ")
	}
	return "Agent " + strconv.FormatUint(id, 10)
}
