package rocpd

import (
	"path/filepath"
	"reflect"
	"testing"
)

// traceCalls and traceCopies are what TestTraceReadsBack writes: a call inside another, a marker
// range, a mark (start == end) and an API call whose clock did not move (both samples), and copies
// with addresses and sizes above 2^63.
var (
	traceCalls = []Call{
		{Category: "HIP_RUNTIME_API", Name: "hipMemcpy", CorrelationID: 3, ThreadID: 11, Start: 100, End: 200},
		{Category: "HSA_CORE_API", Name: "hsa_signal_wait_scacquire", CorrelationID: 4, ParentID: 3, ThreadID: 11, Start: 120, End: 180},
		{Category: "MARKER_CORE_RANGE_API", Name: "roctxThreadRangeA", Marker: true, Message: "step \"1\"", CorrelationID: 1, ThreadID: 11, Start: 50, End: 500},
		{Category: "MARKER_CORE_RANGE_API", Name: "roctxMarkA", Marker: true, Message: "", CorrelationID: 5, ThreadID: 12, Start: 300, End: 300},
		{Category: "HIP_RUNTIME_API", Name: "hipGetDevice", CorrelationID: 6, ThreadID: 12, Start: 310, End: 310},
	}
	traceCopies = []Copy{
		{Name: "MEMORY_COPY_HOST_TO_DEVICE", CorrelationID: 3, ThreadID: 11, SrcAgentID: 0, DstAgentID: 2, QueueID: 0, StreamID: 9,
			Size: 1<<63 + 5, SrcAddress: 1<<64 - 1, DstAddress: 0x7f0000000000, Start: 130, End: 170},
	}
)

// TestTraceReadsBack: the calls and copies a Writer is given come back from Calls and Copies as
// given, every key finds its row, and the samples are on one track per thread and category.
func TestTraceReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t_results.db")
	w, err := Create(path, Process{PID: 10, PPID: 1, Hostname: "h", Init: 1, Fini: 1000})
	if err != nil {
		t.Fatal(err)
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	check(w.Agent(Agent{ID: 0, Type: "CPU", Name: "cpu"}))
	check(w.Agent(Agent{ID: 2, Type: "GPU", Name: "gfx90a"}))
	for i := range traceCalls {
		check(w.Call(&traceCalls[i]))
	}
	for i := range traceCopies {
		check(w.Copy(&traceCopies[i]))
	}
	check(w.Close())

	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	procs, err := r.Processes()
	if err != nil || len(procs) != 1 {
		t.Fatalf("processes %v, %v", procs, err)
	}
	var calls []Call
	if err := r.Calls(procs[0], func(c *Call) error { calls = append(calls, *c); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(calls, traceCalls) {
		t.Errorf("calls read back:\n%+v\nwant\n%+v", calls, traceCalls)
	}
	var copies []Copy
	if err := r.Copies(procs[0], func(c *Copy) error { copies = append(copies, *c); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(copies, traceCopies) {
		t.Errorf("copies read back:\n%+v\nwant\n%+v", copies, traceCopies)
	}
	for _, tc := range []struct {
		query string
		want  [][]string
	}{
		{`PRAGMA foreign_key_check`, nil},
		{`SELECT id, tid, (SELECT string FROM rocpd_string S WHERE S.id = name_id) FROM rocpd_track ORDER BY id`,
			[][]string{{"1", "12", "MARKER_CORE_RANGE_API"}, {"2", "12", "HIP_RUNTIME_API"}}},
		{`SELECT tid FROM rocpd_info_thread ORDER BY tid`, [][]string{{"11"}, {"12"}}},
		{`SELECT id, name FROM rocpd_info_stream ORDER BY id`, [][]string{{"9", "Stream 0"}}},
	} {
		if got := rows(t, path, tc.query); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.query, got, tc.want)
		}
	}
}
