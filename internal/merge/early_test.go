package merge

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// writeVariant writes writeInput's results.json of n dispatches, edited by edit.
func writeVariant(t *testing.T, n int, edit func(string) string) (string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run_results.json")
	writeInput(t, path, 7, n)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := edit(string(b))
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, int64(len(s))
}

// withoutTrace makes writeInput's file one of a run without the kernel trace: no kernel dispatch
// kind, no kernel dispatch records.
func withoutTrace(s string) string {
	s = strings.Replace(s, `"buffer_records":[{"kind":"KERNEL_DISPATCH"}]`, `"buffer_records":[]`, 1)
	at := strings.Index(s, `"buffer_records":{"kernel_dispatch":[`)
	return s[:at] + `"buffer_records":{"kernel_dispatch":[]}}]}` + "\n"
}

// TestEarlyCheck: the heads pass checks the records of an element without the kernel trace, so
// that the merge reads them twice, and finds what the check finds; where it cannot (the kernel
// trace, records in a second array, an error), the check reads them and says what it always said.
func TestEarlyCheck(t *testing.T) {
	const n = 1500
	for _, tc := range []struct {
		name    string
		edit    func(string) string
		checked bool
		err     string
	}{
		{"without the kernel trace", withoutTrace, true, ""},
		{"with the kernel trace", func(s string) string { return s }, false, ""},
		{"records in a second array", func(s string) string {
			return strings.Replace(s, `"buffer_records":[{"kind":"KERNEL_DISPATCH"}]`, `"buffer_records":[]`, 1)
		}, false, ""},
		{"an unknown counter id in the middle", func(s string) string {
			return strings.Replace(withoutTrace(s), `{"counter_id":{"handle":1},"value":150}`, `{"counter_id":{"handle":9},"value":150}`, 1)
		}, false, "callback_records.counter_collection[294]: dispatch 148 pass 0: counter id 9 is not in the counters list"},
		{"a bad number in the middle", func(s string) string {
			return strings.Replace(withoutTrace(s), `"value":151}`, `"value":1.5.1}`, 1)
		}, false, `callback_records.counter_collection[294]: "records": offset 189123: expected a number, found 1.5.1`},
		{"out of order", func(s string) string {
			return strings.Replace(withoutTrace(s), `"dispatch_id":120,`, `"dispatch_id":1,`, 1)
		}, false, "dispatch 1 pass 0 comes after dispatch 119 pass 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, size := writeVariant(t, n, tc.edit)
			prog := &readProgress{}
			heads, err := readFile(inputFile{path: path, prog: prog})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			h := heads[0]
			if h.checked != tc.checked {
				t.Fatalf("checked by the heads pass: %v, want %v", h.checked, tc.checked)
			}
			if err := h.src.each(h, func(*contract.Dispatch) error { return nil }); err != nil {
				t.Fatal(err)
			}
			reads := 2
			if !tc.checked {
				reads = 3
			}
			// Each reader reads up to a buffer past its array's end.
			if got, want := prog.read.Load(), int64(reads)*size; got > want+4*int64(lexerBuffer) || got < want-size/2 {
				t.Errorf("read %d bytes of a file of %d, want the file about %d times", got, size, reads)
			}
			got := []any{h.requested, h.maxDispatch, h.maxCorrelation, h.passes}
			h.checked = false
			if err := h.check(); err != nil {
				t.Fatal(err)
			}
			if want := []any{h.requested, h.maxDispatch, h.maxCorrelation, h.passes}; !reflect.DeepEqual(got, want) {
				t.Errorf("the heads pass found %v, the check %v", got, want)
			}
		})
	}
}

// TestDecodersEnd: a reader that stops early (here the check, at an error near the start of the
// counter records of an element with the kernel trace) ends the decoders of its arrays, which had
// much left to read.
func TestDecodersEnd(t *testing.T) {
	path, _ := writeVariant(t, 3000, func(s string) string {
		return strings.Replace(s, `"dispatch_id":3,`, `"dispatch_id":1,`, 1)
	})
	before := runtime.NumGoroutine()
	if _, err := readFile(inputFile{path: path}); err == nil || !strings.Contains(err.Error(), "comes after") {
		t.Fatalf("error %v, want the order's", err)
	}
	// A decoder that has ended may take a moment to leave; one left waiting never does.
	for wait := time.Millisecond; runtime.NumGoroutine() > before; wait *= 2 {
		if wait > time.Second {
			t.Fatalf("%d goroutines after the merge's reading, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(wait)
	}
}
