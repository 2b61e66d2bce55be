package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestMergeCarriesFirstRunTraces: the merged process of an application replay holds the first
// run's trace lines, every field intact, and none of a later run's (a later run traces nothing by
// its plan; lines it has anyway are not the application's calls a second time).
func TestMergeCarriesFirstRunTraces(t *testing.T) {
	a := fxKernels[0]
	first := []string{
		`{"t":"api","domain":"HIP_RUNTIME_API","op":"hipLaunchKernel","correlation_id":2,"thread_id":11,"start":5,"end":9}`,
		`{"t":"marker","domain":"MARKER_CORE_RANGE_API","op":"roctxThreadRangeA","message":"step","correlation_id":1,"thread_id":11,"start":1,"end":20}`,
		`{"t":"copy","op":"MEMORY_COPY_DEVICE_TO_DEVICE","correlation_id":3,"thread_id":11,"src_agent_id":7,"dst_agent_id":7,"size":64,"start":10,"end":12}`,
	}
	later := []string{`{"t":"api","domain":"HIP_RUNTIME_API","op":"hipLaunchKernel","correlation_id":2,"thread_id":12,"start":50,"end":90}`}
	var dirs []string
	for pass, extra := range [][]string{first, later} {
		dir := t.TempDir()
		writeFixtureRun(t, dir, pass, 2, fxProc{pid: int64(pass + 1), dispatches: seq(a, 1, a, 1), noEnd: true})
		path := filepath.Join(dir, contract.RecordsDir, fmt.Sprintf("%d.ndjson", pass+1))
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range append(extra, `{"t":"end","fini_time":99,"dispatches":2}`) {
			if _, err := f.WriteString(l + "\n"); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	procs, rep, err := mergeDirs(t, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Complete != 2 || len(procs) != 1 {
		t.Fatalf("merged %d processes, %d complete dispatches; want 1 and 2", len(procs), rep.Complete)
	}
	p := procs[0]
	if len(p.Problems) > 0 {
		t.Errorf("problems: %q", p.Problems)
	}
	var got []contract.Trace
	if err := p.EachTrace(func(t *contract.Trace) error { got = append(got, *t); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []contract.Trace{
		{Kind: contract.RecMarker, Domain: "MARKER_CORE_RANGE_API", Op: "roctxThreadRangeA", Message: "step", CorrelationID: 1, ThreadID: 11, Start: 1, End: 20},
		{Kind: contract.RecAPI, Domain: "HIP_RUNTIME_API", Op: "hipLaunchKernel", CorrelationID: 2, ThreadID: 11, Start: 5, End: 9},
		{Kind: contract.RecCopy, Op: "MEMORY_COPY_DEVICE_TO_DEVICE", CorrelationID: 3, ThreadID: 11, SrcAgentID: 7, DstAgentID: 7, Size: 64, Start: 10, End: 12},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged trace lines\n got %+v\nwant %+v", got, want)
	}
}
