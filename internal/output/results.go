package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// rocprofiler-sdk enum values that results.json readers switch on (rocprofiler/fwd.h).
const (
	bufferKindKernelDispatch = 11 // ROCPROFILER_BUFFER_TRACING_KERNEL_DISPATCH
	dispatchOpComplete       = 2  // ROCPROFILER_KERNEL_DISPATCH_COMPLETE
)

// writeResults streams results.json in rocprofv3's layout, one process per file. Every field the
// schema requires is present; what the record stream does not carry is 0: struct "size" fields,
// code_object_id, kernel_object, kernarg_segment_alignment, the agent firmware and capability bit
// fields, and fini_time of a process that did not exit normally. code_objects is empty.
// Large arrays are written one element per line so the file can be streamed and diffed.
func (v *view) writeResults(w *bufio.Writer) error {
	s := jsonStream{w: w}
	s.raw(`{"rocprofiler-sdk-tool":[{`)
	s.field("metadata", v.metadata(), true)
	s.field("agents", v.agentObjects(), true)
	s.field("counters", v.counterObjects(), true)
	s.field("strings", v.stringsObject(), true)
	s.field("code_objects", []any{}, true)
	s.field("kernel_symbols", v.kernelSymbols(), true)
	s.raw("\n" + `"callback_records":{"counter_collection":[`)
	first := true
	for i := range v.passes {
		if rec := v.counterRecord(&v.passes[i]); rec != nil {
			s.element(rec, &first)
		}
	}
	s.raw("]},\n" + `"buffer_records":{`)
	if v.opts.KernelTrace {
		s.raw(`"kernel_dispatch":[`)
		first = true
		for i := range v.passes {
			s.element(v.dispatchRecord(&v.passes[i]), &first)
		}
		s.raw("]")
	}
	s.raw("}}]}\n")
	return s.err
}

type jsonStream struct {
	w   *bufio.Writer
	err error
}

func (s *jsonStream) raw(str string) {
	if s.err == nil {
		_, s.err = s.w.WriteString(str)
	}
}

func (s *jsonStream) value(val any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(val)
	if err != nil {
		s.err = err
		return
	}
	_, s.err = s.w.Write(b)
}

func (s *jsonStream) field(key string, val any, comma bool) {
	s.raw("\n" + strconv.Quote(key) + ":")
	s.value(val)
	if comma {
		s.raw(",")
	}
}

func (s *jsonStream) element(val any, first *bool) {
	if !*first {
		s.raw(",")
	}
	*first = false
	s.raw("\n")
	s.value(val)
}

// object is a JSON object whose keys keep the order they were added in.
type object []kv

type kv struct {
	k string
	v any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.k))
		b.WriteByte(':')
		val, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// number is a counter value. JSON has no NaN or infinity; such a value (a derived counter divided by
// zero) is written as null rather than as a made-up number.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	f := float64(n)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return []byte("null"), nil
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.AppendInt(nil, int64(f), 10), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

type handle struct {
	Handle uint64 `json:"handle"`
}

type dim3 struct {
	X uint32 `json:"x"`
	Y uint32 `json:"y"`
	Z uint32 `json:"z"`
}

type correlation struct {
	Internal uint64 `json:"internal"`
	External uint64 `json:"external"`
}

type dispatchInfo struct {
	Size               int    `json:"size"`
	AgentID            handle `json:"agent_id"`
	QueueID            handle `json:"queue_id"`
	KernelID           uint64 `json:"kernel_id"`
	DispatchID         uint64 `json:"dispatch_id"`
	PrivateSegmentSize int64  `json:"private_segment_size"`
	GroupSegmentSize   int64  `json:"group_segment_size"`
	WorkgroupSize      dim3   `json:"workgroup_size"`
	GridSize           dim3   `json:"grid_size"`
}

func infoOf(d *contract.Dispatch) dispatchInfo {
	return dispatchInfo{
		AgentID: handle{d.AgentID}, QueueID: handle{d.QueueID}, KernelID: d.KernelID, DispatchID: d.DispatchID,
		PrivateSegmentSize: d.Scratch, GroupSegmentSize: d.LDS,
		WorkgroupSize: dim3{d.Workgroup[0], d.Workgroup[1], d.Workgroup[2]},
		GridSize:      dim3{d.Grid[0], d.Grid[1], d.Grid[2]},
	}
}

type counterRecord struct {
	DispatchData struct {
		Size           int          `json:"size"`
		CorrelationID  correlation  `json:"correlation_id"`
		StartTimestamp int64        `json:"start_timestamp"`
		EndTimestamp   int64        `json:"end_timestamp"`
		DispatchInfo   dispatchInfo `json:"dispatch_info"`
	} `json:"dispatch_data"`
	Records        []counterSample `json:"records"`
	ThreadID       uint64          `json:"thread_id"`
	ReplayPass     int             `json:"replay_pass"`
	ArchVGPRCount  int64           `json:"arch_vgpr_count"`
	AccumVGPRCount int64           `json:"accum_vgpr_count"`
	SGPRCount      int64           `json:"sgpr_count"`
	LDSBlockSizeV  int64           `json:"lds_block_size_v"`
}

type counterSample struct {
	CounterID handle `json:"counter_id"`
	Value     number `json:"value"`
}

// counterRecord is one pass's counters, one sample per instance; nil when the pass counted nothing.
func (v *view) counterRecord(p *passView) *counterRecord {
	if len(p.counters) == 0 {
		return nil
	}
	d, k := p.d, p.kernel
	r := &counterRecord{ThreadID: d.ThreadID, ReplayPass: d.Pass, ArchVGPRCount: k.VGPR,
		AccumVGPRCount: k.AccumVGPR, SGPRCount: k.SGPR, LDSBlockSizeV: d.LDS, Records: []counterSample{}}
	r.DispatchData.CorrelationID = correlation{d.CorrelationID, d.ExternalID}
	r.DispatchData.StartTimestamp, r.DispatchData.EndTimestamp = d.Start, d.End
	r.DispatchData.DispatchInfo = infoOf(d)
	for _, c := range p.counters {
		id := v.cat.ids[catalogKey{d.AgentID, c.Name}]
		for _, val := range c.Values {
			r.Records = append(r.Records, counterSample{handle{id}, number(val)})
		}
	}
	return r
}

type dispatchRecord struct {
	Size           int          `json:"size"`
	Kind           int          `json:"kind"`
	Operation      int          `json:"operation"`
	ThreadID       uint64       `json:"thread_id"`
	CorrelationID  correlation  `json:"correlation_id"`
	StartTimestamp int64        `json:"start_timestamp"`
	EndTimestamp   int64        `json:"end_timestamp"`
	DispatchInfo   dispatchInfo `json:"dispatch_info"`
	ReplayPass     int          `json:"replay_pass"`
}

func (v *view) dispatchRecord(p *passView) dispatchRecord {
	d := p.d
	return dispatchRecord{Kind: bufferKindKernelDispatch, Operation: dispatchOpComplete, ThreadID: d.ThreadID,
		CorrelationID: correlation{d.CorrelationID, d.ExternalID}, StartTimestamp: d.Start, EndTimestamp: d.End,
		DispatchInfo: infoOf(d), ReplayPass: d.Pass}
}

func (v *view) metadata() object {
	h := v.proc.Header
	var fini int64
	if v.proc.End != nil {
		fini = v.proc.End.FiniTime
	}
	declines := append([]contract.Decline{}, v.proc.Declines...)
	run := object{
		{"contract_version", h.Version},
		{"backend", h.Backend},
		{"ended", v.proc.Ended()},
		{"truncated", v.proc.Truncated},
		{"declines", declines},
		{"warnings", nonNil(v.proc.Warnings)},
		{"fatals", nonNil(v.proc.Fatals)},
		{"problems", nonNil(v.proc.Problems)},
	}
	if e := v.proc.End; e != nil {
		run = append(run, kv{"dispatches", e.Dispatches}, kv{"replayed", e.Replayed}, kv{"declined", e.Declined})
	}
	md := object{
		{"pid", h.PID},
		{"ppid", h.PPID},
		{"init_time", h.InitTime},
		{"fini_time", fini},
		{"hostname", h.Hostname},
		{"command", nonNil(v.command)},
		{"gorocprof", run},
	}
	if v.opts.PlanMetadata != nil {
		md = append(md, kv{"gorocprof_plan", v.opts.PlanMetadata})
	}
	return md
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (v *view) counterObjects() []object {
	out := []object{}
	for _, e := range v.cat.entries {
		out = append(out, object{
			{"agent_id", handle{e.agentID}},
			{"id", handle{e.id}},
			{"is_constant", 0},
			{"is_derived", boolInt(e.info.Derived)},
			{"name", e.info.Name},
			{"description", e.info.Description},
			{"block", e.info.Block},
			{"expression", e.info.Expression},
			{"dimension_ids", e.dimIDs},
		})
	}
	return out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (v *view) stringsObject() object {
	dims := []object{}
	for _, d := range v.cat.dims {
		dims = append(dims, object{{"id", d.id}, {"instance_size", d.Size}, {"name", d.Name}})
	}
	o := object{}
	if v.opts.KernelTrace {
		o = append(o, kv{"buffer_records", []object{{
			{"kind", "KERNEL_DISPATCH"},
			{"operations", []string{"NONE", "ENQUEUE", "COMPLETE"}},
		}}})
	}
	return append(o, kv{"counters", object{{"dimension_ids", dims}}})
}

func (v *view) kernelSymbols() []object {
	out := []object{}
	for _, k := range sortedKernels(v.proc) {
		out = append(out, object{
			{"size", 0},
			{"kernel_id", k.KernelID},
			{"code_object_id", 0},
			{"kernel_name", k.Name},
			{"kernel_object", 0},
			{"kernarg_segment_size", k.KernargSize},
			{"kernarg_segment_alignment", 0},
			{"group_segment_size", k.GroupSegmentSize},
			{"private_segment_size", k.PrivateSegmentSize},
			{"sgpr_count", k.SGPR},
			{"arch_vgpr_count", k.VGPR},
			{"accum_vgpr_count", k.AccumVGPR},
			{"agent_id", handle{k.AgentID}},
			{"formatted_kernel_name", v.kernelName(k)},
			{"demangled_kernel_name", k.Demangled},
			{"truncated_kernel_name", k.Truncated},
		})
	}
	return out
}
