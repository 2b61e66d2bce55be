package output

import (
	"encoding/json"
	"path/filepath"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// rocpdSink feeds the processes of one prefix to a rocpd database (-f rocpd): for each, the rows the
// database needs before the dispatches (process, agents, counters, kernels), then every pass with
// the counters results.json and the CSV files get, under the same agent ids as the CSV files.
type rocpdSink struct {
	w    *rocpd.Writer
	vals []rocpd.CounterValues
}

// rocpdProcess adds v's process to the database: the first process creates it, under the temporary
// name the other files of the prefix have too, so that it is renamed into place with them; the
// processes after it join it (rocpd.Writer.Process). SQLite opens the file by its path: the
// directories of that path passed the checks of openLocation (ours, or root's and sticky), so no
// other user can make the name lead elsewhere.
func (s *streams) rocpdProcess(v *view) error {
	h := v.proc.Header
	var fini int64
	if v.proc.End != nil {
		fini = v.proc.End.FiniTime
	}
	// The process row also says whether the kernel trace was asked for, which results.json tells by
	// its kernel_dispatch records and a database cannot (every pass has its dispatch row): merge
	// reads it back.
	md, err := json.Marshal(append(v.metadata(), kv{"kernel_trace", v.opts.KernelTrace}))
	if err != nil {
		return err
	}
	p := rocpd.Process{PID: h.PID, PPID: h.PPID, Hostname: h.Hostname, Init: h.InitTime,
		Fini: fini, Command: v.command, Extdata: md}
	if s.db != nil {
		if err := s.db.w.Process(p); err != nil {
			return err
		}
		return s.db.head(v)
	}
	const suffix = "_results.db"
	f, tmp, err := s.loc.createTemp(s.base + suffix)
	if err != nil {
		return err
	}
	s.files = append(s.files, &outFile{final: s.base + suffix, tmp: tmp, f: f})
	w, err := rocpd.CreateInto(filepath.Join(s.loc.path, tmp), filepath.Join(s.loc.path, s.base+suffix), p)
	if err != nil {
		return err
	}
	s.db = &rocpdSink{w: w}
	return s.db.head(v)
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

// pass writes one pass of a dispatch and its counters.
func (s *rocpdSink) pass(v *view, d *contract.Dispatch, counters []idValues) error {
	s.vals = s.vals[:0]
	for _, c := range counters {
		s.vals = append(s.vals, rocpd.CounterValues{CounterID: c.id, Values: c.Values})
	}
	return s.w.Dispatch(rocpd.Dispatch{DispatchID: d.DispatchID, Pass: d.Pass, Replayed: d.Passes > 1,
		CorrelationID: d.CorrelationID, ExternalID: d.ExternalID, AgentID: v.csvAgentID(d.AgentID), QueueID: d.QueueID,
		StreamID: d.StreamID, ThreadID: d.ThreadID, KernelID: d.KernelID, Grid: d.Grid, Workgroup: d.Workgroup,
		LDS: d.LDS, Scratch: d.Scratch, Start: d.Start, End: d.End}, s.vals)
}
