package cli

import (
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/rocpd"
	"github.com/rogpeppe/go-internal/testscript"
)

// The testscript commands that read a rocpd database (no sqlite3 CLI needed):
//   - `rocpd DB SQL` prints every row of the query, columns joined by '|', for stdout checks;
//   - `rocpd-matches-csv DB CSV` checks that counters_collection holds exactly the rows of a
//     counter_collection.csv (dispatch, agent (its node id; the CSV written with --agent-index
//     absolute), kernel, counter, value; one per pass, never summed).

// queryRows runs a query on the database at path (relative to the script's directory), each row's
// columns joined by '|'.
func queryRows(ts *testscript.TestScript, path, query string) []string {
	rows, err := rocpd.Query(ts.MkAbs(path), query)
	ts.Check(err)
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = strings.Join(r, "|")
	}
	return out
}

func rocpdQueryCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rocpd DB SQL")
	}
	for _, r := range queryRows(ts, args[0], args[1]) {
		fmt.Fprintln(ts.Stdout(), r)
	}
}

func rocpdMatchesCSVCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: rocpd-matches-csv DB CSV")
	}
	db := queryRows(ts, args[0], `SELECT dispatch_id, agent_abs_index, kernel_name, counter_name, value
		FROM counters_collection`)
	f, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	ts.Check(err)
	if len(recs) == 0 {
		ts.Fatalf("%s is empty", args[1])
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var want []string
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[col["Counter_Value"]], 64)
		ts.Check(err)
		want = append(want, strings.Join([]string{r[col["Dispatch_Id"]], strings.TrimPrefix(r[col["Agent_Id"]], "Agent "), r[col["Kernel_Name"]],
			r[col["Counter_Name"]], strconv.FormatFloat(v, 'g', -1, 64)}, "|"))
	}
	// SQLite prints a REAL without a fraction as an integer; normalise the database's values the same.
	for i, r := range db {
		cells := strings.Split(r, "|")
		v, err := strconv.ParseFloat(cells[len(cells)-1], 64)
		ts.Check(err)
		cells[len(cells)-1] = strconv.FormatFloat(v, 'g', -1, 64)
		db[i] = strings.Join(cells, "|")
	}
	slices.Sort(db)
	slices.Sort(want)
	if !slices.Equal(db, want) {
		ts.Fatalf("counters_collection (%d rows) differs from %s (%d rows):\n db: %v\ncsv: %v", len(db), args[1], len(want),
			head(db), head(want))
	}
	ts.Logf("counters_collection matches %s: %d rows", args[1], len(db))
}

func head(s []string) []string { return s[:min(len(s), 6)] }
