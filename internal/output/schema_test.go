package output

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// schemaNode is the part of JSON Schema (draft-07) that results_schema.json uses, and
// additionalProperties, which it does not set: draft-07 then allows an object keys its properties
// do not list (gorocprof's replay_pass, stream_id, pmc_group, gorocprof, gorocprof_plan), and the
// validator would say so if the schema ever forbade them.
type schemaNode struct {
	Type       string                 `json:"type"`
	Required   []string               `json:"required"`
	Properties map[string]*schemaNode `json:"properties"`
	Items      *schemaNode            `json:"items"`
	Additional json.RawMessage        `json:"additionalProperties"`
}

// validate returns every place where v breaks the schema's types, misses a required field or has
// a key additionalProperties false forbids.
func validate(s *schemaNode, v any, path string) []string {
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	switch s.Type {
	case "object":
		obj, ok := v.(map[string]any)
		if !ok {
			bad("want an object, got %T", v)
			return errs
		}
		for _, r := range s.Required {
			if _, ok := obj[r]; !ok {
				bad("required field %q missing", r)
			}
		}
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sub := s.Properties[k]; sub != nil {
				errs = append(errs, validate(sub, obj[k], path+"."+k)...)
			} else if string(s.Additional) == "false" {
				bad("key %q is not in the schema, which allows no other", k)
			}
		}
	case "array":
		arr, ok := v.([]any)
		if !ok {
			bad("want an array, got %T", v)
			return errs
		}
		if s.Items != nil {
			for i, e := range arr {
				errs = append(errs, validate(s.Items, e, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != float64(int64(f)) {
			bad("want an integer, got %v", v)
		}
	case "number":
		if _, ok := v.(float64); !ok {
			bad("want a number, got %v", v)
		}
	case "string":
		if _, ok := v.(string); !ok {
			bad("want a string, got %v", v)
		}
	}
	return errs
}

func TestResultsMatchSchema(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "results_schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema schemaNode
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	// A rotation run's file too: its records carry pmc_group, its metadata pmc_group_interval.
	rotation := &Rotation{Interval: 2}
	for _, index := range []int{0, 1} {
		rotation.Plan = append(rotation.Plan, contract.PlanAgent{Index: index, Passes: []contract.PlanPass{{Group: 0}, {Group: 1}, {Group: 2}}})
	}
	for _, tc := range []struct {
		fixture  string
		cs       Counters
		rotation *Rotation
	}{{"4242.ndjson", fakeCounters{}, nil}, {"4300.ndjson", fakeCounters{}, nil}, {"4300.ndjson", nil, nil}, {"rotated 4242.ndjson", fakeCounters{}, rotation},
		{"5100_traced.ndjson", fakeCounters{}, nil}} { // API calls, markers and copies: hip_api, marker_api, memory_copy
		dir := t.TempDir()
		proc := rotatedFixture(t)
		if tc.rotation == nil {
			proc = readFixture(t, tc.fixture)
		}
		paths, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json"}, KernelTrace: true, Rotation: tc.rotation},
			proc, tc.cs)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: results.json is not valid JSON: %v", tc.fixture, err)
		}
		for _, e := range validate(&schema, doc, "$") {
			t.Errorf("%s: %s", tc.fixture, e)
		}
	}
}

// The validator must notice what it is there to notice.
func TestValidateCatchesMissingFields(t *testing.T) {
	s := &schemaNode{Type: "object", Required: []string{"pid"},
		Properties: map[string]*schemaNode{"pid": {Type: "integer"}}}
	if errs := validate(s, map[string]any{}, "$"); len(errs) != 1 {
		t.Errorf("missing field: got %q", errs)
	}
	if errs := validate(s, map[string]any{"pid": 1.5}, "$"); len(errs) != 1 {
		t.Errorf("non-integer: got %q", errs)
	}
	if errs := validate(s, map[string]any{"pid": 1.0, "extra": 1.0}, "$"); len(errs) != 0 {
		t.Errorf("a key the schema does not list, without additionalProperties: got %q", errs)
	}
	s.Additional = json.RawMessage("false")
	if errs := validate(s, map[string]any{"pid": 1.0, "extra": 1.0}, "$"); len(errs) != 1 {
		t.Errorf("a key additionalProperties false forbids: got %q", errs)
	}
}

// readerFixture is a process as rocprofv3's readers see a run: an AMD agent (with a UUID and node
// ids of its own), a CUDA-like one (described in SMs), kernels with ids 2 and 5 (none at 0, 1, 3,
// 4), and dispatches on streams 14 and 17.
func readerFixture(t *testing.T) *records.Process {
	t.Helper()
	lines := []string{
		`{"t":"header","version":1,"pid":9,"ppid":1,"backend":"sim","hostname":"node3","init_time":1,"cmdline":["./app"]}`,
		`{"t":"agent","id":1,"index":0,"name":"gfx942","vendor":"AMD","type":"GPU","props":{"cu_count":304,"simd_per_cu":4,"simd_count":1216,"max_waves_per_simd":8,"node_id":3,"logical_node_id":2},"strings":{"uuid":"GPU-00112233445566778899aabbccddeeff"}}`,
		`{"t":"agent","id":2,"index":1,"name":"NVIDIA H200","vendor":"NVIDIA","type":"GPU","props":{"cu_count":132,"wave_front_size":32,"max_threads_per_sm":2048,"node_id":4,"logical_node_id":4},"strings":{"uuid":"GPU-0cdd201d-9a1d-83c8-4be3-d7527c3a43f7","chip":"GH100"}}`,
		`{"t":"kernel","kernel_id":2,"name":"_Z1av","demangled":"a()","truncated":"a","agent_id":1}`,
		`{"t":"kernel","kernel_id":5,"name":"_Z1bv","demangled":"b()","truncated":"b","agent_id":2}`,
		`{"t":"dispatch","dispatch_id":1,"pass":0,"passes":2,"correlation_id":1,"agent_id":1,"queue_id":1,"stream_id":14,"kernel_id":2,"grid":[64,1,1],"workgroup":[64,1,1],"start":10,"end":20,"counters":[{"name":"SQ_WAVES","values":[1]},{"name":"SQ_INSTS_VALU","values":[4]}]}`,
		`{"t":"dispatch","dispatch_id":1,"pass":1,"passes":2,"correlation_id":1,"agent_id":1,"queue_id":1,"stream_id":14,"kernel_id":2,"grid":[64,1,1],"workgroup":[64,1,1],"start":30,"end":40,"counters":[{"name":"SQ_WAVES","values":[1]},{"name":"GRBM_COUNT","values":[9]}]}`,
		`{"t":"dispatch","dispatch_id":2,"pass":0,"passes":1,"correlation_id":2,"agent_id":2,"queue_id":2,"stream_id":17,"kernel_id":5,"grid":[64,1,1],"workgroup":[64,1,1],"start":50,"end":60,"counters":[{"name":"SQ_WAVES","values":[2]},{"name":"SQ_INSTS_VALU","values":[8]}]}`,
		`{"t":"end","fini_time":70,"dispatches":2,"replayed":1,"declined":0}`,
	}
	return processFromLines(t, t.TempDir(), lines)
}

// processFromLines writes record lines as dir/9.ndjson and reads them back as a process.
func processFromLines(t *testing.T, dir string, lines []string) *records.Process {
	t.Helper()
	path := filepath.Join(dir, "9.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proc, err := records.ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	return proc
}

// readerElement writes the fixture's results.json and returns its one element.
func readerElement(t *testing.T, opts Options) map[string]any {
	t.Helper()
	opts.Dir, opts.File = t.TempDir(), "p"
	if _, err := Write(opts, readerFixture(t), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	return readResultsElement(t, filepath.Join(opts.Dir, "p_results.json"))
}

// readResultsElement reads a results.json of one process and returns its element.
func readResultsElement(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Elements []map[string]any `json:"rocprofiler-sdk-tool"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Elements) != 1 {
		t.Fatalf("results.json: %d elements, %v", len(doc.Elements), err)
	}
	return doc.Elements[0]
}

func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func num(v any) int { return int(v.(float64)) }

// TestResultsIndexedAsRocprofv3: rocprofv3's validators look a record's kernel up as
// kernel_symbols[kernel_id] and its kind as strings.buffer_records[kind], so both arrays are indexed
// by those ids: kernel_symbols has an entry for every id from 0 (an empty one where no kernel has
// it), strings.buffer_records an entry for every rocprofiler_buffer_tracing_kind_t value below
// ROCPROFILER_BUFFER_TRACING_LAST (33), then gorocprof's two CUDA API kinds.
func TestResultsIndexedAsRocprofv3(t *testing.T) {
	el := readerElement(t, Options{Formats: []string{"json"}, KernelTrace: true})
	syms := el["kernel_symbols"].([]any)
	if len(syms) != 6 || at(syms, 0, "kernel_name") != "" || num(at(syms, 0, "kernel_id")) != 0 {
		t.Fatalf("kernel_symbols: %d entries (want 6, ids 0..5), entry 0 %v", len(syms), syms[0])
	}
	kinds := at(el, "strings", "buffer_records").([]any)
	if len(kinds) != 35 {
		t.Errorf("strings.buffer_records: %d kinds, want 35", len(kinds))
	}
	for value, name := range map[int]string{0: "", 1: "HSA_CORE_API", 5: "HIP_RUNTIME_API", 6: "HIP_COMPILER_API", 7: "MARKER_CORE_API",
		10: "MEMORY_COPY", 11: "KERNEL_DISPATCH", 16: "MEMORY_ALLOCATION", 32: "MARKER_CORE_RANGE_API", 33: "CUDA_RUNTIME_API", 34: "CUDA_DRIVER_API"} {
		if got := at(kinds, value, "kind"); got != name {
			t.Errorf("strings.buffer_records[%d].kind = %v, want %s", value, got, name)
		}
	}
	records := at(el, "buffer_records", "kernel_dispatch").([]any)
	replays := at(el, "buffer_records", "gorocprof_replay_kernel_dispatch").([]any)
	all := append(append(append([]any{}, records...), replays...), at(el, "callback_records", "counter_collection").([]any)...)
	for _, r := range all {
		info, ok := at(r, "dispatch_info").(map[string]any)
		if !ok {
			info = at(r, "dispatch_data", "dispatch_info").(map[string]any)
		} else if got := at(kinds, num(at(r, "kind")), "kind"); got != "KERNEL_DISPATCH" {
			t.Errorf("a kernel dispatch record's kind names %v", got)
		}
		id := num(info["kernel_id"])
		if got := num(at(syms, id, "kernel_id")); got != id {
			t.Errorf("kernel_symbols[%d] is kernel %d", id, got)
		}
	}
	// kernel_dispatch is the dispatches, as rocprofv3's readers count them (and the rocpd database's
	// rows): a replayed dispatch's first pass there, its other passes in gorocprof's array.
	var ids, replayIDs []int
	for _, r := range records {
		ids = append(ids, num(at(r, "dispatch_info", "dispatch_id"))*10+num(at(r, "replay_pass")))
	}
	for _, r := range replays {
		replayIDs = append(replayIDs, num(at(r, "dispatch_info", "dispatch_id"))*10+num(at(r, "replay_pass")))
	}
	if !slices.Equal(ids, []int{10, 20}) || !slices.Equal(replayIDs, []int{11}) {
		t.Errorf("kernel_dispatch holds dispatch*10+pass %v, gorocprof_replay_kernel_dispatch %v; want [10 20], [11]", ids, replayIDs)
	}
}

// TestResultsCategoriesNodeConfig: buffer_records has every category rocprofv3 writes, as an array
// even with nothing in it (the kernel trace off included); metadata has rocprofv3's node (the
// record's host) and config (the formats and the kernel trace of this file).
func TestResultsCategoriesNodeConfig(t *testing.T) {
	for _, trace := range []bool{true, false} {
		el := readerElement(t, Options{Formats: []string{"json", "pftrace"}, KernelTrace: trace})
		for _, c := range []string{"kernel_dispatch", "hip_api", "hsa_api", "marker_api", "rccl_api", "memory_copy",
			"memory_allocation", "scratch_memory", "rocdecode_api", "rocjpeg_api", "pc_sample_host_trap", "pc_sample_stochastic"} {
			if _, ok := at(el, "buffer_records", c).([]any); !ok {
				t.Errorf("kernel trace %v: buffer_records.%s is %v, want an array", trace, c, at(el, "buffer_records", c))
			}
		}
		node := at(el, "metadata", "node").(map[string]any)
		for _, k := range []string{"id", "hash", "machine_id", "system_name", "hostname", "release", "version", "hardware_name", "domain_name"} {
			if _, ok := node[k]; !ok {
				t.Errorf("metadata.node has no %s", k)
			}
		}
		if node["hostname"] != "node3" || node["machine_id"] != "node3" {
			t.Errorf("metadata.node = %v, want the record's host node3", node)
		}
		cfg := at(el, "metadata", "config").(map[string]any)
		want := map[string]any{"json_output": true, "pftrace_output": true, "csv_output": false, "rocpd_output": false,
			"kernel_trace": trace, "agent_index": "relative"}
		for k, v := range want {
			if cfg[k] != v {
				t.Errorf("metadata.config.%s = %v, want %v", k, cfg[k], v)
			}
		}
	}
}

// TestKernelDispatchStreamIDs: a kernel dispatch record of results.json names the stream its pass was
// launched on, as kernel_trace.csv's Stream_Id and the counter records do.
func TestKernelDispatchStreamIDs(t *testing.T) {
	el := readerElement(t, Options{Formats: []string{"json"}, KernelTrace: true})
	var got, counters []int
	for _, r := range at(el, "buffer_records", "kernel_dispatch").([]any) {
		got = append(got, num(at(r, "stream_id", "handle")))
	}
	for _, r := range at(el, "buffer_records", "gorocprof_replay_kernel_dispatch").([]any) {
		got = append(got, num(at(r, "stream_id", "handle")))
	}
	slices.Sort(got)
	for _, r := range at(el, "callback_records", "counter_collection").([]any) {
		counters = append(counters, num(at(r, "stream_id", "handle")))
	}
	if want := []int{14, 14, 17}; !slices.Equal(got, want) || !slices.Equal(counters, want) {
		t.Errorf("stream ids: kernel dispatch records %v, counter records %v, want %v", got, counters, want)
	}
}

// rocprofv3AgentKeys are the keys of rocprofv3's agent objects in its order: rocprofiler_agent_v0_t's
// serialization, then gpu_index.
var rocprofv3AgentKeys = []string{"size", "id", "type", "cpu_cores_count", "simd_count", "mem_banks_count",
	"caches_count", "io_links_count", "cpu_core_id_base", "simd_id_base", "max_waves_per_simd", "lds_size_in_kb",
	"gds_size_in_kb", "num_gws", "wave_front_size", "num_xcc", "cu_count", "array_count", "num_shader_banks",
	"simd_arrays_per_engine", "cu_per_simd_array", "simd_per_cu", "max_slots_scratch_cu", "gfx_target_version",
	"vendor_id", "device_id", "location_id", "domain", "drm_render_minor", "num_sdma_engines",
	"num_sdma_xgmi_engines", "num_sdma_queues_per_engine", "num_cp_queues", "max_engine_clk_ccompute",
	"max_engine_clk_fcompute", "sdma_fw_version", "fw_version", "capability", "cu_per_engine", "max_waves_per_cu",
	"family_id", "workgroup_max_size", "grid_max_size", "local_mem_size", "hive_id", "gpu_id", "workgroup_max_dim",
	"grid_max_dim", "name", "vendor_name", "product_name", "model_name", "node_id", "logical_node_id",
	"logical_node_type_id", "runtime_visibility", "uuid", "mem_banks", "caches", "io_links", "gpu_index"}

// TestAgentObjectsAsRocprofv3: every agent object begins with rocprofv3's keys in its order (gorocprof's
// follow), the type-relative index is the agent's ordinal, the UUID its 16 bytes, and the object reads
// back into the same record (merge, and the database's extdata, which holds the same object).
func TestAgentObjectsAsRocprofv3(t *testing.T) {
	proc := readerFixture(t)
	for i, a := range proc.Agents {
		o := agentObject(a)
		if len(o) < len(rocprofv3AgentKeys) {
			t.Fatalf("agent %d: %d keys", a.ID, len(o))
		}
		for k, want := range rocprofv3AgentKeys {
			if o[k].k != want {
				t.Fatalf("agent %d: key %d is %q, want rocprofv3's %q", a.ID, k, o[k].k, want)
			}
		}
		m := mustJSON(t, o)
		if num(m["logical_node_type_id"]) != i || num(m["gpu_index"]) != i {
			t.Errorf("agent %d: logical_node_type_id %v, gpu_index %v, want %d", a.ID, m["logical_node_type_id"], m["gpu_index"], i)
		}
		raw, _ := json.Marshal(o)
		back, err := AgentFromObject(raw)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(agentObject(back)); string(again) != string(raw) {
			t.Errorf("agent %d read back writes\n%s\nnot\n%s", a.ID, again, raw)
		}
	}
	bytes := at(mustJSON(t, agentObject(proc.Agents[0])), "uuid", "bytes").([]any)
	if len(bytes) != 16 || num(bytes[0]) != 0x00 || num(bytes[1]) != 0x11 || num(bytes[15]) != 0xff {
		t.Errorf("uuid bytes %v, want 00 11 ... ff", bytes)
	}
	if got := at(mustJSON(t, agentObject(proc.Agents[1])), "uuid", "bytes").([]any); num(got[0]) != 0x0c || num(got[15]) != 0xf7 {
		t.Errorf("CUDA uuid bytes %v, want 0c dd ... f7", got)
	}
}

func mustJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSMAgentSIMDFields: an agent described in SMs (CUDA: the SM count, threads per SM, warp size)
// gets the SIMD fields from those facts, an SM counting as one SIMD: Simd_Per_Cu 1, Simd_Count the SM
// count (132), Max_Waves_Per_Simd and Max_Waves_Per_Cu the SM's warps (2048 / 32 = 64); what an AMD
// agent reports is written as reported.
func TestSMAgentSIMDFields(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"csv"}}, readerFixture(t), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	rows := agentInfoRows(t, dir, 3)
	want := map[string][2]string{"Simd_Count": {"1216", "132"}, "Simd_Per_Cu": {"4", "1"},
		"Max_Waves_Per_Simd": {"8", "64"}, "Max_Waves_Per_Cu": {"0", "64"}}
	for col, w := range want {
		i := slices.Index(rows[0], col)
		if rows[1][i] != w[0] || rows[2][i] != w[1] {
			t.Errorf("%s: AMD %s, CUDA %s; want %s, %s", col, rows[1][i], rows[2][i], w[0], w[1])
		}
	}
}

// TestKernelSymbolsFarIDs: kernel ids far above the number of kernels (a damaged record file; the
// tools number kernels from 1) are written one entry per kernel, not as an array of every id.
func TestKernelSymbolsFarIDs(t *testing.T) {
	lines := []string{
		`{"t":"header","version":1,"pid":9,"ppid":1,"backend":"sim","hostname":"h","init_time":1,"cmdline":["./app"]}`,
		`{"t":"agent","id":1,"index":0,"name":"gfx90a","vendor":"AMD","type":"GPU","props":{}}`,
		`{"t":"kernel","kernel_id":100000,"name":"_Z1av","demangled":"a()","truncated":"a","agent_id":1}`,
		`{"t":"end","fini_time":70,"dispatches":0,"replayed":0,"declined":0}`,
	}
	dir := t.TempDir()
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json"}}, processFromLines(t, dir, lines), nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "p_results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Elements []struct {
			Symbols []struct {
				ID uint64 `json:"kernel_id"`
			} `json:"kernel_symbols"`
		} `json:"rocprofiler-sdk-tool"`
	}
	if err := json.Unmarshal(b, &doc); err != nil || len(doc.Elements) != 1 {
		t.Fatal(err)
	}
	if s := doc.Elements[0].Symbols; len(s) != 1 || s[0].ID != 100000 {
		t.Errorf("kernel_symbols %v, want the one kernel", s)
	}
}

// TestCPUAgentListed: a CPU agent of the records (the rocm backend lists the SDK's, unprofiled:
// index -1) is listed as rocprofv3 lists it: first in agent_info.csv (by node id) as a CPU, and in
// results.json with type 1 and gpu_index -1; the GPU's dispatches and counters are as without it.
func TestCPUAgentListed(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"t":"header","version":1,"pid":9,"ppid":1,"backend":"rocm","hostname":"h","init_time":1,"cmdline":["./app"]}`,
		`{"t":"agent","id":1,"index":0,"name":"gfx942","vendor":"AMD","type":"GPU","props":{"node_id":1,"logical_node_id":1}}`,
		`{"t":"agent","id":0,"index":-1,"name":"EPYC","vendor":"CPU","type":"CPU","props":{"node_id":0,"logical_node_id":0,"logical_node_type_id":0,"cpu_cores_count":96}}`,
		`{"t":"kernel","kernel_id":1,"name":"_Z1av","demangled":"a()","truncated":"a","agent_id":1}`,
		`{"t":"dispatch","dispatch_id":1,"pass":0,"passes":1,"correlation_id":1,"agent_id":1,"queue_id":1,"kernel_id":1,"grid":[64,1,1],"workgroup":[64,1,1],"start":10,"end":20,"counters":[{"name":"SQ_WAVES","values":[1]},{"name":"SQ_INSTS_VALU","values":[4]}]}`,
		`{"t":"end","fini_time":70,"dispatches":1,"replayed":0,"declined":0}`,
	}
	if _, err := Write(Options{Dir: dir, File: "p", Formats: []string{"json", "csv"}, KernelTrace: true, AgentIndex: "type-relative"},
		processFromLines(t, dir, lines), fakeCounters{}); err != nil {
		t.Fatal(err)
	}
	rows := agentInfoRows(t, dir, 3)
	typ, cores := slices.Index(rows[0], "Agent_Type"), slices.Index(rows[0], "Cpu_Cores_Count")
	if rows[1][typ] != "CPU" || rows[1][cores] != "96" || rows[2][typ] != "GPU" {
		t.Errorf("agent_info.csv rows %v, want the CPU (96 cores) before the GPU", rows[1:])
	}
	el := readResultsElement(t, filepath.Join(dir, "p_results.json"))
	for _, a := range el["agents"].([]any) {
		if at(a, "name") == "EPYC" && (num(at(a, "type")) != 1 || num(at(a, "gpu_index")) != -1) {
			t.Errorf("CPU agent object: type %v, gpu_index %v; want 1, -1", at(a, "type"), at(a, "gpu_index"))
		}
	}
	for _, c := range el["counters"].([]any) {
		if num(at(c, "agent_id", "handle")) != 1 {
			t.Errorf("a counter of agent %v, want the GPU's only", at(c, "agent_id", "handle"))
		}
	}
	kt, err := os.ReadFile(filepath.Join(dir, "p_kernel_trace.csv"))
	if err != nil || !strings.Contains(string(kt), `"KERNEL_DISPATCH","GPU 0",`) {
		t.Errorf("kernel_trace.csv: %s, %v; want the dispatch on GPU 0", kt, err)
	}
}

// agentInfoRows reads dir/p_agent_info.csv, which must have n lines, its header included.
func agentInfoRows(t *testing.T, dir string, n int) [][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "p_agent_info.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) != n {
		t.Fatalf("agent_info.csv: %d rows, %v", len(rows), err)
	}
	return rows
}
