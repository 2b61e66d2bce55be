package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/rogpeppe/go-internal/testscript"
)

// `tracefiles RUNDIR DIR PREFIX` checks the trace outputs of DIR/PREFIX_* against the record files
// of the run directory RUNDIR (records/*.ndjson, every process's): for each trace group, as many
// rows in its CSV file, records in results.json's array, calls in its stats file and in its
// domain_stats.csv row as the processes have lines of its domains (a file absent where there are
// none). It prints each group's count ("hip_api 57").
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
