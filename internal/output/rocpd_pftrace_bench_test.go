package output

import (
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// traceBenchProcess builds a process of n trace lines over four threads: per step of a thread a
// pushed range holding a hipLaunchKernel, a hipMemcpy and its copy (four lines a step).
func traceBenchProcess(b *testing.B, n int) *records.Process {
	bl := records.NewBuilder("bench")
	bl.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: 1, PID: 1000, Backend: "sim",
		Hostname: "bench", InitTime: 1, Cmdline: []string{"./app"}}})
	bl.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 1, Name: "gfx90a", Type: "GPU",
		Props: map[string]int64{"node_id": 1}}})
	bl.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 0, Index: -1, Name: "cpu", Type: "CPU",
		Props: map[string]int64{"node_id": 0}}})
	var corr uint64
	for step := 0; step < n/4; step++ {
		tid := uint64(1000 + step%4)
		t0 := int64(step) * 1000
		corr += 3
		for _, t := range []contract.Trace{
			{Kind: contract.RecMarker, Domain: "MARKER_CORE_RANGE_API", Op: "roctxThreadRangeA", Message: "step", CorrelationID: corr - 2, ThreadID: tid, Start: t0, End: t0 + 900},
			{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipLaunchKernel", CorrelationID: corr - 1, ThreadID: tid, Start: t0 + 100, End: t0 + 200},
			{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipMemcpy", CorrelationID: corr, ThreadID: tid, Start: t0 + 300, End: t0 + 800},
			{Kind: contract.RecCopy, Op: "MEMORY_COPY_HOST_TO_DEVICE", CorrelationID: corr, ThreadID: tid, SrcAgentID: 0, DstAgentID: 1,
				Size: 4096, Start: t0 + 400, End: t0 + 700},
		} {
			bl.Add(records.Record{Type: t.Kind, Trace: &t})
		}
	}
	bl.Add(records.Record{Type: contract.RecEnd, End: &contract.End{FiniTime: int64(n) * 1000}})
	p, err := bl.Finish()
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkTraceSinks writes the trace lines of a process as a rocpd database and as a Perfetto
// trace: ns per trace line (the records built once, outside the timing).
func BenchmarkTraceSinks(b *testing.B) {
	n := benchEnv(b, "TRACE_LINES", 100_000)
	proc := traceBenchProcess(b, n)
	defer proc.Close()
	for _, format := range []string{"rocpd", "pftrace"} {
		b.Run(format, func(b *testing.B) {
			dir := b.TempDir()
			for b.Loop() {
				if _, err := Write(Options{Dir: dir, File: "bench", Formats: []string{format}}, proc, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/line")
		})
	}
}
