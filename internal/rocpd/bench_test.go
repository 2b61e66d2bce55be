package rocpd

import (
	"path/filepath"
	"testing"
)

// BenchmarkWriterDispatches measures the Writer alone: one dispatch of two passes per op, two
// counters of 16 instances each per pass.
func BenchmarkWriterDispatches(b *testing.B) {
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
	// Two passes per op, as output's sinks give them: one dispatch of the shape of BenchmarkSinks.
	d := Dispatch{Replayed: true, AgentID: 1, KernelID: 1, Grid: [3]uint32{256, 1, 1}, Workgroup: [3]uint32{64, 1, 1},
		Passes: make([]Pass, 2)}
	for i := 0; i < b.N; i++ {
		d.DispatchID = uint64(i + 1)
		for pass := range d.Passes {
			d.Passes[pass] = Pass{Pass: pass, CorrelationID: uint64(i + 1), QueueID: 1, ThreadID: 42,
				Start: int64(2*i + pass), End: int64(2*i + pass + 1),
				Counters: []CounterValues{{CounterID: uint64(2*pass + 1), Values: vals}, {CounterID: uint64(2*pass + 2), Values: vals}}}
		}
		if err := w.Dispatch(&d); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}
