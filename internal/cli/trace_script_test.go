package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/rogpeppe/go-internal/testscript"
)

// `tracefiles RUNDIR DIR PREFIX` checks the trace outputs of DIR/PREFIX_* against the record files
// of the run directory RUNDIR (records/*.ndjson, every process's): for each trace group, as many
// rows in its CSV file, records in results.json's array, calls in its stats file and in its
// domain_stats.csv row as the processes have lines of its domains (a file absent where there are
// none). It also checks what rocprofv3's validators check of every row and record, whatever the
// app: a record's kind and operation name a domain and function through strings.buffer_records, a
// marker's message is in strings.marker_api, a copy's agents (in results.json and as the CSV's
// labels) are listed agents of the types its direction says. It prints each group's count
// ("hip_api 57").
func traceFilesCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: tracefiles RUNDIR DIR PREFIX")
	}
	paths, err := filepath.Glob(filepath.Join(ts.MkAbs(args[0]), contract.RecordsDir, "*.ndjson"))
	ts.Check(err)
	if len(paths) == 0 {
		ts.Fatalf("no record files in %s", args[0])
	}
	lines := map[string]int{}
	for _, path := range paths {
		p, err := records.ReadProcess(path)
		ts.Check(err)
		ts.Check(p.EachTrace(func(t *contract.Trace) error {
			lines[output.TraceArray(t.TraceDomain())]++
			return nil
		}))
		p.Close()
	}
	prefix := filepath.Join(ts.MkAbs(args[1]), args[2])
	checkTraceRecords(ts, prefix+"_results.json")
	checkCopyRows(ts, prefix)
	arrays := resultsArrays(ts, prefix+"_results.json")
	domainCalls := statsCalls(ts, prefix+"_domain_stats.csv")
	for _, f := range output.TraceFiles() {
		want := lines[f.Array]
		got := map[string]int{
			"results.json " + f.Array:  arrays[f.Array],
			f.CSV:                      csvRows(ts, prefix+f.CSV),
			f.Stats:                    sum(statsCalls(ts, prefix+f.Stats)),
			"domain_stats " + f.Column: domainCalls[f.Column],
		}
		for what, n := range got {
			if n != want {
				ts.Fatalf("%s: %d, the records have %d lines of its domains", what, n, want)
			}
		}
		fmt.Fprintf(ts.Stdout(), "%s %d\n", f.Array, want)
	}
}

// resultsArrays counts the records of each buffer_records array of every element.
func resultsArrays(ts *testscript.TestScript, path string) map[string]int {
	b, err := os.ReadFile(path)
	ts.Check(err)
	var doc struct {
		Tool []struct {
			BufferRecords map[string][]json.RawMessage `json:"buffer_records"`
		} `json:"rocprofiler-sdk-tool"`
	}
	ts.Check(json.Unmarshal(b, &doc))
	out := map[string]int{}
	for _, el := range doc.Tool {
		for k, v := range el.BufferRecords {
			out[k] += len(v)
		}
	}
	return out
}

// copyEnds are the agent types (1 CPU, 2 GPU) of a copy direction's source and destination.
var copyEnds = map[string][2]int{"MEMORY_COPY_HOST_TO_DEVICE": {1, 2}, "MEMORY_COPY_DEVICE_TO_HOST": {2, 1},
	"MEMORY_COPY_HOST_TO_HOST": {1, 1}, "MEMORY_COPY_DEVICE_TO_DEVICE": {2, 2}, "MEMORY_SET": {2, 2}}

// checkTraceRecords resolves every trace record of results.json as rocprofv3's validators do.
func checkTraceRecords(ts *testscript.TestScript, path string) {
	b, err := os.ReadFile(path)
	ts.Check(err)
	doc, err := e2etest.ParseTraceResults(b)
	ts.Check(err)
	for _, el := range doc.Tool {
		types := map[uint64]int{}
		for _, a := range el.Agents {
			types[a.ID.Handle] = a.Type
		}
		messages := map[uint64]bool{}
		for _, m := range el.Strings.MarkerAPI {
			messages[m.Key] = true
		}
		for _, f := range output.TraceFiles() {
			for i, r := range el.BufferRecords[f.Array] {
				if r.Kind <= 0 || r.Kind >= len(el.Strings.BufferRecords) || r.Operation < 0 ||
					r.Operation >= len(el.Strings.BufferRecords[r.Kind].Operations) {
					ts.Fatalf("%s[%d]: kind %d operation %d are not in strings.buffer_records", f.Array, i, r.Kind, r.Operation)
				}
				kind := el.Strings.BufferRecords[r.Kind]
				if output.TraceArray(kind.Kind) != f.Array || r.End < r.Start || r.Correlation.Internal == 0 {
					ts.Fatalf("%s[%d]: kind %s, times %d..%d, correlation id %d", f.Array, i, kind.Kind, r.Start, r.End, r.Correlation.Internal)
				}
				if f.Array == "marker_api" && !messages[r.Correlation.Internal] {
					ts.Fatalf("%s[%d]: correlation id %d has no message in strings.marker_api", f.Array, i, r.Correlation.Internal)
				}
				if f.Array == "memory_copy" {
					op := kind.Operations[r.Operation]
					if ends, ok := copyEnds[op]; !ok || r.Src == nil || r.Dst == nil || types[r.Src.Handle] != ends[0] || types[r.Dst.Handle] != ends[1] {
						ts.Fatalf("%s[%d] %s: agents %d (type %d) -> %d (type %d)", f.Array, i, op, r.Src.Handle, types[r.Src.Handle], r.Dst.Handle, types[r.Dst.Handle])
					}
				}
			}
		}
	}
}

// checkCopyRows: memory_copy_trace.csv's agent labels end in the number of an agent_info.csv row
// (the validators split them on the space) of the types the direction says.
func checkCopyRows(ts *testscript.TestScript, prefix string) {
	types := map[string]int{}
	for _, r := range readRows(ts, prefix+"_agent_info.csv") {
		types[r[1]] = map[string]int{"CPU": 1, "GPU": 2}[r[2]] // Logical_Node_Id, Agent_Type
	}
	number := func(label string) string { return label[strings.LastIndexByte(label, ' ')+1:] }
	for i, r := range readRows(ts, prefix+"_memory_copy_trace.csv") {
		ends, ok := copyEnds[r[1]]
		if !ok || r[0] != "MEMORY_COPY" || types[number(r[3])] != ends[0] || types[number(r[4])] != ends[1] {
			ts.Fatalf("memory_copy_trace.csv row %d: %q", i+1, r)
		}
	}
}

// readRows reads a CSV file's rows after its header; nil when it does not exist.
func readRows(ts *testscript.TestScript, path string) [][]string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	ts.Check(err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	ts.Check(err)
	if len(rows) < 2 {
		ts.Fatalf("%s has a header and no rows: a trace file is written only with rows", path)
	}
	return rows[1:]
}

func csvRows(ts *testscript.TestScript, path string) int { return len(readRows(ts, path)) }

// statsCalls is a stats file's Calls by Name.
func statsCalls(ts *testscript.TestScript, path string) map[string]int {
	out := map[string]int{}
	for _, r := range readRows(ts, path) {
		n, err := strconv.Atoi(r[1])
		ts.Check(err)
		out[r[0]] += n
	}
	return out
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// `rocpd-vs-json DB RESULTS` is rocprofv3's test_rocpd_data (tests/pytest-packages/tests/rocprofv3.py):
// for each trace array of results.json and the kernel dispatches, upstream's view of the database
// (regions, regions_and_samples for the markers, kernels, memory_copies) has as many rows of the
// array's categories as the array has records.
func rocpdVsJSONCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rocpd-vs-json DB RESULTS")
	}
	arrays := resultsArrays(ts, ts.MkAbs(args[1]))
	for _, c := range []struct {
		array, view string
		categories  []string
	}{
		{"hip_api", "regions", []string{"HIP_COMPILER_API", "HIP_COMPILER_API_EXT", "HIP_RUNTIME_API", "HIP_RUNTIME_API_EXT"}},
		{"hsa_api", "regions", []string{"HSA_CORE_API", "HSA_AMD_EXT_API", "HSA_IMAGE_EXT_API", "HSA_FINALIZE_EXT_API"}},
		{"marker_api", "regions_and_samples", []string{"MARKER_CORE_API", "MARKER_CONTROL_API", "MARKER_NAME_API", "MARKER_CORE_RANGE_API"}},
		{"kernel_dispatch", "kernels", []string{"KERNEL_DISPATCH"}},
		{"memory_copy", "memory_copies", []string{"MEMORY_COPY"}},
	} {
		cond := "category = '" + strings.Join(c.categories, "' OR category = '") + "'"
		rows := queryRows(ts, args[0], "SELECT COUNT(*) FROM "+c.view+" WHERE "+cond)
		if len(rows) != 1 || rows[0] != strconv.Itoa(arrays[c.array]) {
			ts.Fatalf("%s: %v rows of %s in %s, %d records in results.json", c.array, rows, c.view, args[0], arrays[c.array])
		}
		fmt.Fprintf(ts.Stdout(), "%s %d\n", c.array, arrays[c.array])
	}
}
