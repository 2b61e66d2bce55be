package records

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gorocprof/gorocprof/internal/benchmem"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// writeTraceRecords writes a record file of n trace lines as a PyTorch-like run makes them: eight
// threads, each line written when its call ends, so that the file is in order per thread but the
// threads' buffers interleave; about one line in ten a marker (its message one of a few hundred
// step names), one in twenty a copy, the rest HIP calls of a few dozen names.
func writeTraceRecords(tb testing.TB, path string, n int) int64 {
	tb.Helper()
	return writeRecordFile(tb, path, func(w *bufio.Writer) { writeTraceLines(w, n) })
}

func writeTraceLines(w *bufio.Writer, n int) {
	fmt.Fprintln(w, hdr)
	fmt.Fprintln(w, agent)
	fmt.Fprintln(w, cpuAgent)
	rng := rand.New(rand.NewPCG(3, 32))
	const threads, perBuffer = 8, 400 // a 64 KiB buffer holds a few hundred lines
	clock := [threads]int64{}
	for i := range clock {
		clock[i] = 1700000000000000000 + int64(i)*1000
	}
	corr := uint64(0)
	for written := 0; written < n; {
		th := rng.IntN(threads)
		for k := 0; k < perBuffer && written < n; k++ {
			corr++
			start := clock[th] + int64(rng.IntN(500))
			end := start + 100 + int64(rng.IntN(5000))
			clock[th] = end
			tid := 4000 + th
			switch r := rng.IntN(20); {
			case r < 2:
				fmt.Fprintf(w, `{"t":"marker","domain":"MARKER_CORE_RANGE_API","op":"roctxThreadRangeA","message":"step %d","correlation_id":%d,"thread_id":%d,"start":%d,"end":%d}`+"\n",
					rng.IntN(300), corr, tid, start-2000, end)
			case r < 3:
				fmt.Fprintf(w, `{"t":"copy","op":"MEMORY_COPY_HOST_TO_DEVICE","correlation_id":%d,"thread_id":%d,"src_agent_id":9,"dst_agent_id":1,"queue_id":0,"stream_id":0,"size":%d,"src_address":%d,"dst_address":%d,"start":%d,"end":%d}`+"\n",
					corr, tid, 4096*(1+rng.IntN(64)), 140000000+rng.IntN(1<<30), 150000000+rng.IntN(1<<30), start+10, end-10)
			default:
				fmt.Fprintf(w, `{"t":"api","domain":"HIP_RUNTIME_API","op":"hipOp%d","correlation_id":%d,"thread_id":%d,"start":%d,"end":%d}`+"\n",
					rng.IntN(40), corr, tid, start, end)
			}
			written++
		}
	}
}

// BenchmarkTraceDecodeSort measures reading 10^6 trace lines (decode, check, keep) and handing them
// out sorted once: ns/line is the time per line, heap-bytes/line what the kept process holds per
// line, peak-heap-bytes/line the most the heap held while reading and sorting (the sort's keys and
// its copy of the records are transient), json-bytes/line the file's size per line.
// GOROCPROF_BENCH_TRACE_LINES changes the number of lines (a long run has 10^7).
func BenchmarkTraceDecodeSort(b *testing.B) {
	n := benchCount(b, "GOROCPROF_BENCH_TRACE_LINES", 1_000_000)
	path := filepath.Join(b.TempDir(), "7.ndjson")
	size := writeTraceRecords(b, path, n)
	b.SetBytes(size)
	b.ReportAllocs()
	var held, peak uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var p *Process
		got := 0
		top := benchmem.PeakHeap(func() {
			var err error
			if p, err = ReadProcess(path); err != nil {
				b.Fatal(err)
			}
			last := int64(0)
			if err := p.EachTrace(func(t *contract.Trace) error {
				if t.Start < last {
					return fmt.Errorf("line %d out of order", got)
				}
				last = t.Start
				got++
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		})
		peak = max(peak, top-min(top, before.HeapInuse))
		if got != n || len(p.Problems) > 0 {
			b.Fatalf("handed out %d lines of %d, problems %q", got, n, p.Problems)
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
		runtime.KeepAlive(p)
		p.Close()
		b.StartTimer()
	}
	lines := float64(n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/lines, "ns/line")
	b.ReportMetric(float64(held)/lines, "heap-bytes/line")
	b.ReportMetric(float64(peak)/lines, "peak-heap-bytes/line")
	b.ReportMetric(float64(size)/lines, "json-bytes/line")
}
