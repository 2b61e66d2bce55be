package output

import (
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// BenchmarkTraceFiles writes TRACE_LINES trace lines (default 200000) of one process, a PyTorch
// step's mix (calls of 40 functions on 4 threads, a copy per 8 calls, a marker range per 16), as
// results.json, the CSV files and --stats: the time and bytes per line of the trace sinks, the
// decode and sort of the lines excluded (records' own benchmark measures those).
func BenchmarkTraceFiles(b *testing.B) {
	n := benchEnv(b, "TRACE_LINES", 200000)
	bld := records.NewBuilder("bench.ndjson")
	bld.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: contract.Version, PID: 1000, Backend: "sim", Hostname: "h"}})
	bld.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 0, Index: -1, Type: "CPU", Props: map[string]int64{}}})
	bld.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 1, Index: 0, Type: "GPU", Props: map[string]int64{"node_id": 1, "logical_node_id": 1}}})
	var ops []string
	for i := range 40 {
		ops = append(ops, "hipFunction"+strconv.Itoa(i))
	}
	for i := range n {
		t := contract.Trace{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: ops[i%len(ops)], CorrelationID: uint64(i + 1),
			ThreadID: uint64(1000 + i%4), Start: int64(i) * 1000, End: int64(i)*1000 + 700}
		switch {
		case i%16 == 15:
			t.Kind, t.Domain, t.Op, t.Message = contract.RecMarker, domainMarker, "roctxThreadRangeA", "step "+strconv.Itoa(i/1600)
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
