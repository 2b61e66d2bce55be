package output

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// writeResultsHead starts a process's element of results.json in rocprofv3's layout, up to the
// counter records; first says it is the file's first element. Every field the schema requires is present; what the record stream does not
// carry is 0: struct "size" fields, code_object_id, kernel_object, kernarg_segment_alignment, the
// agent firmware and capability bit fields, and fini_time of a process that did not exit normally.
// code_objects is empty. Large arrays are written one element per line so the file can be
// streamed and diffed.
func (v *view) writeResultsHead(w *bgwrite.Writer, first bool) error {
	s := jsonStream{w: w}
	if !first {
		s.raw(",\n")
	}
	s.raw("{")
	s.field("metadata", v.metadata(), true)
	s.field("agents", v.agentObjects(), true)
	s.field("counters", v.counterObjects(), true)
	s.field("strings", v.stringsObject(), true)
	s.field("code_objects", []any{}, true)
	s.field("kernel_symbols", v.kernelSymbols(), true)
	s.raw("\n" + `"callback_records":{"counter_collection":[`)
	return s.err
}

// writeResultsTail ends a process's element after the counter records: the kernel dispatch records
// of every pass, from the spool, when the kernel trace was asked for.
func (v *view) writeResultsTail(w *bgwrite.Writer, trace *traceSpool) error {
	s := jsonStream{w: w}
	s.raw("]},\n" + `"buffer_records":{`)
	if v.opts.KernelTrace && s.err == nil {
		s.raw(`"kernel_dispatch":[`)
		wrote := false
		s.err = trace.each(func(d *contract.Dispatch) error {
			pass, _ := v.replayPass(d)
			v.line = appendDispatchRecord(append(v.line[:0], ",\n"...), d, pass)
			return v.element(w, &wrote)
		})
		s.raw("]")
	}
	s.raw("}}")
	return s.err
}

type jsonStream struct {
	w   *bgwrite.Writer
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

// number is a counter value in a JSON document built with encoding/json.
type number float64

func (n number) MarshalJSON() ([]byte, error) { return appendNumber(nil, float64(n)), nil }

type handle struct {
	Handle uint64 `json:"handle"`
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
	e := v.proc.Totals()
	run = append(run, kv{"dispatches", e.Dispatches}, kv{"replayed", e.Replayed}, kv{"declined", e.Declined})
	if v.rotation != nil {
		run = append(run, kv{"pmc_group_interval", v.rotation.Interval})
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
	if v.plan != nil {
		md = append(md, kv{"gorocprof_plan", v.plan})
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
