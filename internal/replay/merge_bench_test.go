package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"

	"github.com/gorocprof/gorocprof/internal/benchmem"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// benchDispatches is the size of the merge benchmark's fixture: dispatches per run (100k by
// default; GOROCPROF_BENCH_DISPATCHES=1000000 for the 1M-record case).
func benchDispatches(b *testing.B) int {
	if s := os.Getenv("GOROCPROF_BENCH_DISPATCHES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("GOROCPROF_BENCH_DISPATCHES=%q: want a positive number", s)
		}
		return n
	}
	return 100_000
}

const (
	benchPasses    = 2
	benchKernels   = 8
	benchInstances = 16 // values per counter per dispatch, as an agent with 16 SQ instances reports
)

// writeBenchRun writes one process of run `pass`: n dispatches over benchKernels kernels, each pass
// counting two counters of benchInstances values.
func writeBenchRun(b *testing.B, dir string, pass, n int) {
	recDir := filepath.Join(dir, contract.RecordsDir)
	if err := os.MkdirAll(recDir, 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(filepath.Join(recDir, fmt.Sprintf("%d.ndjson", 1000+pass)))
	if err != nil {
		b.Fatal(err)
	}
	w := newLineWriter(f)
	check := func(err error) {
		if err != nil {
			b.Fatal(err)
		}
	}
	check(w.write(contract.RecHeader, contract.Header{Version: 1, PID: int64(1000 + pass), Backend: "sim", InitTime: 1, Cmdline: []string{"./app"}}))
	check(w.write(contract.RecAgent, contract.Agent{ID: 1, Index: 0, Name: "gfx90a"}))
	for k := 0; k < benchKernels; k++ {
		check(w.write(contract.RecKernel, contract.Kernel{KernelID: uint64(k + 1), Name: fmt.Sprintf("_Z7kernel%dv", k), Demangled: fmt.Sprintf("kernel%d()", k), AgentID: 1}))
	}
	vals := make([]*float64, benchInstances)
	for i := range vals {
		v := float64(i * 7)
		vals[i] = &v
	}
	for i := 0; i < n; i++ {
		k := i % benchKernels
		check(w.write(contract.RecDispatch, &contract.Dispatch{DispatchID: uint64(i + 1), CorrelationID: uint64(i + 1), Pass: pass, Passes: benchPasses,
			AgentID: 1, QueueID: 1, ThreadID: 42, KernelID: uint64(k + 1), Grid: [3]uint32{uint32(256 * (k + 1)), 1, 1}, Workgroup: [3]uint32{256, 1, 1},
			Start: int64(2 * i), End: int64(2*i + 1),
			Counters: []contract.CounterValue{{Name: fmt.Sprintf("A%d", pass), Values: vals}, {Name: fmt.Sprintf("B%d", pass), Values: vals}}}))
	}
	check(w.write(contract.RecEnd, contract.End{FiniTime: 9, Dispatches: uint64(n)}))
	check(w.flush())
	check(f.Close())
}

// benchCounters is the plan of the fixture: pass p reports Ap and Bp, all base counters.
type benchCounters struct{}

func (benchCounters) Requested(_, pass int) []string {
	if pass < 0 || pass >= benchPasses {
		return nil
	}
	return []string{fmt.Sprintf("A%d", pass), fmt.Sprintf("B%d", pass)}
}
func (benchCounters) Describe(_ int, name string) output.CounterInfo {
	return output.CounterInfo{Name: name, Block: "SQ", Dimensions: []output.Dimension{{Name: "DIMENSION_INSTANCE", Size: benchInstances}}}
}
func (benchCounters) Evaluate(_ int, name string, _ map[string][]float64) ([]float64, error) {
	return nil, fmt.Errorf("%s is not derived", name)
}

var benchFixture struct {
	once sync.Once
	dir  string
	n    int
}

func benchRuns(b *testing.B) []string {
	n := benchDispatches(b)
	benchFixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "gorocprof-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchFixture.dir, benchFixture.n = dir, n
		for p := 0; p < benchPasses; p++ {
			writeBenchRun(b, filepath.Join(dir, fmt.Sprint(p)), p, n)
		}
	})
	// The fixture's dirty pages would otherwise be written back during the measured rounds.
	syscall.Sync()
	var dirs []string
	for p := 0; p < benchPasses; p++ {
		dirs = append(dirs, filepath.Join(benchFixture.dir, fmt.Sprint(p)))
	}
	return dirs
}

// fixtureBytes is the size of the runs' record files, what the merge reads.
func fixtureBytes(b *testing.B, dirs []string) int64 {
	var n int64
	for _, d := range dirs {
		paths, _ := filepath.Glob(filepath.Join(d, contract.RecordsDir, "*.ndjson"))
		for _, p := range paths {
			st, err := os.Stat(p)
			if err != nil {
				b.Fatal(err)
			}
			n += st.Size()
		}
	}
	return n
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if info, err := e.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// reportRecords reports the rates per dispatch record (one pass of one dispatch, a line of a run's
// record file) and the peak heap.
func reportRecords(b *testing.B, peak uint64) {
	records := float64(benchFixture.n*benchPasses) * float64(b.N)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/records, "ns/record")
	b.ReportMetric(records/b.Elapsed().Seconds(), "records/s")
}

// benchOutDir is where the benchmarks write: GOROCPROF_BENCH_OUT when set (to compare
// filesystems), the test's temporary directory otherwise.
func benchOutDir(b *testing.B) string {
	if dir := os.Getenv("GOROCPROF_BENCH_OUT"); dir != "" {
		out, err := os.MkdirTemp(dir, "gorocprof-bench-out-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = os.RemoveAll(out) })
		return out
	}
	return b.TempDir()
}

// readBenchRuns reads the runs as the passes of an application replay do: each record file decoded
// once.
func readBenchRuns(b *testing.B, dirs []string) ([][]*records.Process, func()) {
	var runs [][]*records.Process
	var all records.Run
	for _, d := range dirs {
		run, err := records.ReadRun(d)
		if err != nil || len(run.Processes) != 1 {
			b.Fatalf("reading %s: %v", d, err)
		}
		runs = append(runs, run.Processes)
		all.Processes = append(all.Processes, run.Processes...)
	}
	return runs, all.Close
}

// BenchmarkMerge reads the runs and merges them into one process: the streaming part, whose memory
// must not grow with the number of dispatches.
func BenchmarkMerge(b *testing.B) {
	dirs := benchRuns(b)
	b.SetBytes(fixtureBytes(b, dirs))
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		peak = max(peak, benchmem.PeakHeap(func() {
			runs, done := readBenchRuns(b, dirs)
			defer done()
			merged, rep, err := MergeRuns(runs)
			if err != nil || rep.Complete != uint64(benchFixture.n) {
				b.Fatalf("merge: %v, %d of %d complete", err, rep.Complete, benchFixture.n)
			}
			records.Run{Processes: merged}.Close()
		}))
	}
	reportRecords(b, peak)
}

// BenchmarkMergeWrite reads the runs, merges them and writes results.json and the CSV files of the
// merged process, the whole tail of an application replay as the front end does it (where each
// run is read for its own pass's output, then merged): every run's record file is decoded once, the
// merged process is built from the runs' spools and streamed through output.Write. MB/s is over the
// runs' record files; out-MiB is what was written (the output files).
func BenchmarkMergeWrite(b *testing.B) {
	dirs := benchRuns(b)
	b.SetBytes(fixtureBytes(b, dirs))
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	var written int64
	for i := 0; i < b.N; i++ {
		out := benchOutDir(b)
		runtime.GC()
		peak = max(peak, benchmem.PeakHeap(func() {
			runs, done := readBenchRuns(b, dirs)
			defer done()
			merged, _, err := MergeRuns(runs)
			if err != nil || len(merged) != 1 {
				b.Fatalf("merge: %v", err)
			}
			defer merged[0].Close()
			files, err := output.Write(output.Options{Dir: filepath.Join(out, "results"), File: "merged", Formats: []string{"json", "csv"}, KernelTrace: true},
				merged[0], benchCounters{})
			if err != nil || len(files) != 4 {
				b.Fatalf("writing: %v (%d files)", err, len(files))
			}
		}))
		b.StopTimer()
		written = dirBytes(out)
		_ = os.RemoveAll(out)
		syscall.Sync()
		b.StartTimer()
	}
	reportRecords(b, peak)
	b.ReportMetric(float64(written)/(1<<20), "out-MiB")
}
