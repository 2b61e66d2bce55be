package output

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/perfetto"
)

// pftraceSink writes the processes of one prefix as a Perfetto trace (-f pftrace): a process track
// each, below it a track per agent and below that a track per queue, with one slice per pass of
// every dispatch, the first in rocprofv3's category kernel_dispatch and the others in
// kernel_dispatch_replay, named with its kernel, and the pass
// (replay_pass), its counters (summed over instances, as the CSV files have them) and launch as its
// arguments; below the agent's track a counter track per counter with each pass's value. Under rotation
// nothing is replayed: a dispatch is one slice, its group the argument pmc_group. Under
// SeveralHosts every host is a machine of the trace, its processes on it.
type pftraceSink struct {
	opts     Options
	w        *perfetto.Writer
	machines map[string]perfetto.Machine // by host name, under SeveralHosts
	proc     perfetto.Track
	p        *Process
	rotated  map[uint64][]int       // the group of each pass by agent id, under rotation
	agents   map[uint64]*agentTrack // by agent id
	args     []perfetto.Arg
	cs       []perfetto.Arg
	// the trace lines (pftrace_trace.go)
	threads  map[uint64]*threadTrack // by tid
	nthreads int                     // threads numbered so far
	byHandle map[uint64]*contract.Agent
	flows    bool   // the process's correlation ids name host calls
	flowBase uint64 // added to the correlation ids of the process's flows
	nprocs   int    // processes begun
	flowIDs  []uint64
}

// agentTrack is an agent's track, its queues' tracks by queue id and its counter tracks by counter
// name.
type agentTrack struct {
	track    perfetto.Track
	label    string // the agent as the track names give it: "Agent [1]"
	queues   map[uint64]*queueTrack
	counters map[string]perfetto.Track
	copies   map[string]*queueTrack // the copies to the agent, by operation (pftrace_trace.go)
}

// kernelCategory is the category of a dispatch's first pass's slice, rocprofv3's: its reader counts
// those slices as the dispatches (as results.json's kernel_dispatch and the rocpd database's rows).
// replayCategory is gorocprof's, of the passes after the first.
const (
	kernelCategory = "kernel_dispatch"
	replayCategory = "kernel_dispatch_replay"
)

// queueTrack is a queue's lanes: a track for its first slice, and another for each slice that
// began before the last slice of every earlier lane had ended (concurrent dispatches of one queue,
// or the runs of an application replay, which a merged result puts on one queue). A lane's slices
// follow each other in time, which is all a track of the trace may hold without nesting. The lanes
// are siblings of one name, which the UI merges into one track of the queue (Perfetto's default
// for siblings of one name), laying out the overlapping slices below each other.
type queueTrack struct {
	rank  int32
	lanes []lane
}

type lane struct {
	track perfetto.Track
	end   int64 // where its last slice ends
}

// openPftrace creates the prefix's trace file; the processes of the prefix are one trace.
func openPftrace(pf *prefix, opts Options, _ bool) (prefixSink, error) {
	o, err := pf.create("_results.pftrace")
	if err != nil {
		return nil, err
	}
	return &pftraceSink{opts: opts, w: perfetto.NewWriter(o.bg), machines: map[string]perfetto.Machine{}}, nil
}

// Begin declares the process's track, and its host's machine when this is the host's first process
// under SeveralHosts; its agents and queues are declared with their first slice.
func (s *pftraceSink) Begin(p *Process) error {
	cmd := s.opts.Command
	if len(cmd) == 0 {
		cmd = p.Header.Cmdline
	}
	name := ""
	if len(cmd) > 0 {
		name = filepath.Base(cmd[0])
	}
	m, err := s.machine(p.Header.Hostname)
	if err != nil {
		return err
	}
	s.p, s.agents = p, map[uint64]*agentTrack{}
	_, s.rotated = p.rotation(s.opts)
	s.beginTraces(p)
	s.proc, err = s.w.Process(m, int32(p.Header.PID), name, cmd)
	return err
}

// machine returns the machine of host's processes: under SeveralHosts the host's own, declared
// with its first process, else the trace's host.
func (s *pftraceSink) machine(host string) (perfetto.Machine, error) {
	if !s.opts.SeveralHosts {
		return perfetto.Machine{}, nil
	}
	if m, ok := s.machines[host]; ok {
		return m, nil
	}
	m, err := s.w.Machine(host)
	s.machines[host] = m
	return m, err
}

// Dispatch writes a slice per pass.
func (s *pftraceSink) Dispatch(d *Dispatch) error {
	for i := range d.Passes {
		pass := &d.Passes[i]
		r := pass.Record
		t, err := s.lane(pass)
		if err != nil {
			return err
		}
		index, group := replayPass(s.rotated, r)
		passes := r.Passes
		if group >= 0 {
			passes = 1 // a rotated dispatch's pass is its group, not a replay
		}
		// One name per kernel, whatever the pass: the pass is an argument.
		name := KernelName(s.p.Kernels[r.KernelID], s.opts.Mangled, s.opts.Truncate)
		args, end := s.passArgs(pass, index, passes, group), r.End
		if end < r.Start {
			// A clock that went back: the slice shows the start, and the end as recorded.
			args, end = append(args, perfetto.Int("recorded_end", r.End)), r.Start
		}
		category, flows := kernelCategory, s.flow(r.CorrelationID)
		if i > 0 {
			category, flows = replayCategory, nil
		}
		if err := s.w.Slice(t, category, name, r.Start, end, args, flows...); err != nil {
			return fmt.Errorf("dispatch %d pass %d: %w", r.DispatchID, r.Pass, err)
		}
		if err := s.count(pass, r.Start, end); err != nil {
			return fmt.Errorf("dispatch %d pass %d: %w", r.DispatchID, r.Pass, err)
		}
	}
	return nil
}

// count writes the pass's counters on its agent's counter tracks, one per counter ("Agent [1] PMC
// SQ_WAVES", as rocprofv3 names them): the value (summed over instances, as in the CSV files) from
// the pass's start, 0 from its end.
func (s *pftraceSink) count(pass *Pass, start, end int64) error {
	a := s.agents[pass.Record.AgentID]
	for _, c := range pass.Counters {
		if c.ID == 0 {
			continue
		}
		t, ok := a.counters[c.Name]
		if !ok {
			var err error
			if t, err = s.w.Counter(a.track, a.label+" PMC "+c.Name); err != nil {
				return err
			}
			a.counters[c.Name] = t
		}
		if err := s.w.Count(t, start, sum(c.Values)); err != nil {
			return err
		}
		if err := s.w.Count(t, end, 0); err != nil {
			return err
		}
	}
	return nil
}

// End ends the slices of the trace lines still open; the trace is complete after every packet.
func (s *pftraceSink) End(failed error) error {
	if failed == nil {
		failed = s.endTraces()
	}
	s.p, s.agents, s.threads, s.byHandle = nil, nil, nil, nil
	return failed
}

// close has nothing to write either; the prefix syncs and renames the file.
func (s *pftraceSink) close() error { return nil }

// abort leaves the file to the prefix, which removes it.
func (s *pftraceSink) abort() {}

// passArgs are a pass's arguments: its identity (replay pass index of passes, and under rotation
// its group, else group < 0), launch and counters.
func (s *pftraceSink) passArgs(pass *Pass, index, passes, group int) []perfetto.Arg {
	r := pass.Record
	agentID := r.AgentID
	if pass.Agent != nil {
		agentID = pass.Agent.NodeID()
	}
	s.args = append(s.args[:0], perfetto.Uint("dispatch_id", r.DispatchID), perfetto.Int("replay_pass", int64(index)),
		perfetto.Int("replay_passes", int64(passes)))
	if group >= 0 {
		s.args = append(s.args, perfetto.Int("pmc_group", int64(group)))
	}
	s.args = append(s.args, perfetto.Uint("correlation_id", r.CorrelationID),
		perfetto.Uint("kernel_id", r.KernelID), perfetto.Uint("agent_id", agentID), perfetto.Uint("queue_id", r.QueueID),
		perfetto.Uint("stream_id", r.StreamID), perfetto.Uint("thread_id", r.ThreadID),
		perfetto.Array("grid", []perfetto.Arg{perfetto.Uint("", uint64(r.Grid[0])), perfetto.Uint("", uint64(r.Grid[1])), perfetto.Uint("", uint64(r.Grid[2]))}),
		perfetto.Array("workgroup", []perfetto.Arg{perfetto.Uint("", uint64(r.Workgroup[0])), perfetto.Uint("", uint64(r.Workgroup[1])), perfetto.Uint("", uint64(r.Workgroup[2]))}),
		perfetto.Int("lds", r.LDS), perfetto.Int("scratch", r.Scratch))
	s.cs = s.cs[:0]
	for _, c := range pass.Counters {
		if c.ID != 0 { // as the other files: only the counters the catalog numbers
			s.cs = append(s.cs, perfetto.Double(c.Name, sum(c.Values)))
		}
	}
	if len(s.cs) > 0 {
		s.args = append(s.args, perfetto.Dict("counters", s.cs))
	}
	return s.args
}

// lane returns the track a pass's slice goes on, declaring its agent's, its queue's and a lane's
// track when this is their first slice.
func (s *pftraceSink) lane(pass *Pass) (perfetto.Track, error) {
	r := pass.Record
	a, err := s.agentTrack(r.AgentID, pass.Agent)
	if err != nil {
		return perfetto.Track{}, err
	}
	q := a.queues[r.QueueID]
	if q == nil {
		q = &queueTrack{rank: int32(len(a.queues))}
		a.queues[r.QueueID] = q
	}
	return q.place(s.w, a.track, "queue "+strconv.FormatUint(r.QueueID, 10), r.Start, r.End)
}

// agentTrack returns the track of the agent with handle id (ag its record, nil when the records
// have none), declaring it the first time.
func (s *pftraceSink) agentTrack(id uint64, ag *contract.Agent) (*agentTrack, error) {
	if a := s.agents[id]; a != nil {
		return a, nil
	}
	name, rank := "Agent "+strconv.FormatUint(id, 10), int32(len(s.p.Agents))
	label := "Agent [" + strconv.FormatUint(id, 10) + "]"
	if ag != nil {
		name, rank = agentTrackName(ag, s.opts.AgentIndex), int32(ag.Index)
		label = agentIndexLabel(*ag, s.opts.AgentIndex, " [") + "]"
	}
	t, err := s.w.Child(s.proc, name, rank)
	if err != nil {
		return nil, err
	}
	a := &agentTrack{track: t, label: label, queues: map[uint64]*queueTrack{}, counters: map[string]perfetto.Track{},
		copies: map[string]*queueTrack{}}
	s.agents[id] = a
	return a, nil
}

// place returns the lane a slice from start to end goes on: the first whose last slice has ended
// by start, else a new one, a child of parent named name.
func (q *queueTrack) place(w *perfetto.Writer, parent perfetto.Track, name string, start, end int64) (perfetto.Track, error) {
	for i := range q.lanes {
		if l := &q.lanes[i]; start >= l.end {
			l.end = max(end, start)
			return l.track, nil
		}
	}
	t, err := w.Child(parent, name, q.rank)
	if err != nil {
		return t, err
	}
	q.lanes = append(q.lanes, lane{track: t, end: max(end, start)})
	return t, nil
}

// agentTrackName names an agent as the CSV files' Agent_Id does (--agent-index), with its name and
// its product.
func agentTrackName(a *contract.Agent, indexing string) string {
	name := agentIndexLabel(*a, indexing, " ") + " " + a.Name
	if a.ProductName != "" {
		name += ": " + a.ProductName
	}
	return name
}

var _ prefixSink = (*pftraceSink)(nil)
