package output

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
	"github.com/gorocprof/gorocprof/internal/rocpd"
	"github.com/gorocprof/gorocprof/internal/tracing"
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
	s.field("kernel_symbols", v.kernelSymbolsByID(), true)
	s.field("host_functions", []any{}, true)
	s.raw("\n" + `"callback_records":{"counter_collection":[`)
	return s.err
}

// writeResultsTail ends a process's element after the counter records: the kernel dispatch records
// of every pass, from the spool, when the kernel trace was asked for, and the trace records of each
// group, from its spool (spools by traceGroups, nil for a group without records).
func (v *view) writeResultsTail(w *bgwrite.Writer, trace *traceSpool, spools []*recordSpool) error {
	s := jsonStream{w: w}
	s.raw("]},\n" + `"buffer_records":{"kernel_dispatch":[`)
	v.writeDispatchRecords(&s, trace, true)
	s.raw("]")
	// The other categories rocprofv3 always writes, those of the kinds the records do not have
	// (allocations, samples, ...) empty, then gorocprof's.
	for _, c := range bufferArrays {
		s.raw(",\n" + strconv.Quote(c) + ":[")
		if g := slices.IndexFunc(traceGroups, func(g traceGroup) bool { return g.array == c }); g >= 0 && spools[g] != nil && s.err == nil {
			s.err = spools[g].copyTo(w)
		}
		s.raw("]")
	}
	s.raw(",\n" + strconv.Quote(replayDispatchCategory) + ":[")
	v.writeDispatchRecords(&s, trace, false)
	s.raw("]}")
	// rocprofv3 writes its summary before the records; it is known only after them.
	summary := []object{}
	if v.stats != nil {
		summary = v.stats.summaryObjects()
	}
	s.raw(",")
	s.field("summary", summary, false)
	s.raw("}")
	return s.err
}

// replayDispatchCategory is gorocprof's buffer_records array of the passes after a dispatch's
// first: rocprofv3's readers count kernel_dispatch as the dispatches (as the rocpd database's
// rows), so a replayed dispatch is its first pass there and its other passes here.
const replayDispatchCategory = "gorocprof_replay_kernel_dispatch"

// writeDispatchRecords writes the kernel dispatch records of the first passes (first) or of the
// others, from the spool, when the kernel trace was asked for.
func (v *view) writeDispatchRecords(s *jsonStream, trace *traceSpool, first bool) {
	if !v.opts.KernelTrace || s.err != nil {
		return
	}
	wrote := false
	s.err = trace.each(func(d *contract.Dispatch, isFirst bool) error {
		if isFirst != first {
			return nil
		}
		pass, _ := v.replayPass(d)
		v.line = appendDispatchRecord(append(v.line[:0], ",\n"...), d, pass)
		return v.element(s.w, &wrote)
	})
}

// bufferArrays are buffer_records' arrays after kernel_dispatch: rocprofv3's, in its order, then
// gorocprof's of the CUDA API records.
var bufferArrays = []string{"hip_api", "hsa_api", "marker_api", "rccl_api", "memory_copy",
	"memory_allocation", "scratch_memory", "rocdecode_api", "rocjpeg_api", "pc_sample_host_trap",
	"pc_sample_stochastic", "cuda_api", "cuda_driver_api"}

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
	run = append(run, kv{"dispatches", e.Dispatches}, kv{"replayed", e.Replayed}, kv{"declined", e.Declined},
		kv{"trace_domains", nonNil(v.opts.TraceDomains)})
	if v.rotation != nil {
		run = append(run, kv{"pmc_group_interval", v.rotation.Interval})
	}
	md := object{
		{"node", nodeObject(h.Hostname)},
		{"pid", h.PID},
		{"ppid", h.PPID},
		{"init_time", h.InitTime},
		{"fini_time", fini},
		{"hostname", h.Hostname},
		{"command", nonNil(v.command)},
		{"config", v.config()},
		{"gorocprof", run},
	}
	if v.plan != nil {
		md = append(md, kv{"gorocprof_plan", v.plan})
	}
	return md
}

// nodeObject is rocprofv3's node object: the machine as the records know it. They carry its host
// name only, so the host name is its machine id too, and id and hash are the ones the rocpd
// database keys the node by; the uname fields the records do not carry are empty.
func nodeObject(hostname string) object {
	id, hash := rocpd.NodeKey(hostname)
	return object{{"id", id}, {"hash", hash}, {"machine_id", hostname}, {"system_name", ""},
		{"hostname", hostname}, {"release", ""}, {"version", ""}, {"hardware_name", ""}, {"domain_name", ""}}
}

// config is rocprofv3's output configuration as far as it describes how this file was written:
// the formats, the kernel trace and the other traces (rocprofv3's *_trace booleans of the domains
// traced), the summary, the agent numbering, and how kernels are grouped in the trace (by queue,
// always). The output paths are left out, so that the same records give the same file wherever it
// is written.
func (v *view) config() object {
	has := func(f string) bool { return slices.Contains(v.opts.Formats, f) }
	o := object{
		{"csv_output", has("csv")}, {"json_output", has("json")}, {"pftrace_output", has("pftrace")},
		{"otf2_output", false}, {"rocpd_output", has("rocpd")}, {"summary", v.opts.Summary != nil},
		{"kernel_rename", false}, {"group_by_queue", true}, {"agent_index", agentIndexOrDefault(v.opts.AgentIndex)},
		{"kernel_trace", v.opts.KernelTrace},
	}
	for _, f := range tracing.Config(v.opts.TraceDomains) {
		o = append(o, kv{f.Name, f.On})
	}
	return o
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

// stringsObject is rocprofv3's strings object: buffer_records indexed by the buffer tracing kind
// (bufferKindNames) with each kind's operations as its records number them (traceNames), the
// marker messages by correlation id, the counters' dimensions, and the tables of what the records
// do not have (callback kinds, external correlation names, PC samples, thread trace and code object
// files) empty.
func (v *view) stringsObject() object {
	dims := []object{}
	for _, d := range v.cat.dims {
		dims = append(dims, object{{"id", d.id}, {"instance_size", d.Size}, {"name", d.Name}})
	}
	kinds := make([]object, len(bufferKindNames))
	for i, name := range bufferKindNames {
		kinds[i] = object{{"kind", name}, {"operations", v.traces.ops[i]}}
	}
	messages := make([]object, 0, len(v.traces.messages))
	for _, m := range v.traces.messages {
		messages = append(messages, object{{"key", m.corr}, {"value", m.message}})
	}
	return object{
		{"callback_records", []object{}},
		{"buffer_records", kinds},
		{"marker_api", messages},
		{"correlation_id", object{{"external", []object{}}}},
		{"counters", object{{"dimension_ids", dims}}},
		{"pc_sample_instructions", []string{}},
		{"pc_sample_comments", []string{}},
		{"att_filenames", []string{}},
		{"code_object_snapshot_filenames", []string{}},
	}
}

// kernelSymbolsByID is results.json's kernel_symbols: indexed by kernel id as rocprofv3 writes it,
// a kernel id without a symbol (0 among them) an empty entry, so that kernel_symbols[kernel_id] is
// the dispatch's kernel. The tools number kernels from 1; kernel ids that would need more than
// maxSymbolGap empty entries are written one entry per kernel instead.
func (v *view) kernelSymbolsByID() []object {
	packed := v.kernelSymbols()
	if len(packed) == 0 {
		return []object{emptySymbol()}
	}
	ks := sortedKernels(v.proc)
	if gap := ks[len(ks)-1].KernelID + 1 - uint64(len(ks)); gap > maxSymbolGap {
		return packed // ids no tool numbers so (a damaged record file): not an array of them all
	}
	out := make([]object, ks[len(ks)-1].KernelID+1)
	for i := range out {
		out[i] = emptySymbol()
	}
	for i, k := range ks {
		out[k.KernelID] = packed[i]
	}
	return out
}

const maxSymbolGap = 1 << 16

// emptySymbol is the entry of a kernel id no kernel has: rocprofv3's zero symbol (kernel id 0).
func emptySymbol() object { return symbolObject(contract.Kernel{}, "") }

func (v *view) kernelSymbols() []object {
	out := []object{}
	for _, k := range sortedKernels(v.proc) {
		out = append(out, symbolObject(k, v.kernelName(k)))
	}
	return out
}

// symbolObject is one kernel symbol in rocprofv3's order, with gorocprof's agent_id (the records
// tie a kernel to its agent) after the SDK's fields.
func symbolObject(k contract.Kernel, formatted string) object {
	return object{
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
		{"kernel_code_entry_byte_offset", 0},
		{"kernel_address", handle{0}},
		{"agent_id", handle{k.AgentID}},
		{"formatted_kernel_name", formatted},
		{"demangled_kernel_name", k.Demangled},
		{"truncated_kernel_name", k.Truncated},
	}
}
