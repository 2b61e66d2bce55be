package output

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/benchmem"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// benchEnv reads a positive number from the environment, def when unset.
func benchEnv(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, s)
	}
	return n
}

// sinkBenchCounters: every pass of the fixture counts C<pass>a and C<pass>b, base counters of
// sinkInstances instances.
type sinkBenchCounters struct{ instances int }

func (sinkBenchCounters) Requested(_, pass int) []string {
	if pass < 0 || pass > 1 {
		return nil
	}
	return []string{fmt.Sprintf("C%da", pass), fmt.Sprintf("C%db", pass)}
}
func (c sinkBenchCounters) Describe(_ int, name string) CounterInfo {
	return CounterInfo{Name: name, Block: "SQ", Dimensions: []Dimension{{Name: "DIMENSION_INSTANCE", Size: c.instances}}}
}
func (sinkBenchCounters) Evaluate(_ int, name string, _ map[string][]float64) ([]float64, error) {
	return nil, fmt.Errorf("%s is not derived", name)
}

var sinkFixture struct {
	once sync.Once
	path string
}

// sinkRecords writes the record file of one process: records/2 dispatches of two passes each (so
// `records` counter records, one per dispatch per pass), each pass with two counters of `instances`
// values, over eight kernels.
func sinkRecords(b *testing.B, dir string, n, instances int) string {
	path := filepath.Join(dir, "1000.ndjson")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	line := func(t string, v any) {
		body, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(w, `{"t":%q,%s`+"\n", t, body[1:])
	}
	line(contract.RecHeader, contract.Header{Version: 1, PID: 1000, Backend: "sim", Hostname: "bench", InitTime: 1, Cmdline: []string{"./app"}})
	line(contract.RecAgent, contract.Agent{ID: 1, Name: "gfx90a", Type: "GPU", Props: map[string]int64{"node_id": 1}})
	for k := 1; k <= 8; k++ {
		line(contract.RecKernel, contract.Kernel{KernelID: uint64(k), Name: fmt.Sprintf("_Z7kernel%dv", k), Demangled: fmt.Sprintf("kernel%d()", k), AgentID: 1})
	}
	vals := make([]*float64, instances)
	for i := range vals {
		v := float64(i*7 + 1)
		vals[i] = &v
	}
	for i := 0; i < n/2; i++ {
		for pass := 0; pass < 2; pass++ {
			line(contract.RecDispatch, &contract.Dispatch{DispatchID: uint64(i + 1), CorrelationID: uint64(i + 1), Pass: pass, Passes: 2,
				AgentID: 1, QueueID: 1, ThreadID: 42, KernelID: uint64(i%8 + 1), Grid: [3]uint32{256, 1, 1}, Workgroup: [3]uint32{64, 1, 1},
				Start: int64(4*i + 2*pass), End: int64(4*i + 2*pass + 1), Counters: []contract.CounterValue{
					{Name: fmt.Sprintf("C%da", pass), Values: vals}, {Name: fmt.Sprintf("C%db", pass), Values: vals}}})
		}
	}
	line(contract.RecEnd, contract.End{FiniTime: int64(4*n + 9), Dispatches: uint64(n / 2), Replayed: uint64(n / 2)})
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkSinks writes one streamed process of GOROCPROF_BENCH_RECORDS counter records (default
// 100k; one per dispatch per pass, two counters of GOROCPROF_BENCH_INSTANCES values each, default
// 16) through each sink alone: "read" only iterates the stream (the part every sink shares), "json"
// writes results.json, "rocpd" the database, "pftrace" the Perfetto trace. ns/record and the peak
// heap are per sink.
func BenchmarkSinks(b *testing.B) {
	n := benchEnv(b, "GOROCPROF_BENCH_RECORDS", 100_000)
	instances := benchEnv(b, "GOROCPROF_BENCH_INSTANCES", 16)
	sinkFixture.once.Do(func() {
		dir, err := os.MkdirTemp("", "gorocprof-sink-bench-")
		if err != nil {
			b.Fatal(err)
		}
		sinkFixture.path = sinkRecords(b, dir, n, instances)
	})
	b.Cleanup(func() { _ = os.RemoveAll(filepath.Dir(sinkFixture.path)) })
	cs := sinkBenchCounters{instances}
	for _, sink := range []string{"read", "json", "rocpd", "pftrace"} {
		b.Run(sink, func(b *testing.B) {
			var peak uint64
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				// The scan checks the file before the sinks run, the same for all: not timed.
				b.StopTimer()
				out := b.TempDir()
				proc, err := records.ReadProcess(sinkFixture.path)
				if err != nil {
					b.Fatalf("scanning the fixture: %v", err)
				}
				runtime.GC()
				b.StartTimer()
				before := cpuTime(b)
				peak = max(peak, benchmem.PeakHeap(func() {
					if sink == "read" {
						err = proc.EachLogical(func(records.Logical) error { return nil })
					} else {
						_, err = Write(Options{Dir: out, File: "bench", Formats: []string{sink}}, proc, cs)
					}
					if err != nil {
						b.Fatal(err)
					}
				}))
				cpu += cpuTime(b) - before
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*b.N), "ns/record")
			// CPU time (every thread of the process) is what a loaded machine does not inflate.
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*b.N), "cpu-ns/record")
		})
	}
}

// cpuTime is the user and system time of the process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
