package merge

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/gorocprof/gorocprof/internal/benchmem"
)

// writeInput writes a results.json of one process of host "node" with n dispatches of two passes
// each, on two agents, each pass with two counters of 4 instances, and the kernel trace.
func writeInput(t testing.TB, path string, pid, n int) {
	t.Helper()
	writeInputOn(t, path, "node", pid, n)
}

// writeInputOn is writeInput of a process of host.
func writeInputOn(t testing.TB, path, host string, pid, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, `{"rocprofiler-sdk-tool":[{"metadata":{"pid":%d,"ppid":1,"init_time":%d,"fini_time":0,"hostname":%q,`+
		`"command":["app"],"gorocprof":{"contract_version":1,"backend":"sim","ended":false}},"agents":[`, pid, pid*1000, host)
	for a := 1; a <= 2; a++ {
		sep := map[bool]string{true: ",", false: ""}[a > 1]
		fmt.Fprintf(w, `%s{"id":{"handle":%d},"type":2,"node_id":%d,"name":"gfx%d","agent_index":%d}`, sep, a, a, a, a-1)
	}
	w.WriteString(`],"counters":[`)
	for a := 1; a <= 2; a++ {
		for c, name := range []string{"A", "B"} {
			sep := map[bool]string{true: ",", false: ""}[a > 1 || c > 0]
			fmt.Fprintf(w, `%s{"agent_id":{"handle":%d},"id":{"handle":%d},"is_derived":0,"name":"%s","dimension_ids":[0]}`,
				sep, a, 2*(a-1)+c+1, name)
		}
	}
	w.WriteString(`],"strings":{"buffer_records":[{"kind":"KERNEL_DISPATCH"}],"counters":{"dimension_ids":[{"id":0,"instance_size":4,"name":"SE"}]}},` +
		`"kernel_symbols":[{"kernel_id":1,"kernel_name":"k1","agent_id":{"handle":1}},{"kernel_id":2,"kernel_name":"k2","agent_id":{"handle":2}}],` +
		`"callback_records":{"counter_collection":[`)
	record := func(d, pass int) string {
		a := d%2 + 1
		return fmt.Sprintf(`{"correlation_id":{"internal":%d,"external":0},"start_timestamp":%d,"end_timestamp":%d,`+
			`"dispatch_info":{"agent_id":{"handle":%d},"queue_id":{"handle":1},"kernel_id":%d,"dispatch_id":%d,`+
			`"grid_size":{"x":1024,"y":1,"z":1},"workgroup_size":{"x":64,"y":1,"z":1}}`, d, d*100+pass*10, d*100+pass*10+5, a, a, d)
	}
	for d := 1; d <= n; d++ {
		for pass := range 2 {
			if d > 1 || pass > 0 {
				w.WriteString(",\n")
			}
			fmt.Fprintf(w, `{"dispatch_data":%s},"records":[`, record(d, pass))
			for c := range 2 {
				for i := range 4 {
					if c > 0 || i > 0 {
						w.WriteByte(',')
					}
					fmt.Fprintf(w, `{"counter_id":{"handle":%d},"value":%d}`, 2*(d%2)+c+1, d+i)
				}
			}
			fmt.Fprintf(w, `],"thread_id":%d,"replay_pass":%d}`, pid, pass)
		}
	}
	w.WriteString(`]},"buffer_records":{"kernel_dispatch":[`)
	for d := 1; d <= n; d++ {
		for pass := range 2 {
			if d > 1 || pass > 0 {
				w.WriteString(",\n")
			}
			fmt.Fprintf(w, `{"kind":11,"operation":2,"thread_id":%d,%s,"replay_pass":%d}`, pid, record(d, pass)[1:], pass)
		}
	}
	w.WriteString("]}}]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMergeMemoryFlat merges 16 inputs of n dispatches, 1 input of 16n dispatches and 1 input of
// 32n: the peak heap of the first and the last stays within a fixed margin of the second's, as the
// merge holds one process at a time and none of its dispatches. (Each output file's background
// writer takes up to a few MiB of buffers as its output grows, so the comparison is between merges
// whose outputs all fill them.)
func TestMergeMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and merges about 100 MB of results")
	}
	const n = 1000
	dir := t.TempDir()
	var sixteen []string
	for i := range 16 {
		p := filepath.Join(dir, fmt.Sprintf("rank%02d_results.json", i))
		writeInput(t, p, 1000+i, n)
		sixteen = append(sixteen, p)
	}
	long, longer := filepath.Join(dir, "long_results.json"), filepath.Join(dir, "longer_results.json")
	writeInput(t, long, 998, 16*n)
	writeInput(t, longer, 999, 32*n)
	// A small GC target keeps the heap near what is live, so that the peak measures what the
	// merge holds rather than when the collector ran.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	peak := func(name string, inputs []string) uint64 {
		runtime.GC()
		var err error
		p := benchmem.PeakHeap(func() {
			_, err = Run(context.Background(), Request{Inputs: inputs, OutputDir: dir, OutputFile: name,
				Formats: []string{"json", "csv", "rocpd"}, Stats: true, Quiet: true})
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d inputs, peak heap %.1f MiB", name, len(inputs), float64(p)/(1<<20))
		return p
	}
	processes := peak("processes", sixteen)
	dispatches := peak("dispatches", []string{long})
	more := peak("more", []string{longer})
	const margin = 4 << 20
	if processes > dispatches+margin {
		t.Errorf("16 inputs of %d dispatches peak at %d bytes of heap, 1 input of %d at %d: memory grows with the processes",
			n, processes, 16*n, dispatches)
	}
	if more > dispatches+margin {
		t.Errorf("%d dispatches peak at %d bytes of heap, %d at %d: memory grows with the dispatches", 32*n, more, 16*n, dispatches)
	}
}
