package output

import (
	"testing"

	"github.com/gorocprof/gorocprof/internal/e2etest"
)

// BenchmarkTraceFiles writes TRACE_LINES trace lines (default 200000) of one process, a training
// step's mix (e2etest.TraceMix), as results.json, the CSV files and --stats: the time and bytes per
// line of the trace sinks, the decode and sort of the lines excluded (records' own benchmark
// measures those).
func BenchmarkTraceFiles(b *testing.B) {
	n := benchEnv(b, "TRACE_LINES", 200000)
	p := e2etest.TraceMix(b, n)
	opts := Options{File: "p", Formats: []string{"json", "csv"}, Stats: true}
	b.ResetTimer()
	for range b.N {
		opts.Dir = b.TempDir()
		if _, err := Write(opts, p, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
}
