package output

import (
	"bytes"
	"slices"
	"strconv"
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
