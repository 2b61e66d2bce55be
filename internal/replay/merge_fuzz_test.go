package replay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// FuzzMergeRuns: the merge reads the record files of two application replay runs of any content
// without a panic, and whatever it merges without error reads back whole, dispatch by dispatch.
func FuzzMergeRuns(f *testing.F) {
	seedDir := f.TempDir()
	for pass := 0; pass < 2; pass++ {
		writeFixtureRun(f, filepath.Join(seedDir, "run", string(rune('0'+pass))), pass, 2,
			fxProc{pid: 10, init: 1, dispatches: seq("_Z1av", 64, "_Z1bv", 64, "_Z1av", 128)})
	}
	first, err := os.ReadFile(filepath.Join(seedDir, "run", "0", contract.RecordsDir, "10.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	second, err := os.ReadFile(filepath.Join(seedDir, "run", "1", contract.RecordsDir, "10.ndjson"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(first, second)
	f.Add(first, second[:len(second)/2])
	f.Add(first, []byte{})
	f.Add([]byte(`{"t":"header","version":1,"pid":1}`+"\n"), []byte("garbage\n"))
	traced := append([]byte(nil), first...)
	traced = append(traced, `{"t":"api","domain":"HIP_RUNTIME_API","op":"hipLaunchKernel","correlation_id":2,"thread_id":11,"start":5,"end":9}
{"t":"copy","op":"MEMORY_COPY_DEVICE_TO_DEVICE","correlation_id":2,"thread_id":11,"src_agent_id":7,"dst_agent_id":7,"size":64,"start":6,"end":8}
{"t":"marker","domain":"MARKER_CORE_RANGE_API","op":"roctxMarkA","message":"m","correlation_id":3,"thread_id":11,"start":7,"end":7}
`...)
	f.Add(traced, second)
	dir := f.TempDir()
	runs := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	for _, run := range runs {
		if err := os.MkdirAll(filepath.Join(run, contract.RecordsDir), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		for i, data := range [][]byte{a, b} {
			if err := os.WriteFile(filepath.Join(runs[i], contract.RecordsDir, "10.ndjson"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var read [][]*records.Process
		for _, run := range runs {
			r, err := records.ReadRun(run)
			if err != nil {
				return
			}
			t.Cleanup(r.Close)
			read = append(read, r.Processes)
		}
		merged, _, err := MergeRuns(read)
		t.Cleanup(records.Run{Processes: merged}.Close)
		if err != nil {
			return
		}
		for i, p := range merged {
			if err := p.EachLogical(func(records.Logical) error { return nil }); err != nil {
				t.Fatalf("the merge of\n%q\nand\n%q\nmade a process that does not read back: %v", a, b, err)
			}
			// The first run's trace lines are the merged process's, every one.
			if n, want := p.TraceCount(), byStart(read[0])[i].TraceCount(); n != want {
				t.Fatalf("the merge of\n%q\nand\n%q\nkept %d of the first run's %d trace lines", a, b, n, want)
			}
		}
	})
}
