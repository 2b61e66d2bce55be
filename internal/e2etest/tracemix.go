package e2etest

import (
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// TraceMix is a process of n trace lines shaped as a training step's (HIP calls of 40 functions on
// 4 threads, a copy from the CPU agent 0 to the GPU 1 per 8 lines, a marker range per 16), for the
// benchmarks of the trace outputs and their readers.
func TraceMix(b testing.TB, n int) *records.Process {
	b.Helper()
	bld := records.NewBuilder("mix.ndjson")
	bld.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: contract.Version, PID: 1000, Backend: "sim", Hostname: "h"}})
	bld.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 0, Index: -1, Type: "CPU", Props: map[string]int64{}}})
	bld.Add(records.Record{Type: contract.RecAgent, Agent: &contract.Agent{ID: 1, Index: 0, Type: "GPU",
		Props: map[string]int64{"node_id": 1, "logical_node_id": 1}}})
	ops := make([]string, 40)
	for i := range ops {
		ops[i] = "hipFunction" + strconv.Itoa(i)
	}
	for i := range n {
		t := contract.Trace{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: ops[i%len(ops)], CorrelationID: uint64(i + 1),
			ThreadID: uint64(1000 + i%4), Start: int64(i) * 1000, End: int64(i)*1000 + 700}
		switch {
		case i%16 == 15:
			t.Kind, t.Domain, t.Op, t.Message = contract.RecMarker, "MARKER_CORE_RANGE_API", "roctxThreadRangeA", "step "+strconv.Itoa(i/1600)
		case i%8 == 7:
			t.Kind, t.Domain, t.Op, t.SrcAgentID, t.DstAgentID, t.Size = contract.RecCopy, "", "MEMORY_COPY_HOST_TO_DEVICE", 0, 1, 4096
		}
		bld.Add(records.Record{Type: t.Kind, Trace: &t})
	}
	p, err := bld.Finish()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}
