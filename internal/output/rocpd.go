package output

import (
	"encoding/json"
	"fmt"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// rocpdSink feeds the processes of one prefix to a rocpd database (-f rocpd): for each, the rows the
// database needs before the dispatches (process, agents, counters, kernels), then every dispatch
// with each pass's counters, those results.json and the CSV files get, under the same agent ids as
// the CSV files.
type rocpdSink struct {
	pf   *prefix
	opts Options
	w    *rocpd.Writer // nil before the first process
	v    *view         // the process begun and not ended
	d    rocpd.Dispatch
	vals []rocpd.CounterValues
	// regions are the ranges the process's calls were made in, for the dispatches' region names;
	// parents the calls the API calls were made in (parent_stack_id).
	regions *launchRegions
	parents *callParents
	call    rocpd.Call
	copy    rocpd.Copy
}

func openRocpd(pf *prefix, opts Options, _ bool) (prefixSink, error) {
	return &rocpdSink{pf: pf, opts: opts}, nil
}

// Begin adds the process to the database: the first process creates it, under the temporary name
// the other files of the prefix have too, so that it is renamed into place with them; the
// processes after it join it (rocpd.Writer.Process).
func (s *rocpdSink) Begin(proc *Process) error {
	v := newView(s.opts, proc)
	s.v = v
	var err error
	if s.regions, err = findLaunchRegions(proc.Process); err != nil {
		return err
	}
	s.parents = newCallParents()
	h := v.proc.Header
	var fini int64
	if v.proc.End != nil {
		fini = v.proc.End.FiniTime
	}
	// The process row also says whether the kernel trace was asked for, which results.json tells by
	// its kernel_dispatch records and a database cannot (every dispatch has its row and timestamps):
	// merge reads it back.
	md, err := json.Marshal(append(v.metadata(), kv{"kernel_trace", v.opts.KernelTrace}))
	if err != nil {
		return err
	}
	p := rocpd.Process{PID: h.PID, PPID: h.PPID, Hostname: h.Hostname, Init: h.InitTime,
		Fini: fini, Command: v.command, Extdata: md}
	if s.w != nil {
		if err := s.w.Process(p); err != nil {
			return err
		}
		return s.head(v)
	}
	tmp, final, err := s.pf.createPath("_results.db")
	if err != nil {
		return err
	}
	if s.w, err = rocpd.CreateInto(tmp, final, p); err != nil {
		return err
	}
	return s.head(v)
}

// Dispatch writes one logical dispatch with every pass and its counters.
func (s *rocpdSink) Dispatch(l *Dispatch) error {
	if len(l.Passes) == 0 {
		return nil
	}
	v := s.v
	first := l.Passes[0].Record
	_, group := v.replayPass(first)
	region, _ := s.regions.region(first.CorrelationID)
	s.d = rocpd.Dispatch{DispatchID: first.DispatchID, RegionName: region, Replayed: first.Passes > 1 && v.rotated == nil,
		Rotated: group >= 0, Group: group, AgentID: v.csvAgentID(first.AgentID), KernelID: first.KernelID,
		Grid: first.Grid, Workgroup: first.Workgroup, LDS: first.LDS, Scratch: first.Scratch, Passes: s.d.Passes[:0]}
	vals := s.vals[:0]
	for i := range l.Passes {
		d := l.Passes[i].Record
		start := len(vals)
		for _, c := range v.passCounters(&l.Passes[i]) {
			vals = append(vals, rocpd.CounterValues{CounterID: c.id, Values: c.Values})
		}
		pass, _ := v.replayPass(d)
		s.d.Passes = append(s.d.Passes, rocpd.Pass{Pass: pass, CorrelationID: d.CorrelationID, ExternalID: d.ExternalID,
			QueueID: d.QueueID, StreamID: d.StreamID, ThreadID: d.ThreadID, Start: d.Start, End: d.End,
			Counters: vals[start:len(vals):len(vals)]})
	}
	s.vals = vals
	return s.w.Dispatch(&s.d)
}

// Trace writes one trace line: an API call or marker as an event with its region or sample, a copy
// as an event and its rocpd_memory_copy row, its agents as the agent rows are numbered.
func (s *rocpdSink) Trace(t *contract.Trace) error {
	if t.Kind == contract.RecCopy {
		s.copy = rocpd.Copy{Name: t.Op, CorrelationID: t.CorrelationID, ThreadID: t.ThreadID,
			SrcAgentID: s.v.csvAgentID(t.SrcAgentID), DstAgentID: s.v.csvAgentID(t.DstAgentID), QueueID: t.QueueID,
			StreamID: t.StreamID, Size: t.Size, SrcAddress: t.SrcAddress, DstAddress: t.DstAddress, Start: t.Start, End: t.End}
		if err := s.w.Copy(&s.copy); err != nil {
			return fmt.Errorf("copy %s (correlation id %d): %w", t.Op, t.CorrelationID, err)
		}
		return nil
	}
	s.call = rocpd.Call{Category: t.Domain, Name: t.Op, Marker: t.Kind == contract.RecMarker, Message: t.Message,
		CorrelationID: t.CorrelationID, ThreadID: t.ThreadID, Start: t.Start, End: t.End}
	if t.Kind == contract.RecAPI {
		s.call.ParentID = s.parents.parent(t)
	}
	if err := s.w.Call(&s.call); err != nil {
		return fmt.Errorf("%s %s (correlation id %d): %w", t.Kind, t.Op, t.CorrelationID, err)
	}
	return nil
}

// End ends the process; the database stays open for the next one.
func (s *rocpdSink) End(error) error {
	s.v, s.regions, s.parents = nil, nil, nil
	return nil
}

// close closes the database before its file is synced with the others.
func (s *rocpdSink) close() error {
	if s.w == nil {
		return nil
	}
	err := s.w.Close()
	s.w = nil
	return err
}

func (s *rocpdSink) abort() {
	if s.w != nil {
		s.w.Abort()
		s.w = nil
	}
}

// head writes the agents (with their results.json object as extdata), counters and kernel symbols.
func (s *rocpdSink) head(v *view) error {
	agents := sortedAgents(v.proc)
	for i, obj := range v.agentObjects() {
		a := agents[i]
		ext, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		typeIndex, ok := a.Props["logical_node_type_id"]
		if !ok {
			typeIndex = int64(a.Index)
		}
		if err := s.w.Agent(rocpd.Agent{ID: v.csvAgentID(a.ID), Type: a.Type, LogicalIndex: agentNumber(a, "logical_node_id"),
			TypeIndex: typeIndex, UUID: a.Props["device_id"], Name: a.Name, ModelName: a.Strings["model_name"],
			VendorName: a.Vendor, ProductName: a.ProductName, Extdata: ext}); err != nil {
			return err
		}
	}
	for _, e := range v.cat.entries {
		ext, err := json.Marshal(counterExtdata(e.info.Dimensions))
		if err != nil {
			return err
		}
		if err := s.w.Counter(rocpd.Counter{ID: e.id, AgentID: v.csvAgentID(e.agentID), Name: e.info.Name,
			Description: e.info.Description, Block: e.info.Block, Expression: e.info.Expression,
			Component: v.proc.Header.Backend, Derived: e.info.Derived, Extdata: ext}); err != nil {
			return err
		}
	}
	kernels := sortedKernels(v.proc)
	for i, obj := range v.kernelSymbols() {
		k := kernels[i]
		ext, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		if err := s.w.Kernel(rocpd.Kernel{ID: k.KernelID, Name: k.Name, DisplayName: v.kernelName(k),
			KernargSize: k.KernargSize, GroupSegmentSize: k.GroupSegmentSize, PrivateSegmentSize: k.PrivateSegmentSize,
			SGPR: k.SGPR, ArchVGPR: k.VGPR, AccumVGPR: k.AccumVGPR, Extdata: ext}); err != nil {
			return err
		}
	}
	return nil
}

// counterExtdata is a counter row's extdata: its dimensions (name and instance count each), which
// results.json lists and rocpd_info_pmc has no column for, so that merge reads a database back into
// the same results.json.
func counterExtdata(dims []Dimension) object {
	list := []object{}
	for _, d := range dims {
		list = append(list, object{{"name", d.Name}, {"instance_size", d.Size}})
	}
	return object{{"dimensions", list}}
}
