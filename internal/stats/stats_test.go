package stats

import (
	"math"
	"strings"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	var k Table
	for _, d := range []int64{100, 200, 300} {
		k.Add("gemm()", d)
	}
	k.Add("tiny", 7)
	k.Add(`say "hi"`, 1_000_000)
	var b strings.Builder
	if err := k.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	// Sorted by total, largest first; the sample standard deviation of 100, 200, 300 is 100; one
	// call has none (0, below 0.01, so in scientific form); shares as rocprofv3 rounds them.
	want := `"Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
"say ""hi""",1,1000000,1000000.000000,99.94,1000000,1000000,0.00000000e+00
"gemm()",3,600,200.000000,0.0600,100,300,100.000000
"tiny",1,7,7.000000,6.996e-04,7,7,0.00000000e+00
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestEmpty(t *testing.T) {
	var b strings.Builder
	if err := (&Table{}).WriteCSV(&b); err != nil || strings.Count(b.String(), "\n") != 1 {
		t.Errorf("an empty table should be the header alone, got %q (%v)", b.String(), err)
	}
}

// TestStats: the numbers rocprofv3's results.json summary gives a domain (its statistics' count,
// sum, sqr, min, max, mean, sample variance and standard deviation), for each name by name and for
// the whole table, which pools its names' calls.
func TestStats(t *testing.T) {
	var k Table
	for _, d := range []int64{100, 200, 300} {
		k.Add("b", d)
	}
	k.Add("a", 600)
	total, names := k.Stats()
	want := []Stat{
		{Name: "a", Calls: 1, Total: 600, Min: 600, Max: 600, SumSquares: 360000, Mean: 600},
		{Name: "b", Calls: 3, Total: 600, Min: 100, Max: 300, SumSquares: 140000, Mean: 200, StdDev: 100, Variance: 10000},
	}
	if len(names) != 2 || names[0] != want[0] || names[1] != want[1] {
		t.Errorf("names %+v, want %+v", names, want)
	}
	// 100, 200, 300, 600: mean 300, squared deviations 40000+10000+0+90000 over 3.
	if total.Name != "" || total.Calls != 4 || total.Total != 1200 || total.Min != 100 || total.Max != 600 ||
		total.SumSquares != 500000 || total.Mean != 300 || math.Abs(total.Variance-140000.0/3) > 1e-6 {
		t.Errorf("total %+v", total)
	}
}
