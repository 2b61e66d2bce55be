package output

import (
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

func traceProcess(t *testing.T, lines []contract.Trace) *records.Process {
	t.Helper()
	b := records.NewBuilder("nest")
	b.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: 1, PID: 1, Backend: "sim", Hostname: "h", InitTime: 1}})
	for i := range lines {
		b.Add(records.Record{Type: lines[i].Kind, Trace: &lines[i]})
	}
	p, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func push(msg string, corr, tid uint64, start, end int64) contract.Trace {
	return contract.Trace{Kind: contract.RecMarker, Domain: "MARKER_CORE_RANGE_API", Op: "roctxThreadRangeA", Message: msg,
		CorrelationID: corr, ThreadID: tid, Start: start, End: end}
}

func call(op string, corr, tid uint64, start, end int64) contract.Trace {
	return contract.Trace{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: op, CorrelationID: corr, ThreadID: tid, Start: start, End: end}
}

// TestLaunchRegions: a call is in the innermost pushed range of its own thread that holds its start
// (ranges that begin together: the shorter is inside; a range that ended when the call began holds
// it no more); start/stop ranges, marks and other threads' ranges name nothing.
func TestLaunchRegions(t *testing.T) {
	proc := traceProcess(t, []contract.Trace{
		push("inner", 1, 10, 100, 200), // begins with outer, and comes first: inside it
		push("outer", 2, 10, 100, 500),
		call("hipLaunchKernel", 3, 10, 100, 110),
		call("hipLaunchKernel", 4, 10, 200, 210), // inner ended at 200: outer's
		call("hipLaunchKernel", 5, 10, 600, 610), // after both
		call("hipLaunchKernel", 6, 11, 150, 160), // another thread
		{Kind: contract.RecMarker, Domain: "MARKER_CORE_RANGE_API", Op: "roctxProcessRangeA", Message: "started", CorrelationID: 7,
			ThreadID: 12, Start: 0, End: 1000},
		{Kind: contract.RecMarker, Domain: "MARKER_CORE_RANGE_API", Op: "roctxMarkA", Message: "mark", CorrelationID: 8,
			ThreadID: 12, Start: 300, End: 300},
		call("hipLaunchKernel", 9, 12, 300, 310),
		push("nvtx", 10, 13, 0, 50),
		{Kind: contract.RecAPI, Domain: "CUDA_RUNTIME_API", Op: "cudaLaunchKernel", CorrelationID: 11, ThreadID: 13, Start: 10, End: 20},
	})
	l, err := findLaunchRegions(proc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		corr uint64
		want string
	}{{3, "inner"}, {4, "outer"}, {5, ""}, {6, ""}, {9, ""}, {11, "nvtx"}, {1, ""}} {
		got, _ := l.region(c.corr)
		if got != c.want {
			t.Errorf("correlation id %d: region %q, want %q", c.corr, got, c.want)
		}
	}
}

// TestCallParents: an API call's parent is the innermost call of its thread that holds it; a call
// that begins when another ended, or on another thread, has none.
func TestCallParents(t *testing.T) {
	c := newCallParents()
	for _, tc := range []struct {
		t    contract.Trace
		want uint64
	}{
		{call("hipMemcpy", 1, 10, 100, 200), 0},
		{call("hsa_signal_wait", 2, 10, 120, 180), 1},
		{call("hsa_queue_load", 3, 10, 130, 140), 2},
		{call("other", 4, 11, 130, 140), 0},
		{call("hsa_signal_store", 5, 10, 180, 190), 1}, // the wait ended at 180
		{call("hipFree", 6, 10, 200, 210), 0},          // the copy ended at 200
	} {
		if got := c.parent(&tc.t); got != tc.want {
			t.Errorf("%s: parent %d, want %d", tc.t.Op, got, tc.want)
		}
	}
}
