package output

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/perfetto"
	"github.com/gorocprof/gorocprof/internal/records"
)

// TestPftraceTraceGolden writes the traced fixture as a trace twice: the same bytes, and its tracks
// and slices as the golden text says.
func TestPftraceTraceGolden(t *testing.T) {
	opts := Options{File: "4400", KernelTrace: true}
	first, tr := writeTrace(t, opts, []*records.Process{readFixture(t, "4400_trace.ndjson")}, fakeCounters{})
	again, _ := writeTrace(t, opts, []*records.Process{readFixture(t, "4400_trace.ndjson")}, fakeCounters{})
	if !bytes.Equal(first, again) {
		t.Error("the same records gave two different traces")
	}
	compareGolden(t, "pftrace/4400_trace.txt", []byte(dumpTrace(tr)))
}

// TestPftraceEveryTraceLine: every trace line of the fixture is one slice (a mark an instant) on
// its thread's track, or for a copy on its destination agent's track of its operation, named as
// rocprofv3 names them (a marker by its message), in its domain's category; nested calls are
// deeper than the calls holding them; each dispatch's first pass and each copy are in the flow of
// the API call that issued them.
func TestPftraceEveryTraceLine(t *testing.T) {
	proc := readFixture(t, "4400_trace.ndjson")
	_, tr := writeTrace(t, Options{File: "4400", KernelTrace: true}, []*records.Process{proc}, fakeCounters{})
	tracks := map[uint64]perfetto.DecodedTrack{}
	for _, tk := range tr.Tracks {
		tracks[tk.UUID] = tk
	}
	used := make([]bool, len(tr.Slices))
	find := func(tl *contract.Trace) *perfetto.DecodedSlice {
		name, track := tl.Op, "THREAD 0 (4400)"
		if tl.ThreadID != 4400 {
			track = "THREAD 1 (4401)"
		}
		if tl.Kind == contract.RecMarker {
			name = tl.Message
		}
		if tl.Kind == contract.RecCopy {
			track = tl.Op
		}
		for i := range tr.Slices {
			s := &tr.Slices[i]
			if !used[i] && s.Name == name && s.Start == tl.Start && s.End == tl.End && tracks[s.Track].Name == track &&
				s.Category == traceCategory(tl.TraceDomain()) && s.Instant == (tl.Kind == contract.RecMarker && tl.Start == tl.End) {
				used[i] = true
				return s
			}
		}
		return nil
	}
	flowOf := map[uint64][]uint64{} // API call's flows by correlation id
	var copies []*perfetto.DecodedSlice
	var copyCorr []uint64
	if err := proc.EachTrace(func(tl *contract.Trace) error {
		s := find(tl)
		if s == nil {
			t.Errorf("no slice for %s %s %q at %d..%d", tl.Kind, tl.Op, tl.Message, tl.Start, tl.End)
			return nil
		}
		switch tl.Kind {
		case contract.RecAPI:
			flowOf[tl.CorrelationID] = s.Flows
		case contract.RecCopy:
			copies, copyCorr = append(copies, s), append(copyCorr, tl.CorrelationID)
		}
		if tl.Op == "__hipPushCallConfiguration" && s.Depth != 2 {
			t.Errorf("%s at depth %d, want 2 (inside hipLaunchKernel inside the range step 1)", tl.Op, s.Depth)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, s := range copies {
		if want := flowOf[copyCorr[i]]; len(want) != 1 || !slices.Equal(s.Flows, want) {
			t.Errorf("copy %q: flows %v, want its call's %v", s.Name, s.Flows, want)
		}
	}
	for _, s := range tr.Slices {
		if s.Category != kernelCategory {
			continue
		}
		corr, _ := s.Arg("correlation_id")
		var want []uint64
		for c, f := range flowOf {
			if strconv.FormatUint(c, 10) == corr {
				want = f
			}
		}
		if len(want) != 1 || !slices.Equal(s.Flows, want) {
			t.Errorf("dispatch slice at %d: flows %v, want its launch's %v", s.Start, s.Flows, want)
		}
	}
}

// TestPftraceThreadLanes: a call that overlaps an open slice of its thread without being inside it
// (a start/stop range ended while a call it began in was still running) goes on a second track of
// the thread's name; a call inside the range and a call after both stay on the first, nested as
// they ran, and every slice ends where it ended.
func TestPftraceThreadLanes(t *testing.T) {
	b := records.NewBuilder("lanes")
	b.Add(records.Record{Type: contract.RecHeader, Header: &contract.Header{Version: 1, PID: 7, Backend: "sim", Hostname: "h",
		InitTime: 1, Cmdline: []string{"./app"}}})
	for _, tl := range []contract.Trace{
		{Kind: contract.RecMarker, Domain: "MARKER_CORE_RANGE_API", Op: "roctxProcessRangeA", Message: "load", CorrelationID: 1, ThreadID: 7, Start: 100, End: 200},
		{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipMalloc", CorrelationID: 2, ThreadID: 7, Start: 110, End: 120},
		{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipMemcpy", CorrelationID: 3, ThreadID: 7, Start: 150, End: 250},
		{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipFree", CorrelationID: 4, ThreadID: 7, Start: 300, End: 310},
	} {
		b.Add(records.Record{Type: tl.Kind, Trace: &tl})
	}
	b.Add(records.Record{Type: contract.RecEnd, End: &contract.End{FiniTime: 400}})
	proc, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer proc.Close()
	_, tr := writeTrace(t, Options{File: "lanes"}, []*records.Process{proc}, fakeCounters{})
	names := map[uint64]string{}
	for _, tk := range tr.Tracks {
		names[tk.UUID] = tk.Name
	}
	lane := map[string]uint64{}
	var got []string
	for _, s := range tr.Slices {
		lane[s.Name] = s.Track
		got = append(got, fmt.Sprintf("%s %q %d..%d depth %d", names[s.Track], s.Name, s.Start, s.End, s.Depth))
	}
	want := []string{`THREAD 0 (7) "load" 100..200 depth 0`, `THREAD 0 (7) "hipMalloc" 110..120 depth 1`,
		`THREAD 0 (7) "hipMemcpy" 150..250 depth 0`, `THREAD 0 (7) "hipFree" 300..310 depth 0`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("slices:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if lane["hipMemcpy"] == lane["load"] || lane["hipMalloc"] != lane["load"] || lane["hipFree"] != lane["load"] {
		t.Errorf("tracks %v: want hipMemcpy alone on a second lane", lane)
	}
}

// TestPftraceFlowsPerProcess: two traced processes in one trace have flows of their own (the
// second's ids 2^40 above its correlation ids), so that no arrow joins one process's call to the
// other's dispatch.
func TestPftraceFlowsPerProcess(t *testing.T) {
	a, b := readFixture(t, "4400_trace.ndjson"), readFixture(t, "4400_trace.ndjson")
	b.Header.PID++
	_, tr := writeTrace(t, Options{File: "two"}, []*records.Process{a, b}, fakeCounters{})
	owner := map[uint64]uint64{} // flow id -> process track
	parent := map[uint64]uint64{}
	for _, tk := range tr.Tracks {
		parent[tk.UUID] = tk.Parent
	}
	process := func(track uint64) uint64 {
		for parent[track] != 0 {
			track = parent[track]
		}
		return track
	}
	n := 0
	for _, s := range tr.Slices {
		for _, f := range s.Flows {
			n++
			p := process(s.Track)
			if o, ok := owner[f]; ok && o != p {
				t.Errorf("flow %d joins process tracks %d and %d", f, o, p)
			}
			owner[f] = p
		}
	}
	if n == 0 || len(owner) != 2*7 { // each process: 7 API calls with a flow
		t.Errorf("%d slices in %d flows, want 14 flows", n, len(owner))
	}
}
