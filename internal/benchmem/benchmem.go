// Package benchmem measures the memory a benchmark's work holds at its peak, which testing's B/op
// (bytes allocated in total) does not show.
package benchmem

import (
	"runtime"
	"sync/atomic"
	"time"
)

// PeakHeap runs fn and returns the largest heap in use seen while it ran, sampled every 20 ms and
// once more at the end.
func PeakHeap(fn func()) uint64 {
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > peak.Load() {
			peak.Store(ms.HeapInuse)
		}
	}
	go func() {
		defer close(done)
		for {
			sample()
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	fn()
	close(stop)
	<-done
	sample()
	return peak.Load()
}
