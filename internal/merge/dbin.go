package merge

import (
	"encoding/json"
	"fmt"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/rocpd"
)

// dbSource is one process of a rocpd database and the row ids its dispatch rows name, as the ids
// the Writer was given.
type dbSource struct {
	proc    rocpd.ReadProcess
	agents  map[int64]uint64 // agent row -> agent handle
	kernels map[int64]uint64 // kernel row -> kernel id
}

// scanDB reads the head of every process of a rocpd database.
func scanDB(path string) ([]*head, error) {
	r, err := rocpd.Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	procs, err := r.Processes()
	if err != nil {
		return nil, err
	}
	var heads []*head
	for _, p := range procs {
		h, err := scanDBProcess(r, path, p)
		if err != nil {
			return nil, fmt.Errorf("process %d: %w", p.PID, err)
		}
		heads = append(heads, h)
	}
	return heads, nil
}

func scanDBProcess(r *rocpd.Reader, path string, p rocpd.ReadProcess) (*head, error) {
	src := &dbSource{proc: p, agents: map[int64]uint64{}, kernels: map[int64]uint64{}}
	h := &head{input: path, src: src, counters: map[uint64]inCounter{}}
	var md metadata
	if err := json.Unmarshal(p.Extdata, &md); err != nil {
		return nil, fmt.Errorf("process extdata: %w", err)
	}
	if err := md.apply(h); err != nil {
		return nil, err
	}
	// A database whose process row does not say is taken to have the trace: every pass has its
	// timestamps.
	h.kernelTrace = md.KernelTrace == nil || *md.KernelTrace
	agents, err := r.Agents(p)
	if err != nil {
		return nil, err
	}
	for _, row := range agents {
		a, err := output.AgentFromObject(row.Extdata)
		if err != nil {
			return nil, fmt.Errorf("agent row %d: %w", row.Row, err)
		}
		if row.TypeIndex != int64(a.Index) {
			a.Props["logical_node_type_id"] = row.TypeIndex
		}
		src.agents[row.Row] = a.ID
		h.agents = append(h.agents, a)
	}
	pmcs, err := r.Counters(p)
	if err != nil {
		return nil, err
	}
	for _, row := range pmcs {
		agent, ok := src.agents[row.AgentRow]
		if !ok {
			return nil, fmt.Errorf("counter row %d (%s) names agent row %d, which the process does not have", row.Row, row.Name, row.AgentRow)
		}
		info := counters.CounterInfo{Name: row.Name, Description: row.Counter.Description, Block: row.Counter.Block,
			Expression: row.Counter.Expression, Derived: row.Counter.Derived}
		var ext struct {
			Dimensions []struct {
				Name         string `json:"name"`
				InstanceSize int    `json:"instance_size"`
			} `json:"dimensions"`
		}
		if len(row.Extdata) > 0 {
			if err := json.Unmarshal(row.Extdata, &ext); err != nil {
				return nil, fmt.Errorf("counter row %d (%s) extdata: %w", row.Row, row.Name, err)
			}
		}
		for _, d := range ext.Dimensions {
			info.Dimensions = append(info.Dimensions, counters.Dimension{Name: d.Name, Size: d.InstanceSize})
		}
		h.counters[uint64(row.Row)] = inCounter{agentID: agent, info: info}
	}
	kernels, err := r.Kernels(p)
	if err != nil {
		return nil, err
	}
	for _, row := range kernels {
		k, err := output.KernelFromSymbol(row.Extdata)
		if err != nil {
			return nil, fmt.Errorf("kernel row %d: %w", row.Row, err)
		}
		src.kernels[row.Row] = k.KernelID
		h.kernels = append(h.kernels, k)
	}
	return h, nil
}

func (src *dbSource) each(h *head, fn func(d *contract.Dispatch) error) error {
	r, err := rocpd.Open(h.input)
	if err != nil {
		return err
	}
	defer r.Close()
	g := grouper{fn: fn}
	err = r.Dispatches(src.proc, func(rd *rocpd.ReadDispatch) error {
		d, err := src.dispatchOf(h, rd)
		if err != nil {
			return err
		}
		return g.add(d)
	})
	if err != nil {
		return err
	}
	return g.flush()
}

// dispatchOf turns a dispatch row back into its pass record.
func (src *dbSource) dispatchOf(h *head, rd *rocpd.ReadDispatch) (*contract.Dispatch, error) {
	var ext struct {
		PMCGroup *int `json:"pmc_group"`
	}
	if len(rd.Extdata) > 0 {
		if err := json.Unmarshal(rd.Extdata, &ext); err != nil {
			return nil, fmt.Errorf("dispatch %d: extdata: %w", rd.DispatchID, err)
		}
	}
	agent, ok := src.agents[rd.AgentRow]
	if !ok {
		return nil, fmt.Errorf("dispatch %d pass %d names agent row %d, which the process does not have", rd.DispatchID, rd.Pass, rd.AgentRow)
	}
	kernel, ok := src.kernels[rd.KernelRow]
	if !ok {
		return nil, fmt.Errorf("dispatch %d pass %d names kernel row %d, which the process does not have", rd.DispatchID, rd.Pass, rd.KernelRow)
	}
	d := &contract.Dispatch{DispatchID: rd.DispatchID, Pass: rd.Pass, CorrelationID: rd.CorrelationID,
		ExternalID: rd.ExternalID, AgentID: agent, QueueID: rd.QueueID, StreamID: rd.StreamID, ThreadID: rd.ThreadID,
		KernelID: kernel, Grid: rd.Grid, Workgroup: rd.Workgroup, LDS: rd.LDS, Scratch: rd.Scratch,
		Start: rd.Start, End: rd.End}
	if err := h.rotatedPass(d, ext.PMCGroup); err != nil {
		return nil, err
	}
	for _, v := range rd.Counters {
		c, ok := h.counters[uint64(v.PMCRow)]
		if !ok {
			return nil, fmt.Errorf("dispatch %d pass %d: counter row %d is not in rocpd_info_pmc", d.DispatchID, d.Pass, v.PMCRow)
		}
		if c.agentID != d.AgentID {
			return nil, fmt.Errorf("dispatch %d pass %d: counter %s belongs to agent %d, the dispatch ran on agent %d",
				d.DispatchID, d.Pass, c.info.Name, c.agentID, d.AgentID)
		}
		var inst struct {
			Instances []*float64 `json:"instances"`
		}
		if len(v.Extdata) > 0 {
			if err := json.Unmarshal(v.Extdata, &inst); err != nil {
				return nil, fmt.Errorf("dispatch %d pass %d: counter %s extdata: %w", d.DispatchID, d.Pass, c.info.Name, err)
			}
		}
		cv := contract.CounterValue{Name: c.info.Name}
		if inst.Instances == nil {
			val := v.Value
			cv.Values = []*float64{&val}
		}
		for _, x := range inst.Instances {
			val := output.CounterValue(x)
			cv.Values = append(cv.Values, &val)
		}
		d.Counters = append(d.Counters, cv)
	}
	return d, nil
}

// traces reads the process's calls and copies back into trace lines, the copies' agents as the
// handles their rows name (an agent the records did not list kept its number, as it was written).
func (src *dbSource) traces(h *head, fn func(t *contract.Trace) error) error {
	r, err := rocpd.Open(h.input)
	if err != nil {
		return err
	}
	defer r.Close()
	var t contract.Trace
	err = r.Calls(src.proc, func(c *rocpd.Call) error {
		t = contract.Trace{Kind: contract.RecAPI, Domain: c.Category, Op: c.Name, CorrelationID: c.CorrelationID,
			ThreadID: c.ThreadID, Start: c.Start, End: c.End}
		if c.Marker {
			t.Kind, t.Message = contract.RecMarker, c.Message
		}
		return fn(&t)
	})
	if err != nil {
		return err
	}
	return r.Copies(src.proc, func(c *rocpd.Copy) error {
		t = contract.Trace{Kind: contract.RecCopy, Op: c.Name, CorrelationID: c.CorrelationID, ThreadID: c.ThreadID,
			SrcAgentID: src.handle(c.SrcAgentID), DstAgentID: src.handle(c.DstAgentID), QueueID: c.QueueID,
			StreamID: c.StreamID, Size: c.Size, SrcAddress: c.SrcAddress, DstAddress: c.DstAddress, Start: c.Start, End: c.End}
		return fn(&t)
	})
}

// handle is the agent handle of an agent row id.
func (src *dbSource) handle(row uint64) uint64 {
	if h, ok := src.agents[int64(row)]; ok {
		return h
	}
	return row
}
