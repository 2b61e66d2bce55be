package merge

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/output"
)

// BenchmarkJSONTraces reads back TRACE_LINES trace records (default 200000, e2etest.TraceMix's)
// from one process's results.json: the time and bytes per line of
// jsonSource.traces, the records builder excluded.
func BenchmarkJSONTraces(b *testing.B) {
	n := 200000
	if s := os.Getenv("TRACE_LINES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			b.Fatalf("TRACE_LINES=%q: want a positive number", s)
		}
	}
	p := e2etest.TraceMix(b, n)
	dir := b.TempDir()
	if _, err := output.Write(output.Options{Dir: dir, File: "p", Formats: []string{"json"}}, p, nil); err != nil {
		b.Fatal(err)
	}
	heads, err := scanJSON(filepath.Join(dir, "p_results.json"), nil)
	if err != nil {
		b.Fatal(err)
	}
	h := heads[0]
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		got := 0
		if err := h.src.(*jsonSource).traces(h, func(*contract.Trace) error { got++; return nil }); err != nil || got != n {
			b.Fatalf("%d lines, %v", got, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
}
