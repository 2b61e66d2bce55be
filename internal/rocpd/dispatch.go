package rocpd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/jsonnum"
)

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(raw)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// agent adds one agent, under its node id as rocprofv3 keys it.
func (w *procWriter) agent(a Agent) error {
	for _, s := range []string{a.Name, a.ProductName} {
		if _, err := w.str(s); err != nil {
			return err
		}
	}
	typ := strings.ToUpper(a.Type)
	if typ != "CPU" {
		typ = "GPU"
	}
	return w.exec("rocpd_info_agent", "(id, nid, pid, type, absolute_index, logical_index, type_index, uuid, name, "+
		"model_name, vendor_name, product_name, user_name, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		int64(a.ID), w.nid, w.pid, typ, int64(a.ID), a.LogicalIndex, a.TypeIndex, a.UUID, a.Name, a.ModelName,
		a.VendorName, a.ProductName, a.ProductName, jsonText(a.Extdata))
}

// counter adds one counter of an agent.
func (w *procWriter) counter(c Counter) error {
	if _, err := w.str(c.Name); err != nil {
		return err
	}
	return w.exec("rocpd_info_pmc", "(id, nid, pid, agent_id, target_arch, name, symbol, description, component, "+
		"value_type, block, expression, is_constant, is_derived, extdata) VALUES (?, ?, ?, ?, 'GPU', ?, ?, ?, ?, 'ABS', ?, ?, 0, ?, ?)",
		int64(c.ID), w.nid, w.pid, int64(c.AgentID), c.Name, c.Name, c.Description, c.Component, c.Block, c.Expression,
		boolInt(c.Derived), jsonText(c.Extdata))
}

// kernel adds one kernel symbol. Its code_object_id is 0: gorocprof's records carry no code objects,
// so rocpd_info_code_object stays empty and the column declares no foreign key to it. The kernel
// object and kernarg alignment, which the records do not carry either, are 0 as in results.json.
func (w *procWriter) kernel(k Kernel) error {
	for _, s := range []string{k.Name, k.DisplayName} {
		if _, err := w.str(s); err != nil {
			return err
		}
	}
	return w.exec("rocpd_info_kernel_symbol", "(id, nid, pid, code_object_id, kernel_name, display_name, kernel_object, "+
		"kernarg_segment_alignment, kernarg_segment_size, group_segment_size, private_segment_size, sgpr_count, "+
		"arch_vgpr_count, accum_vgpr_count, extdata) VALUES (?, ?, ?, 0, ?, ?, 0, 0, ?, ?, ?, ?, ?, ?, ?)",
		int64(k.ID), w.nid, w.pid, k.Name, k.DisplayName, k.KernargSize, k.GroupSegmentSize, k.PrivateSegmentSize,
		k.SGPR, k.ArchVGPR, k.AccumVGPR, jsonText(k.Extdata))
}

// dispatch adds one dispatch: its event and rocpd_kernel_dispatch row (id = dispatch id), timed by
// its first pass, and each counter once in rocpd_pmc_event, with the values of the first pass that
// measured it, so that counters_collection (a sum per dispatch and counter) reads one pass's value.
// A replayed dispatch also gets a gorocprof_pass row per pass, and the counters a later pass
// measured again go to gorocprof_pass_pmc.
//
// A counter row's value is the sum over the counter's hardware instances, what counters_collection
// reports, and its extdata lists the instance values in order; rocprofv3 writes a row per instance
// (without its position), which gives the same sums from many times the rows, the bulk of a
// database's size and writing time.
func (w *procWriter) dispatch(d *Dispatch) error {
	if len(d.Passes) == 0 {
		return fmt.Errorf("dispatch %d: no pass to write", d.DispatchID)
	}
	for i := range d.Passes {
		if err := w.seen(&d.Passes[i]); err != nil {
			return err
		}
	}
	replayed := d.Replayed || len(d.Passes) > 1
	extdata := "{}"
	switch {
	case d.Rotated && replayed:
		extdata = fmt.Sprintf(`{"pmc_group":%d,"replay_passes":%d}`, d.Group, len(d.Passes))
	case d.Rotated:
		extdata = fmt.Sprintf(`{"pmc_group":%d}`, d.Group)
	case replayed:
		extdata = fmt.Sprintf(`{"replay_passes":%d}`, len(d.Passes))
	}
	first := &d.Passes[0]
	w.events++
	ev := w.events
	if err := w.ev.add(ev, int64(first.CorrelationID), int64(first.CorrelationID), int64(first.ExternalID), extdata); err != nil {
		return err
	}
	region, err := w.str(d.RegionName)
	if err != nil {
		return err
	}
	if err := w.kd.add(int64(d.DispatchID), ev, region, int64(first.ThreadID), int64(d.AgentID), int64(d.KernelID), int64(d.DispatchID),
		int64(first.QueueID), int64(first.StreamID), first.Start, first.End, d.Scratch, d.LDS,
		int64(d.Workgroup[0]), int64(d.Workgroup[1]), int64(d.Workgroup[2]),
		int64(d.Grid[0]), int64(d.Grid[1]), int64(d.Grid[2]), extdata); err != nil {
		return err
	}
	w.measured = w.measured[:0]
	for i := range d.Passes {
		if err := w.passRows(d, &d.Passes[i], ev, replayed); err != nil {
			return err
		}
	}
	return nil
}

// passRows writes one pass's gorocprof_pass row (replayed dispatches) and its counters.
func (w *procWriter) passRows(d *Dispatch, p *Pass, ev int64, replayed bool) error {
	pass := -1
	if replayed {
		w.passes++
		pass = p.Pass
		if err := w.pass.add(w.passes, int64(d.DispatchID), int64(p.Pass), int64(p.CorrelationID), int64(p.ExternalID),
			int64(p.ThreadID), int64(p.QueueID), int64(p.StreamID), p.Start, p.End); err != nil {
			return err
		}
	}
	for _, c := range p.Counters {
		if replayed && slices.Contains(w.measured, c.CounterID) {
			if err := w.passPMC.add(w.passes, int64(c.CounterID), sum(c.Values), w.instances(c.Values, -1)); err != nil {
				return err
			}
			continue
		}
		w.measured = append(w.measured, c.CounterID)
		if err := w.pmc.add(ev, int64(c.CounterID), sum(c.Values), w.instances(c.Values, pass)); err != nil {
			return err
		}
	}
	return nil
}

// instances is the extdata of a counter row: {"instances":[...]}, its values per hardware instance
// in the order the hardware reports them, after "replay_pass" (pass >= 0) for a replayed dispatch's
// row of rocpd_pmc_event.
func (w *procWriter) instances(vals []float64, pass int) string {
	b := append(w.ext[:0], '{')
	if pass >= 0 {
		b = append(b, `"replay_pass":`...)
		b = strconv.AppendInt(b, int64(pass), 10)
		b = append(b, ',')
	}
	b = append(b, `"instances":[`...)
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonnum.Append(b, v)
	}
	w.ext = append(b, "]}"...)
	return string(w.ext)
}

func sum(vals []float64) float64 {
	var s float64
	for _, v := range vals {
		s += v
	}
	return s
}

// seen adds the thread, queue and stream rows of a pass the first time each is named, so that the
// views' joins find them.
func (w *procWriter) seen(p *Pass) error {
	if err := w.seenThread(p.ThreadID); err != nil {
		return err
	}
	if err := w.seenQueue(p.QueueID); err != nil {
		return err
	}
	return w.seenStream(p.StreamID)
}

// seenThread adds a thread's row the first time it is named (id = tid, as rocprofv3 keys it).
func (w *procWriter) seenThread(tid uint64) error {
	if w.threads[tid] {
		return nil
	}
	if err := w.stmts.thread.exec(int64(tid), w.nid, w.ppid, w.pid, int64(tid)); err != nil {
		return err
	}
	w.threads[tid] = true
	return nil
}

// seenQueue and seenStream add a queue's or stream's row the first time it is named, as rocprofv3
// names them: "Default Queue" for handle 0, else "Queue N", N counting the others in the order they
// first appear.
func (w *procWriter) seenQueue(id uint64) error {
	return w.seenHandle(id, w.queues, w.stmts.queue, "Queue", &w.named[0])
}

func (w *procWriter) seenStream(id uint64) error {
	return w.seenHandle(id, w.streams, w.stmts.stream, "Stream", &w.named[1])
}

func (w *procWriter) seenHandle(id uint64, have map[uint64]bool, s *stmt, what string, named *int) error {
	if have[id] {
		return nil
	}
	name := "Default " + what
	if id != 0 {
		name = what + " " + strconv.Itoa(*named)
		*named++
	}
	if err := s.exec(int64(id), w.nid, w.pid, name); err != nil {
		return err
	}
	have[id] = true
	return nil
}

// track returns the id of the thread's track of a category (the category's string id), adding it
// the first time: samples are rows of a track, one per thread and category as rocprofv3 keys them,
// numbered from 1.
func (w *procWriter) track(tid uint64, category int64) (int64, error) {
	key := [2]int64{int64(tid), category}
	if id, ok := w.tracks[key]; ok {
		return id, nil
	}
	id := int64(len(w.tracks) + 1)
	if err := w.stmts.track.exec(id, w.nid, w.pid, int64(tid), category); err != nil {
		return 0, err
	}
	w.tracks[key] = id
	return id, nil
}
