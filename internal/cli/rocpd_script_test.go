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
//   - `rocpd-matches-csv DB CSV` checks a database against a counter_collection.csv (dispatch,
//     agent (its node id: the CSV written with --agent-index absolute), kernel, counter, value): gorocprof_pass_counters holds exactly its rows, one per pass,
//     and counters_collection, as upstream's view reads it, the first of them for each dispatch and
//     counter (one pass's value, never a sum of passes).

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
	passes := normalised(ts, queryRows(ts, args[0], `SELECT dispatch_id, agent_abs_index, kernel_name, counter_name, value
		FROM gorocprof_pass_counters`))
	collected := normalised(ts, queryRows(ts, args[0], `SELECT dispatch_id, agent_abs_index, kernel_name, counter_name, value
		FROM counters_collection`))
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
	var all, first []string
	seen := map[string]bool{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[col["Counter_Value"]], 64)
		ts.Check(err)
		key := strings.Join([]string{r[col["Dispatch_Id"]], strings.TrimPrefix(r[col["Agent_Id"]], "Agent "), r[col["Kernel_Name"]],
			r[col["Counter_Name"]]}, "|")
		row := key + "|" + strconv.FormatFloat(v, 'g', -1, 64)
		all = append(all, row)
		if !seen[key] { // rows come in pass order
			seen[key] = true
			first = append(first, row)
		}
	}
	for _, c := range []struct {
		view     string
		db, want []string
	}{{"gorocprof_pass_counters", passes, all}, {"counters_collection", collected, first}} {
		slices.Sort(c.db)
		slices.Sort(c.want)
		if !slices.Equal(c.db, c.want) {
			ts.Fatalf("%s (%d rows) differs from %s (%d rows):\n db: %v\ncsv: %v", c.view, len(c.db), args[1], len(c.want),
				head(c.db), head(c.want))
		}
		ts.Logf("%s matches %s: %d rows", c.view, args[1], len(c.db))
	}
}

// normalised prints the last column of each row as strconv does: SQLite prints a REAL without a
// fraction as an integer.
func normalised(ts *testscript.TestScript, db []string) []string {
	for i, r := range db {
		cells := strings.Split(r, "|")
		v, err := strconv.ParseFloat(cells[len(cells)-1], 64)
		ts.Check(err)
		cells[len(cells)-1] = strconv.FormatFloat(v, 'g', -1, 64)
		db[i] = strings.Join(cells, "|")
	}
	return db
}

func head(s []string) []string { return s[:min(len(s), 6)] }
