package cli

import (
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/stats"
	"github.com/rogpeppe/go-internal/testscript"
)

// summaryOpts is the summary part of the request gorocprof-request prints.
type summaryOpts = stats.SummaryOptions

// summaryMatchesStatsCmd: `summary-stats SUMMARY KERNEL_STATS_CSV` checks every table of a
// summary file against kernel_stats.csv of the same run: the same kernels in the same order, their
// calls, and total, minimum and maximum (converted from the table's unit) to the digits the table
// prints, the mean and standard deviation to its three decimals.
func summaryMatchesStatsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: summary-stats SUMMARY KERNEL_STATS_CSV")
	}
	f, err := os.Open(ts.MkAbs(args[1]))
	ts.Check(err)
	defer f.Close()
	want, err := csv.NewReader(f).ReadAll()
	ts.Check(err)
	want = want[1:] // Name,Calls,TotalDurationNs,AverageNs,Percentage,MinNs,MaxNs,StdDev
	tables := 0
	var div float64
	var rows [][]string
	check := func() {
		if len(rows) != len(want) {
			ts.Fatalf("a table of %d rows, kernel_stats.csv has %d", len(rows), len(want))
		}
		for i, r := range rows {
			w := want[i]
			if r[0] != w[0] || r[2] != w[1] {
				ts.Fatalf("row %d: %q %s calls, kernel_stats.csv %q %s", i, r[0], r[2], w[0], w[1])
			}
			for _, c := range []struct {
				got, want int
				rel       float64
			}{{3, 2, 1e-12}, {4, 3, 1e-3}, {6, 5, 1e-12}, {7, 6, 1e-12}, {8, 7, 1e-3}} {
				g, err1 := strconv.ParseFloat(r[c.got], 64)
				x, err2 := strconv.ParseFloat(w[c.want], 64)
				if err1 != nil || err2 != nil || math.Abs(g*div-x) > c.rel*math.Abs(x)+1e-9 {
					ts.Fatalf("%s: column %d reads %s (x%g), kernel_stats.csv %s", r[0], c.got, r[c.got], div, w[c.want])
				}
			}
		}
		tables++
	}
	for _, line := range strings.Split(ts.ReadFile(args[0]), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "| ") && strings.Contains(line, " NAME "):
			rows = nil
			div = map[string]float64{"(sec)": 1e9, "(msec)": 1e6, "(usec)": 1e3, "(nsec)": 1}[strings.Fields(line)[8]]
		case strings.HasPrefix(line, "| "):
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			rows = append(rows, cells)
		case line == "" && rows != nil:
			check()
			rows = nil
		}
	}
	if tables == 0 {
		ts.Fatalf("%s holds no summary table", args[0])
	}
	ts.Logf("%d tables agree with %s", tables, args[1])
}
