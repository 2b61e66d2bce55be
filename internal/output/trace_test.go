package output

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// builtProcess is a process of backend built record by record: a CPU agent (id 0) and two GPUs
// (gpu, of vendor), then lines, their times after the process's start, then its end.
func builtProcess(t *testing.T, backend, gpu, vendor string, pid int64, lines []contract.Trace) *records.Process {
	t.Helper()
	const t0 = int64(1700000000000000000)
	b := records.NewBuilder(backend + ".ndjson")
	b.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: contract.Version, PID: pid, PPID: 6000,
		Backend: backend, Hostname: "gpu3", InitTime: t0, Cmdline: []string{"./saxpy"}}})
	b.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 0, Index: -1, Name: "Host CPU", Type: "CPU",
		Props: map[string]int64{"node_id": 0, "logical_node_id": 0, "cpu_cores_count": 8}}})
	for i := range 2 {
		b.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: uint64(i + 1), Index: i, Name: gpu,
			Vendor: vendor, Type: "GPU", Props: map[string]int64{"node_id": int64(i + 1), "logical_node_id": int64(i + 1),
				"logical_node_type_id": int64(i), "cu_count": 132, "simd_per_cu": 4}}})
	}
	for _, tr := range lines {
		tr.Start, tr.End = t0+tr.Start, t0+tr.End
		b.Add(records.Record{Type: tr.Kind, Trace: &tr})
	}
	b.Add(records.Record{Type: contract.RecEnd, End: &contract.End{FiniTime: t0 + 5000}})
	p, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// cudaTraced is a CUDA process: runtime and driver calls, an NVTX range and mark, a memset (its
// one agent both ends) and a peer copy between two GPUs, the CPU agent the host side.
func cudaTraced(t *testing.T) *records.Process {
	return builtProcess(t, "cuda", "NVIDIA H200", "NVIDIA", 6200, []contract.Trace{
		{Kind: contract.RecAPI, Domain: tracing.DomainCUDARuntime, Op: "cudaMalloc", CorrelationID: 1, ThreadID: 6200, Start: 100, End: 900},
		{Kind: contract.RecAPI, Domain: tracing.DomainCUDADriver, Op: "cuMemAlloc_v2", CorrelationID: 2, ThreadID: 6200, Start: 200, End: 800},
		{Kind: contract.RecAPI, Domain: tracing.DomainCUDARuntime, Op: "cudaMemset", CorrelationID: 3, ThreadID: 6200, Start: 1000, End: 1400},
		{Kind: contract.RecCopy, Op: "MEMORY_SET", CorrelationID: 3, ThreadID: 6200, SrcAgentID: 1, DstAgentID: 1,
			StreamID: 7, Size: 1 << 20, DstAddress: 0x7f0000, Start: 1100, End: 1300},
		{Kind: contract.RecAPI, Domain: tracing.DomainCUDARuntime, Op: "cudaMemcpyPeer", CorrelationID: 4, ThreadID: 6200, Start: 1500, End: 2500},
		{Kind: contract.RecCopy, Op: "MEMORY_COPY_DEVICE_TO_DEVICE", CorrelationID: 4, ThreadID: 6200, SrcAgentID: 1,
			DstAgentID: 2, StreamID: 7, QueueID: 3, Size: 4096, SrcAddress: 0x7f0000, DstAddress: 0x8f0000, Start: 1600, End: 2400},
		{Kind: contract.RecMarker, Domain: tracing.DomainMarker, Op: "nvtxRangePushA", Message: "iteration 1", CorrelationID: 5,
			ThreadID: 6201, Start: 50, End: 3000},
		{Kind: contract.RecMarker, Domain: tracing.DomainMarker, Op: "nvtxMarkA", Message: "done", CorrelationID: 6,
			ThreadID: 6201, Start: 3000, End: 3000},
	})
}

// rocmTraced is a rocm process: HIP calls over the HSA calls they make, in two HSA domains.
func rocmTraced(t *testing.T) *records.Process {
	return builtProcess(t, "rocm", "gfx942", "AMD", 7300, []contract.Trace{
		{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipMemcpy", CorrelationID: 1, ThreadID: 7300, Start: 100, End: 900},
		{Kind: contract.RecAPI, Domain: "HSA_CORE_API", Op: "hsa_signal_create", CorrelationID: 2, ThreadID: 7300, Start: 150, End: 200},
		{Kind: contract.RecAPI, Domain: "HSA_AMD_EXT_API", Op: "hsa_amd_memory_async_copy_on_engine", CorrelationID: 3, ThreadID: 7300,
			Start: 210, End: 300},
		{Kind: contract.RecCopy, Op: "MEMORY_COPY_HOST_TO_DEVICE", CorrelationID: 1, ThreadID: 7300, SrcAgentID: 0, DstAgentID: 2,
			Size: 64, Start: 300, End: 700},
		{Kind: contract.RecAPI, Domain: "HSA_CORE_API", Op: "hsa_signal_wait_scacquire", CorrelationID: 4, ThreadID: 7300, Start: 310, End: 800},
	})
}

// writeFiles writes proc's files under opts.Dir, a new directory when empty, and returns them by
// their path below it.
func writeFiles(t *testing.T, opts Options, proc *records.Process, cs Counters) map[string][]byte {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	paths, err := Write(opts, proc, cs)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(opts.Dir, p)
		files[filepath.ToSlash(rel)] = b
	}
	return files
}

// TestTraceCUDAGolden: the CUDA domains' files of their own (cuda_api_trace.csv for the runtime,
// cuda_driver_api_trace.csv for the driver, with the HIP header), their kinds and arrays in
// results.json, NVTX markers named by their messages, a memset among the copies.
func TestTraceCUDAGolden(t *testing.T) {
	proc := cudaTraced(t)
	opts := Options{File: "6200", Formats: []string{"json", "csv"}, Stats: true,
		TraceDomains: []string{tracing.DomainCUDADriver, tracing.DomainCUDARuntime, tracing.DomainMarker, contract.DomainMemoryCopy}}
	files := writeFiles(t, opts, proc, nil)
	again := writeFiles(t, opts, proc, nil)
	for name, b := range files {
		if string(again[name]) != string(b) {
			t.Errorf("%s differs between two writes of one process", name)
		}
		compareGolden(t, "traced_cuda/"+name, b)
	}
	for _, want := range []string{"6200_cuda_api_trace.csv", "6200_cuda_driver_api_trace.csv", "6200_marker_api_trace.csv",
		"6200_memory_copy_trace.csv", "6200_cuda_api_stats.csv", "6200_cuda_driver_api_stats.csv"} {
		if _, ok := files[want]; !ok {
			t.Errorf("no %s among %v", want, slices.Sorted(mapKeys(files)))
		}
	}
	for _, absent := range []string{"6200_hip_api_trace.csv", "6200_hsa_api_trace.csv", "6200_kernel_trace.csv", "6200_kernel_stats.csv"} {
		if _, ok := files[absent]; ok {
			t.Errorf("%s written without a line of its domain", absent)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// TestTraceValidatorRules pins, on the traced fixtures, what rocprofv3's own validators
// (tests/rocprofv3/tracing, tracing-plus-counter-collection, summary) check of these files: every
// record's kind and operation resolve through strings.buffer_records to its domain and function; a
// copy's agents are listed agents, the host side a CPU (type 1), the device side a GPU (type 2),
// in the JSON and as the CSV's Agent_Id labels; a marker's message is its correlation id's in
// strings.marker_api and its CSV Function; correlation ids of API calls are unique; each CSV file
// has a row per record of its arrays; agent_info's logical node ids are 0..n-1.
func TestTraceValidatorRules(t *testing.T) {
	for _, tc := range []struct {
		name string
		proc func(*testing.T) *records.Process
	}{
		{"sim", func(t *testing.T) *records.Process { return readFixture(t, "5100_traced.ndjson") }},
		{"cuda", cudaTraced},
		{"rocm", rocmTraced},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc := tc.proc(t)
			dir := t.TempDir()
			files := writeFiles(t, Options{Dir: dir, File: "p", Formats: []string{"json", "csv"}}, proc, nil)
			doc, err := e2etest.ParseTraceResults(files["p_results.json"])
			if err != nil {
				t.Fatal(err)
			}
			el := doc.Tool[0]
			agentType := map[uint64]int{}
			for _, a := range el.Agents {
				agentType[a.ID.Handle] = a.Type
			}
			messages := map[uint64]string{}
			for _, m := range el.Strings.MarkerAPI {
				messages[m.Key] = m.Value
			}
			// What each trace line must become, by array.
			want := map[string][]*contract.Trace{}
			_ = proc.EachTrace(func(tr *contract.Trace) error {
				c := *tr
				want[traceGroups[traceGroupOf(tr.TraceDomain())].array] = append(want[traceGroups[traceGroupOf(tr.TraceDomain())].array], &c)
				return nil
			})
			apiCorr := map[uint64]bool{}
			for array, lines := range want {
				got := el.BufferRecords[array]
				if len(got) != len(lines) {
					t.Fatalf("buffer_records.%s: %d records, %d lines", array, len(got), len(lines))
				}
				for i, r := range got {
					l := lines[i]
					kind := el.Strings.BufferRecords[r.Kind]
					if kind.Kind != l.TraceDomain() || kind.Operations[r.Operation] != l.Op {
						t.Errorf("%s[%d]: kind %d operation %d resolve to %s %s, want %s %s", array, i, r.Kind, r.Operation,
							kind.Kind, kind.Operations[r.Operation], l.TraceDomain(), l.Op)
					}
					if r.End < r.Start || r.Correlation.Internal == 0 || r.ThreadID < uint64(el.Metadata.PID) {
						t.Errorf("%s[%d]: times %d..%d, correlation %d, thread %d", array, i, r.Start, r.End, r.Correlation.Internal, r.ThreadID)
					}
					switch l.Kind {
					case contract.RecAPI:
						if apiCorr[r.Correlation.Internal] {
							t.Errorf("%s[%d]: correlation id %d given to two API calls", array, i, r.Correlation.Internal)
						}
						apiCorr[r.Correlation.Internal] = true
					case contract.RecMarker:
						if messages[r.Correlation.Internal] != l.Message {
							t.Errorf("%s[%d]: strings.marker_api[%d] = %q, want %q", array, i, r.Correlation.Internal, messages[r.Correlation.Internal], l.Message)
						}
					case contract.RecCopy:
						src, dst := agentType[r.Src.Handle], agentType[r.Dst.Handle]
						wantSrc, wantDst := copyEnds(l.Op)
						if src != wantSrc || dst != wantDst {
							t.Errorf("%s[%d] %s: agents of types %d -> %d, want %d -> %d", array, i, l.Op, src, dst, wantSrc, wantDst)
						}
					}
				}
			}
			checkTraceCSVs(t, dir, files, want)
		})
	}
}

// copyEnds are the agent types (1 CPU, 2 GPU) a copy's direction gives its ends.
func copyEnds(op string) (src, dst int) {
	switch op {
	case "MEMORY_COPY_HOST_TO_DEVICE":
		return 1, 2
	case "MEMORY_COPY_DEVICE_TO_HOST":
		return 2, 1
	case "MEMORY_COPY_HOST_TO_HOST":
		return 1, 1
	}
	return 2, 2
}

// checkTraceCSVs: each group's CSV file has a row per line, its Function the line's function (a
// marker's message), a copy's agents labels of agent_info's rows of the right type.
func checkTraceCSVs(t *testing.T, dir string, files map[string][]byte, want map[string][]*contract.Trace) {
	t.Helper()
	agents := csvByHeader(t, filepath.Join(dir, "p_agent_info.csv"))
	typeOf := map[string]string{}
	maxLogical := -1
	for _, a := range agents {
		typeOf[a["Logical_Node_Id"]] = a["Agent_Type"]
		n, _ := strconv.Atoi(a["Logical_Node_Id"])
		maxLogical = max(maxLogical, n)
		if a["Agent_Type"] == "CPU" && (a["Cpu_Cores_Count"] == "0" || a["Simd_Count"] != "0" || a["Max_Waves_Per_Simd"] != "0") {
			t.Errorf("agent_info's CPU row: %v", a)
		}
	}
	if maxLogical+1 != len(agents) {
		t.Errorf("agent_info: logical node ids up to %d in %d rows", maxLogical, len(agents))
	}
	types := map[int]string{1: "CPU", 2: "GPU"}
	for _, g := range traceGroups {
		lines := want[g.array]
		if _, ok := files["p"+g.trace]; !ok {
			if len(lines) > 0 {
				t.Errorf("no %s for %d lines", g.trace, len(lines))
			}
			continue
		}
		rows := csvByHeader(t, filepath.Join(dir, "p"+g.trace))
		if len(rows) != len(lines) {
			t.Fatalf("%s: %d rows, %d lines", g.trace, len(rows), len(lines))
		}
		for i, r := range rows {
			l := lines[i]
			if l.Kind != contract.RecCopy {
				if r["Domain"] != l.Domain || r["Function"] != traceFunction(l) || r["Correlation_Id"] != strconv.FormatUint(l.CorrelationID, 10) {
					t.Errorf("%s row %d: %v for %+v", g.trace, i, r, *l)
				}
				continue
			}
			src, dst := copyEnds(l.Op)
			last := func(label string) string { f := strings.Fields(label); return f[len(f)-1] }
			if r["Kind"] != "MEMORY_COPY" || r["Direction"] != l.Op || typeOf[last(r["Source_Agent_Id"])] != types[src] ||
				typeOf[last(r["Destination_Agent_Id"])] != types[dst] {
				t.Errorf("%s row %d: %v for %+v", g.trace, i, r, *l)
			}
		}
	}
}

// TestTraceUnknownDomain: a line of a domain no output knows, or an API line of the marker domain,
// is in no file, and the write says so once the files are in place.
func TestTraceUnknownDomain(t *testing.T) {
	b := records.NewBuilder("x.ndjson")
	b.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: contract.Version, PID: 9, Backend: "sim", Hostname: "h"}})
	b.Add(records.Record{Type: contract.RecAPI, Trace: &contract.Trace{Kind: contract.RecAPI, Domain: "ROCDECODE_API", Op: "rocDecCreateDecoder",
		CorrelationID: 1, ThreadID: 9, Start: 1, End: 2}})
	b.Add(records.Record{Type: contract.RecAPI, Trace: &contract.Trace{Kind: contract.RecAPI, Domain: tracing.DomainMarker, Op: "roctxMarkA",
		CorrelationID: 3, ThreadID: 9, Start: 2, End: 2}})
	b.Add(records.Record{Type: contract.RecAPI, Trace: &contract.Trace{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipFree",
		CorrelationID: 2, ThreadID: 9, Start: 3, End: 4}})
	p, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	paths, err := Write(Options{Dir: dir, File: "p", Formats: []string{"csv", "json"}}, p, nil)
	if err == nil || !strings.Contains(err.Error(), `1 api line of domain "MARKER_CORE_RANGE_API", 1 api line of domain "ROCDECODE_API"`) {
		t.Errorf("error %v, want one naming the left out line's domain", err)
	}
	if len(paths) != 3 {
		t.Errorf("files placed: %v", paths)
	}
	hip, rerr := os.ReadFile(filepath.Join(dir, "p_hip_api_trace.csv"))
	if rerr != nil || strings.Count(string(hip), "\n") != 2 {
		t.Errorf("hip_api_trace.csv: %q, %v", hip, rerr)
	}
}

// TestTraceSummaryTables reads the traced fixture's summaries as rocprofv3's summary validator
// reads its own (tests/rocprofv3/summary conftest: a title line starts a table, its "|" rows
// split into cells): a table per domain, per group and the whole, each row nine cells, the rows
// as many as the table's names.
func TestTraceSummaryTables(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "golden", "traced", "5100_summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string][][]string{}
	title := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "|--") {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			title = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(line, ":"), "ROCPROFV3 "), " SUMMARY")
			continue
		}
		var cells []string
		for _, c := range strings.Split(line, "|") {
			if c = strings.TrimSpace(c); c != "" {
				cells = append(cells, c)
			}
		}
		tables[title] = append(tables[title], cells)
	}
	// rows beside the header line
	want := map[string]int{"HIP_API": 6, "MARKER_API": 3, "KERNEL_DISPATCH": 1, "MEMORY_COPY": 2,
		"KERNEL_DISPATCH + MEMORY_COPY": 3, "HIP_API + MARKER_API": 9, "SUMMARY": 12}
	if len(tables) != len(want) {
		t.Errorf("tables %v, want %v", slices.Sorted(mapKeys(tables)), want)
	}
	for name, n := range want {
		rows := tables[name]
		if len(rows) != n+1 || rows[0][0] != "NAME" {
			t.Errorf("%s: %d rows, want a header and %d", name, len(rows), n)
		}
		for _, r := range rows {
			if len(r) != 9 {
				t.Errorf("%s: row %q has %d cells, want 9", name, r, len(r))
			}
		}
	}
}

// TestResultsSummaryMatchesStats: results.json's summary (rocprofv3's, read by its summary
// validator as data.summary[i].domain, .stats.count and .stats.operations) holds the numbers of the
// stats files: a domain's count and sum its domain_stats.csv row's, an operation's its stats file's
// row of that name.
func TestResultsSummaryMatchesStats(t *testing.T) {
	dir := t.TempDir()
	files := writeFiles(t, Options{Dir: dir, File: "p", Formats: []string{"json", "csv"}, KernelTrace: true, Stats: true},
		readFixture(t, "5100_traced.ndjson"), fakeCounters{})
	var doc struct {
		Tool []struct {
			Summary []struct {
				Domain string `json:"domain"`
				Stats  struct {
					Count      int64 `json:"count"`
					Sum        int64 `json:"sum"`
					Operations []struct {
						Key   string `json:"key"`
						Value struct {
							Count int64 `json:"count"`
							Sum   int64 `json:"sum"`
						} `json:"value"`
					} `json:"operations"`
				} `json:"stats"`
			} `json:"summary"`
		} `json:"rocprofiler-sdk-tool"`
	}
	if err := json.Unmarshal(files["p_results.json"], &doc); err != nil {
		t.Fatal(err)
	}
	statsFile := map[string]string{kernelDomain: "_kernel_stats.csv"}
	for _, g := range traceGroups {
		statsFile[g.column] = g.stats
	}
	row := func(rows []map[string]string, name string) (string, string) {
		for _, r := range rows {
			if r["Name"] == name {
				return r["Calls"], r["TotalDurationNs"]
			}
		}
		return "", ""
	}
	domains := csvByHeader(t, filepath.Join(dir, "p_domain_stats.csv"))
	summary := doc.Tool[0].Summary
	if len(summary) != len(domains) {
		t.Errorf("summary of %d domains, domain_stats.csv has %d", len(summary), len(domains))
	}
	for _, d := range summary {
		calls, total := row(domains, d.Domain)
		if calls != strconv.FormatInt(d.Stats.Count, 10) || total != strconv.FormatInt(d.Stats.Sum, 10) {
			t.Errorf("%s: count %d sum %d, domain_stats.csv %s %s", d.Domain, d.Stats.Count, d.Stats.Sum, calls, total)
		}
		names := csvByHeader(t, filepath.Join(dir, "p"+statsFile[d.Domain]))
		if len(d.Stats.Operations) != len(names) {
			t.Errorf("%s: %d operations, %s has %d rows", d.Domain, len(d.Stats.Operations), statsFile[d.Domain], len(names))
		}
		for _, op := range d.Stats.Operations {
			if calls, total := row(names, op.Key); calls != strconv.FormatInt(op.Value.Count, 10) || total != strconv.FormatInt(op.Value.Sum, 10) {
				t.Errorf("%s %q: count %d sum %d, its stats row %s %s", d.Domain, op.Key, op.Value.Count, op.Value.Sum, calls, total)
			}
		}
	}
}

// TestTraceFilesIgnoreLineOrder: the trace lines of a record file in another order (threads'
// buffers flushed in another order) give the same bytes in every file.
func TestTraceFilesIgnoreLineOrder(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "records", "5100_traced.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	var head, traces, rest []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		switch {
		case strings.HasPrefix(l, `{"t":"api"`), strings.HasPrefix(l, `{"t":"marker"`), strings.HasPrefix(l, `{"t":"copy"`):
			traces = append(traces, l)
		case len(traces) == 0:
			head = append(head, l)
		default:
			rest = append(rest, l)
		}
	}
	slices.Reverse(traces)
	path := filepath.Join(t.TempDir(), "5100.ndjson")
	if err := os.WriteFile(path, []byte(strings.Join(append(append(head, rest[:len(rest)-1]...), append(traces, rest[len(rest)-1])...), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reordered, err := records.ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reordered.Close()
	opts := Options{File: "p", Formats: []string{"json", "csv"}, KernelTrace: true, Stats: true}
	want := writeFiles(t, opts, readFixture(t, "5100_traced.ndjson"), fakeCounters{})
	got := writeFiles(t, opts, reordered, fakeCounters{})
	if len(got) != len(want) {
		t.Fatalf("%d files, want %d", len(got), len(want))
	}
	for name, b := range want {
		if string(got[name]) != string(b) {
			t.Errorf("%s differs with the lines in another order", name)
		}
	}
}
