package records

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// dline is a dispatch line whose start time tells equal (id, pass) lines apart.
func dline(id uint64, pass, passes int, start int) string {
	return fmt.Sprintf(`{"t":"dispatch","dispatch_id":%d,"pass":%d,"passes":%d,"agent_id":1,"kernel_id":3,"start":%d,"end":%d,"counters":[{"name":"SQ_WAVES","values":[%d,null]}]}`,
		id, pass, passes, start, start+1, start)
}

func decline(id uint64) string {
	return fmt.Sprintf(`{"t":"decline","dispatch_id":%d,"reason":"r"}`, id)
}

// block is every pass of one dispatch, as one thread writes it when the dispatch's replay ends.
func block(id uint64, passes int, start int) []string {
	var out []string
	for p := 0; p < passes; p++ {
		out = append(out, dline(id, p, passes, start+p))
	}
	return out
}

func cat(parts ...[]string) []string {
	var out []string
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// shortLines are dispatch lines of one pass, without counters, in the given id order.
func shortLines(ids []uint64) []string {
	out := []string{hdr, agent, kern}
	for _, id := range ids {
		out = append(out, fmt.Sprintf(`{"t":"dispatch","dispatch_id":%d,"pass":0,"passes":%d,"agent_id":1,"kernel_id":3}`, id, 1+id%2))
	}
	return out
}

// aroundCap lists the ids 1..MaxReorderWindow+5 in order but for 3, which comes after `after` ids
// greater than it.
func aroundCap(after int) []uint64 {
	var ids []uint64
	for id := uint64(1); id <= MaxReorderWindow+5; id++ {
		if id != 3 {
			ids = append(ids, id)
		}
		if id == uint64(3+after) {
			ids = append(ids, 3)
		}
	}
	return ids
}

// TestScanOutOfOrder checks files whose dispatches several threads wrote: each is read with the window
// measured and says exactly what the pass rules held in memory say, also when it lies further out of
// order than MaxReorderWindow (checked again with every id kept) or splits a dispatch's lines.
func TestScanOutOfOrder(t *testing.T) {
	other := strings.Replace(dline(2, 1, 3, 20), `"kernel_id":3`, `"kernel_id":5`, 1)
	tests := []struct {
		name   string
		lines  []string
		tail   string // a last line without its newline
		window int
	}{
		{"in order", cat([]string{hdr, agent, kern}, block(1, 2, 10), block(2, 2, 20)), "", 0},
		{"two threads swap", cat([]string{hdr, agent, kern}, block(2, 2, 20), block(1, 2, 10), block(3, 2, 30)), "", 1},
		{"four threads", cat([]string{hdr, agent, kern}, block(3, 2, 30), block(1, 2, 10), block(4, 2, 40), block(2, 2, 20),
			block(7, 2, 70), block(5, 2, 50), block(8, 2, 80), block(6, 2, 60)), "", 2},
		{"missing passes out of order", cat([]string{hdr, agent, kern},
			[]string{dline(3, 0, 3, 30), dline(3, 2, 3, 32)}, []string{dline(1, 1, 2, 11)}, block(2, 2, 20), block(4, 1, 40)), "", 1},
		{"declined dispatch out of order", cat([]string{hdr, agent, kern}, []string{decline(2), dline(2, 1, 3, 21)},
			block(1, 3, 10), block(3, 3, 30), []string{`{"t":"end","fini_time":9,"dispatches":3,"declined":1}`}), "", 1},
		{"duplicate passes out of order", cat([]string{hdr, agent, kern},
			[]string{dline(2, 0, 2, 20), dline(2, 0, 2, 21), dline(2, 1, 2, 22)}, block(1, 2, 10)), "", 1},
		{"same pass in two blocks", cat([]string{hdr, agent, kern},
			[]string{dline(1, 0, 2, 10), dline(2, 0, 1, 20), dline(1, 0, 2, 11), dline(3, 0, 1, 30), dline(1, 1, 2, 12)}), "", 2},
		{"passes reversed inside a block", cat([]string{hdr, agent, kern},
			[]string{dline(2, 1, 2, 21), dline(2, 0, 2, 20), dline(1, 1, 2, 11), dline(1, 0, 2, 10)}), "", 1},
		{"block split by another thread", cat([]string{hdr, agent, kern},
			[]string{dline(1, 0, 2, 10)}, block(2, 2, 20), []string{dline(1, 1, 2, 11)}), "", 1},
		{"pass counts and kernels disagree", cat([]string{hdr, agent, kern},
			[]string{dline(2, 0, 3, 20), other, dline(2, 2, 2, 22)}, []string{dline(1, 0, 2, 10), dline(1, 1, 3, 11)}), "", 1},
		{"lowest pass states the pass count", cat([]string{hdr, agent, kern},
			block(2, 1, 20), []string{dline(1, 2, 4, 12), dline(1, 0, 3, 10)}), "", 1},
		{"equal lowest passes: the first states the pass count", cat([]string{hdr, agent, kern},
			block(2, 1, 20), []string{dline(1, 1, 4, 11), dline(1, 0, 3, 10), dline(1, 0, 2, 12)}), "", 1},
		{"wide and odd pass indexes", cat([]string{hdr, agent, kern},
			[]string{dline(2, 65, 67, 20), dline(2, -1, 67, 21), dline(2, 0, 67, 22)}, []string{dline(1, 70, 2, 10)}), "", 1},
		{"extreme ids", cat([]string{hdr, agent, kern}, block(18446744073709551615, 2, 90), block(0, 2, 0), block(7, 1, 70)), "", 1},
		{"truncated while out of order", cat([]string{hdr, agent, kern}, block(2, 2, 20), []string{dline(1, 0, 2, 10)}),
			dline(1, 1, 2, 11)[:25], 1},
		{"at the cap", shortLines(aroundCap(MaxReorderWindow)), "", MaxReorderWindow},
		{"past the cap", shortLines(aroundCap(MaxReorderWindow + 1)), "", MaxReorderWindow + 1},
		{"split past the cap", shortLines(append(aroundCap(0), 3)), "", MaxReorderWindow + 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := scanMatchesRead(t, writeFile(t, lines(tc.lines...)+tc.tail))
			if got.ReorderWindow() != tc.window {
				t.Errorf("window %d, want %d", got.ReorderWindow(), tc.window)
			}
		})
	}
}

// TestEachLogicalErrors checks that EachLogical stops at its callback's error, and that it hands out
// the dispatches decoded when the file was read, whatever became of the file since: nothing is
// decoded twice.
func TestEachLogicalErrors(t *testing.T) {
	path := writeFile(t, lines(cat([]string{hdr, agent, kern}, block(2, 2, 20), block(1, 2, 10), block(3, 1, 30))...))
	p, err := ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	calls := 0
	if err := p.EachLogical(func(Logical) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Errorf("EachLogical returned %v after %d calls; want the callback's error after 1", err, calls)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	if err := p.EachLogical(func(l Logical) error { ids = append(ids, l.ID); return nil }); err != nil || !slices.Equal(ids, []uint64{1, 2, 3}) {
		t.Errorf("EachLogical after the file was removed: %v, %v; want 1, 2, 3", ids, err)
	}
}

// threadedFile builds a record file as threads that finish their dispatches' replays in random order
// write it, with the faults a broken run shows now and then (lost, repeated, reordered and split
// passes, disagreeing pass counts, declines). It returns the lines, the reorder window they need,
// counted the slow way.
func threadedFile(seed uint64, n, threads, faults int) ([]string, int) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var blocks [][]string
	var ids []uint64 // the id of each block, for the window
	out := []string{hdr, agent, kern}
	id := uint64(rng.IntN(3))
	for k := 0; k < n; k++ {
		id += 1 + uint64(rng.IntN(3))
		passes := 1 + rng.IntN(3)
		b := block(id, passes, 10*k)
		var split []string
		if rng.IntN(8) < faults {
			switch i := rng.IntN(len(b)); rng.IntN(6) {
			case 0:
				b = append(b[:i], b[i+1:]...)
			case 1:
				b = append(b, dline(id, i, passes, 10*k+9))
			case 2:
				j := rng.IntN(len(b))
				b[i], b[j] = b[j], b[i]
			case 3:
				b[i] = dline(id, i, passes+1, 10*k+8)
			case 4:
				b, split = b[:i], b[i:]
			case 5:
				out = append(out, decline(id))
				b = b[:1]
			}
		}
		if len(b) > 0 {
			blocks, ids = append(blocks, b), append(ids, id)
		}
		if len(split) > 0 {
			blocks, ids = append(blocks, split), append(ids, id)
		}
	}
	var inFlight []int
	next := 0
	var order []uint64
	for next < len(blocks) || len(inFlight) > 0 {
		for len(inFlight) < threads && next < len(blocks) {
			inFlight = append(inFlight, next)
			next++
		}
		i := rng.IntN(len(inFlight))
		b := inFlight[i]
		inFlight = append(inFlight[:i], inFlight[i+1:]...)
		out = append(out, blocks[b]...)
		for range blocks[b] {
			order = append(order, ids[b])
		}
	}
	window := 0
	for i, id := range order {
		if i > 0 && order[i-1] == id {
			continue
		}
		greater := map[uint64]bool{}
		for _, e := range order[:i] {
			if e > id {
				greater[e] = true
			}
		}
		window = max(window, len(greater))
	}
	return out, window
}

// FuzzScanReorder checks ReadProcess against the pass rules held in memory on files that threads wrote out of order.
func FuzzScanReorder(f *testing.F) {
	f.Add(uint64(1), uint8(20), uint8(4), uint8(0))
	f.Add(uint64(2), uint8(50), uint8(8), uint8(3))
	f.Add(uint64(3), uint8(5), uint8(1), uint8(8))
	f.Fuzz(func(t *testing.T, seed uint64, n, threads, faults uint8) {
		ls, window := threadedFile(seed, int(n)%80, 1+int(threads)%16, int(faults)%9)
		got := scanMatchesRead(t, writeFile(t, lines(ls...)))
		if got.ReorderWindow() != window {
			t.Errorf("window %d, want %d", got.ReorderWindow(), window)
		}
	})
}

// TestScanReorderRandom is FuzzScanReorder over a fixed set of random files.
func TestScanReorderRandom(t *testing.T) {
	for seed := uint64(0); seed < 150; seed++ {
		n, threads, faults := 1+int(seed*7)%60, 1+int(seed)%9, int(seed/9)%5
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			ls, window := threadedFile(seed, n, threads, faults)
			got := scanMatchesRead(t, writeFile(t, lines(ls...)))
			if got.ReorderWindow() != window {
				t.Errorf("window %d, want %d", got.ReorderWindow(), window)
			}
		})
	}
}
