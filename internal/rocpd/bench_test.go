package rocpd

import (
	"path/filepath"
	"testing"
)

// BenchmarkWriterPasses measures the Writer alone: one pass of a dispatch per op (two passes per
// dispatch), two counters of 16 instances each, the shape of output's BenchmarkSinks.
func BenchmarkWriterPasses(b *testing.B) {
	w, err := Create(filepath.Join(b.TempDir(), "bench_results.db"), Process{PID: 1, Hostname: "bench", Init: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	if err := w.Agent(Agent{ID: 1, Type: "GPU", Name: "gfx90a"}); err != nil {
		b.Fatal(err)
	}
	for id := uint64(1); id <= 4; id++ {
		if err := w.Counter(Counter{ID: id, AgentID: 1, Name: "C" + string(rune('0'+id))}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Kernel(Kernel{ID: 1, Name: "_Z1kv", DisplayName: "k()"}); err != nil {
		b.Fatal(err)
	}
	vals := make([]float64, 16)
	for i := range vals {
		vals[i] = float64(i*7 + 1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pass := i % 2
		cs := []CounterValues{{CounterID: uint64(2*pass + 1), Values: vals}, {CounterID: uint64(2*pass + 2), Values: vals}}
		if err := w.Dispatch(Dispatch{DispatchID: uint64(i/2 + 1), Pass: pass, Replayed: true, CorrelationID: uint64(i/2 + 1),
			AgentID: 1, QueueID: 1, ThreadID: 42, KernelID: 1, Grid: [3]uint32{256, 1, 1}, Workgroup: [3]uint32{64, 1, 1},
			Start: int64(2 * i), End: int64(2*i + 1)}, cs); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
