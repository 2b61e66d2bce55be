package merge

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// BenchmarkJSONTraces reads back TRACE_LINES trace records (default 200000: HIP calls, a copy per
// 8, a marker per 16) from one process's results.json: the time and bytes per line of
// jsonSource.traces, the records builder excluded.
func BenchmarkJSONTraces(b *testing.B) {
	n := 200000
	if s := os.Getenv("TRACE_LINES"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n <= 0 {
			b.Fatalf("TRACE_LINES=%q: want a positive number", s)
		}
	}
	bld := records.NewBuilder("bench.ndjson")
	bld.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: contract.Version, PID: 1000, Backend: "sim", Hostname: "h"}})
	bld.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 0, Index: -1, Type: "CPU", Props: map[string]int64{}}})
	bld.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 1, Index: 0, Type: "GPU", Props: map[string]int64{"node_id": 1}}})
	for i := range n {
		t := contract.Trace{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipFunction" + strconv.Itoa(i%40),
			CorrelationID: uint64(i + 1), ThreadID: uint64(1000 + i%4), Start: int64(i) * 1000, End: int64(i)*1000 + 700}
		switch {
		case i%16 == 15:
			t.Kind, t.Domain, t.Op, t.Message = contract.RecMarker, "MARKER_CORE_RANGE_API", "roctxThreadRangeA", "step"
		case i%8 == 7:
			t.Kind, t.Domain, t.Op, t.SrcAgentID, t.DstAgentID, t.Size = contract.RecCopy, "", "MEMORY_COPY_HOST_TO_DEVICE", 0, 1, 4096
		}
		bld.Add(records.Record{Type: t.Kind, Trace: &t})
	}
	p, err := bld.Finish()
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
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
