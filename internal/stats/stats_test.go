package stats

import (
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
