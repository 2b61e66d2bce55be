package cli

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// `rocpd-vs-pftrace DB TRACE` checks that a run's rocpd database and Perfetto trace hold the same
// trace lines: per rocprofv3 category (hip_api, hsa_api, marker_api, memory_copy, kernel_dispatch)
// as many slices as the database has rows of its domains (regions and samples, copies, dispatches,
// a mark an instant and a sample), and every dispatch or copy slice that carries a flow shares it
// with an API call's slice. It prints `category N` per category with rows, and `linked N` (the
// dispatch and copy slices linked to their call).
func rocpdVsPftraceCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rocpd-vs-pftrace DB TRACE")
	}
	db := map[string]int{}
	for cat, q := range map[string]string{
		"hip_api":         `SELECT count(*) FROM regions_and_samples WHERE category LIKE 'HIP_%'`,
		"hsa_api":         `SELECT count(*) FROM regions_and_samples WHERE category LIKE 'HSA_%'`,
		"marker_api":      `SELECT count(*) FROM regions_and_samples WHERE category LIKE 'MARKER_%'`,
		"marker instants": `SELECT count(*) FROM samples WHERE category LIKE 'MARKER_%'`,
		"memory_copy":     `SELECT count(*) FROM memory_copies`,
		"kernel_dispatch": `SELECT count(*) FROM kernels`,
	} {
		n, err := strconv.Atoi(queryRows(ts, args[0], q)[0])
		ts.Check(err)
		db[cat] = n
	}
	tr := readTrace(ts, args[1])
	trace := map[string]int{}
	callFlows := map[uint64]bool{}
	for _, s := range tr.Slices {
		trace[s.Category]++
		if s.Instant && s.Category == "marker_api" {
			trace["marker instants"]++
		}
		if s.Category == "hip_api" || s.Category == "hsa_api" {
			for _, f := range s.Flows {
				callFlows[f] = true
			}
		}
	}
	linked := 0
	for _, s := range tr.Slices {
		if s.Category != "kernel_dispatch" && s.Category != "memory_copy" {
			continue
		}
		for _, f := range s.Flows {
			if !callFlows[f] {
				ts.Fatalf("a %s slice %q at %d has flow %d, which no API call's slice has", s.Category, s.Name, s.Start, f)
			}
			linked++
		}
	}
	cats := make([]string, 0, len(db))
	for c := range db {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	for _, c := range cats {
		if db[c] != trace[c] {
			ts.Fatalf("%s: %d rows in the database, %d in the trace", c, db[c], trace[c])
		}
		if db[c] > 0 {
			fmt.Fprintf(ts.Stdout(), "%s %d\n", c, db[c])
		}
	}
	fmt.Fprintf(ts.Stdout(), "linked %d\n", linked)
}
