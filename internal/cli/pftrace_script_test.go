package cli

import (
	"encoding/csv"
	"fmt"
	"os"
	"strings"

	"github.com/gorocprof/gorocprof/internal/perfetto"
	"github.com/rogpeppe/go-internal/testscript"
)

// The testscript commands that read a Perfetto trace (-f pftrace), checking on the way what the
// UI needs of it (perfetto.Decode):
//   - `pftrace TRACE` prints a line `process PID NAME` per process track, then one line per slice:
//     its track, name, dispatch id and pass, '|'-joined, and its pmc_group after a fifth '|' when
//     it has one (a rotation run's);
//   - `pftrace-vs-csv TRACE CSV` checks that the trace has exactly the passes of a
//     kernel_trace.csv, in its order: dispatch id, queue, kernel name (the slice's name, whatever the
//     pass), start and end, a dispatch's first row in rocprofv3's category kernel_dispatch and its
//     later ones (the replay passes) in kernel_dispatch_replay.

func readTrace(ts *testscript.TestScript, path string) *perfetto.Decoded {
	data, err := os.ReadFile(ts.MkAbs(path))
	ts.Check(err)
	tr, err := perfetto.Decode(data)
	if err != nil {
		ts.Fatalf("%s: %v", path, err)
	}
	return tr
}

func pftraceCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pftrace TRACE")
	}
	tr := readTrace(ts, args[0])
	names := map[uint64]string{}
	for _, t := range tr.Tracks {
		names[t.UUID] = t.Name
		if t.PID != 0 {
			fmt.Fprintf(ts.Stdout(), "process %d %s\n", t.PID, t.Name)
		}
	}
	for _, s := range tr.Slices {
		id, _ := s.Arg("dispatch_id")
		pass, _ := s.Arg("replay_pass")
		line := strings.Join([]string{names[s.Track], s.Name, id, pass}, "|")
		if group, ok := s.Arg("pmc_group"); ok {
			line += "|" + group
		}
		fmt.Fprintln(ts.Stdout(), line)
	}
}

func pftraceVsCSVCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pftrace-vs-csv TRACE CSV")
	}
	tr := readTrace(ts, args[0])
	f, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	ts.Check(err)
	if len(recs) < 2 {
		ts.Fatalf("%s has no rows", args[1])
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	names := map[uint64]string{}
	for _, t := range tr.Tracks {
		names[t.UUID] = t.Name
	}
	rows := recs[1:]
	if len(rows) != len(tr.Slices) {
		ts.Fatalf("%d slices in %s, %d rows in %s", len(tr.Slices), args[0], len(rows), args[1])
	}
	seen := map[string]bool{}
	for i, r := range rows {
		s := tr.Slices[i]
		category := "kernel_dispatch_replay"
		if !seen[r[col["Dispatch_Id"]]] {
			seen[r[col["Dispatch_Id"]]] = true
			category = "kernel_dispatch"
		}
		id, _ := s.Arg("dispatch_id")
		got := strings.Join([]string{s.Category, id, names[s.Track], s.Name,
			fmt.Sprint(s.Start), fmt.Sprint(s.End)}, "|")
		want := strings.Join([]string{category, r[col["Dispatch_Id"]], "queue " + r[col["Queue_Id"]], r[col["Kernel_Name"]],
			r[col["Start_Timestamp"]], r[col["End_Timestamp"]]}, "|")
		if got != want {
			ts.Fatalf("slice %d: %s, row %d of %s: %s", i, got, i+1, args[1], want)
		}
	}
	ts.Logf("%s matches %s: %d slices", args[0], args[1], len(rows))
}
