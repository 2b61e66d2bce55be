// Package stats computes rocprofv3's --stats tables: per name (a kernel, or a whole domain), the
// calls, total, mean, share of the domain's total, minimum, maximum and sample standard deviation
// of their durations, written as rocprofv3's *_stats.csv files.
package stats

import (
	"bufio"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Columns is the header of every *_stats.csv file, verbatim from rocprofv3.
var Columns = []string{"Name", "Calls", "TotalDurationNs", "AverageNs", "Percentage", "MinNs", "MaxNs", "StdDev"}

// Table accumulates durations by name in memory bounded by the number of names.
type Table struct {
	rows map[string]*row
}

type row struct {
	name          string
	calls         int64
	total         int64
	min, max      int64
	mean, sumSqrs float64 // Welford's running mean and sum of squared deviations
	squares       uint64  // the sum of the squared durations, wrapping as rocprofv3's uint64 does
}

// Add counts one call of name that took ns nanoseconds.
func (t *Table) Add(name string, ns int64) {
	if t.rows == nil {
		t.rows = map[string]*row{}
	}
	r, ok := t.rows[name]
	if !ok {
		r = &row{name: name, min: ns, max: ns}
		t.rows[name] = r
	}
	r.calls++
	r.total += ns
	r.squares += uint64(ns) * uint64(ns)
	r.min, r.max = min(r.min, ns), max(r.max, ns)
	d := float64(ns) - r.mean
	r.mean += d / float64(r.calls)
	r.sumSqrs += d * (float64(ns) - r.mean)
}

// Len is the number of names counted.
func (t *Table) Len() int { return len(t.rows) }

// sorted returns the rows by total duration, largest first (rocprofv3's order), then by name.
func (t *Table) sorted() []*row {
	rows := make([]*row, 0, len(t.rows))
	for _, r := range t.rows {
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].total != rows[j].total {
			return rows[i].total > rows[j].total
		}
		return rows[i].name < rows[j].name
	})
	return rows
}

// WriteCSV writes the header and one line per name, numbers formatted as rocprofv3 formats them.
func (t *Table) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	quoted := make([]string, len(Columns))
	for i, c := range Columns {
		quoted[i] = quote(c)
	}
	bw.WriteString(strings.Join(quoted, ",") + "\n")
	var grand int64
	for _, r := range t.rows {
		grand += r.total
	}
	for _, r := range t.sorted() {
		share := 0.0
		if grand > 0 {
			share = 100 * float64(r.total) / float64(grand)
		}
		bw.WriteString(strings.Join([]string{quote(r.name), strconv.FormatInt(r.calls, 10), strconv.FormatInt(r.total, 10),
			formatFloat(float64(r.total) / float64(r.calls)), formatPercent(share), strconv.FormatInt(r.min, 10),
			strconv.FormatInt(r.max, 10), formatFloat(r.stddev())}, ",") + "\n")
	}
	return bw.Flush()
}

// Stat is one name's numbers, or a whole table's, as rocprofv3's results.json summary writes them
// (its statistics' count, sum, sqr, min, max, mean, stddev and variance).
type Stat struct {
	Name                   string
	Calls, Total, Min, Max int64
	SumSquares             uint64
	Mean, StdDev, Variance float64
}

// Stats returns the table's total and its names' numbers, by name.
func (t *Table) Stats() (total Stat, names []Stat) {
	var all entry
	rows := t.sorted()
	sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
	for _, r := range rows {
		names = append(names, r.stat())
		all.merge(r)
	}
	total = all.stat()
	total.Name = ""
	return total, names
}

func (r *row) stat() Stat {
	v := 0.0
	if r.calls > 1 {
		v = r.sumSqrs / float64(r.calls-1)
	}
	return Stat{Name: r.name, Calls: r.calls, Total: r.total, Min: r.min, Max: r.max, SumSquares: r.squares,
		Mean: r.mean, StdDev: math.Sqrt(v), Variance: v}
}

// stddev is the sample standard deviation (n-1), 0 for one call.
func (r *row) stddev() float64 {
	if r.calls < 2 {
		return 0
	}
	return math.Sqrt(r.sumSqrs / float64(r.calls-1))
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// formatFloat: six decimals above 0.01, else scientific with eight.
func formatFloat(v float64) string {
	if v > 0.01 {
		return strconv.FormatFloat(v, 'f', 6, 64)
	}
	return strconv.FormatFloat(v, 'e', 8, 64)
}

// formatPercent: two decimals from 1, four above 0.01, else scientific with three.
func formatPercent(v float64) string {
	switch {
	case v >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v > 0.01:
		return strconv.FormatFloat(v, 'f', 4, 64)
	}
	return strconv.FormatFloat(v, 'e', 3, 64)
}
