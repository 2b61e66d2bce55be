package records

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/benchmem"
)

// BenchmarkDecode measures streaming decode of dispatch lines, the bulk of a large record file.
func BenchmarkDecode(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(lines(hdr, agent, kern))
	line := disp(1, 0, 1) + "\n"
	for i := 0; i < 10000; i++ {
		buf.WriteString(line)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := Decode(bytes.NewReader(data), func(Record) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 10003 {
			b.Fatalf("decoded %d records", n)
		}
	}
}

// writeThreadedRecords writes a record file of n dispatches of `passes` passes each, as `threads`
// application threads produce it: dispatch ids are taken in launch order, but a dispatch's lines are
// written when its replay ends, which happens on whichever in-flight thread finishes first. The
// order is seeded, so every run writes the same file.
func writeThreadedRecords(tb testing.TB, path string, n, passes, threads int) {
	tb.Helper()
	writeRecordFile(tb, path, func(w *bufio.Writer) {
		writeThreadedLines(w, n, passes, threads)
	})
}

func writeThreadedLines(w *bufio.Writer, n, passes, threads int) {
	fmt.Fprintln(w, hdr)
	fmt.Fprintln(w, agent)
	for k := 1; k <= 8; k++ {
		fmt.Fprintf(w, `{"t":"kernel","kernel_id":%d,"name":"_Z2k%dv","demangled":"k%d()","truncated":"k%d","agent_id":1}`+"\n", k, k, k, k)
	}
	vals := strings.TrimSuffix(strings.Repeat("1234.5,", 16), ",")
	rng := rand.New(rand.NewPCG(7, uint64(threads)))
	var inFlight []int
	next := 1
	for next <= n || len(inFlight) > 0 {
		for len(inFlight) < threads && next <= n {
			inFlight = append(inFlight, next)
			next++
		}
		i := rng.IntN(len(inFlight))
		id := inFlight[i]
		inFlight = append(inFlight[:i], inFlight[i+1:]...)
		for p := 0; p < passes; p++ {
			fmt.Fprintf(w, `{"t":"dispatch","dispatch_id":%d,"pass":%d,"passes":%d,"correlation_id":%d,"agent_id":1,"queue_id":1,"thread_id":%d,"kernel_id":%d,"grid":[256,1,1],"workgroup":[64,1,1],"start":%d,"end":%d,"counters":[{"name":"A%d","values":[%s]},{"name":"B%d","values":[%s]}]}`+"\n",
				id, p, passes, id, 100+id%threads, 1+id%8, 2*id, 2*id+1, p, vals, p, vals)
		}
	}
	fmt.Fprintf(w, `{"t":"end","fini_time":9,"dispatches":%d}`+"\n", n)
}

// writeRecordFile writes the record file at path with lines and returns its size.
func writeRecordFile(tb testing.TB, path string, lines func(w *bufio.Writer)) int64 {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	lines(w)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	return st.Size()
}

// benchCount is the whole number the environment variable name gives (a benchmark's size), def when
// it is unset.
func benchCount(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, s)
	}
	return v
}

// BenchmarkScanThreaded scans and iterates a file of 200k dispatches (2 passes each) written by 8
// interleaving threads, where the lines are not in dispatch id order, and, for comparison, the same
// dispatches written by one thread, in order. Its peak heap must not grow with the number of
// dispatches (GOROCPROF_BENCH_DISPATCHES changes it).
func BenchmarkScanThreaded(b *testing.B) {
	n := benchCount(b, "GOROCPROF_BENCH_DISPATCHES", 200_000)
	for _, threads := range []int{8, 1} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "7.ndjson")
			writeThreadedRecords(b, path, n, 2, threads)
			if st, err := os.Stat(path); err == nil {
				b.SetBytes(st.Size())
			}
			b.ReportAllocs()
			b.ResetTimer()
			var peak uint64
			window := 0
			for i := 0; i < b.N; i++ {
				runtime.GC()
				peak = max(peak, benchmem.PeakHeap(func() {
					p, err := ReadProcess(path)
					if err != nil {
						b.Fatal(err)
					}
					window = p.ReorderWindow()
					got := 0
					if err := p.EachLogical(func(l Logical) error { got += len(l.Passes); return nil }); err != nil {
						b.Fatal(err)
					}
					if got != 2*n {
						b.Fatalf("iterated %d dispatch lines, want %d", got, 2*n)
					}
				}))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(window), "window")
		})
	}
}
