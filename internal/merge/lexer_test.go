package merge

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestLexerAcrossRefills reads the same results.json with the lexer's usual buffer and with buffers
// so small that every key, string and number crosses a refill: the heads and every pass must come
// out the same.
func TestLexerAcrossRefills(t *testing.T) {
	in := filepath.Join(t.TempDir(), "run_results.json")
	writeInput(t, in, 7, 50)
	read := func() ([]*head, []contract.Dispatch) {
		heads, err := scanJSON(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		var passes []contract.Dispatch
		for _, h := range heads {
			if err := h.src.each(h, func(d *contract.Dispatch) error {
				passes = append(passes, *d)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		return heads, passes
	}
	wantHeads, want := read()
	if len(want) != 100 {
		t.Fatalf("read %d passes, want 100", len(want))
	}
	saved := lexerBuffer
	t.Cleanup(func() { lexerBuffer = saved })
	for _, size := range []int{1, 2, 7, 33, 97} {
		lexerBuffer = size
		heads, got := read()
		if len(heads) != len(wantHeads) || !reflect.DeepEqual(heads[0].counters, wantHeads[0].counters) {
			t.Errorf("buffer %d: heads differ", size)
		}
		if passesText(got) != passesText(want) {
			t.Errorf("buffer %d: passes differ", size)
		}
	}
}

// TestLexerRecord: a record written in any of JSON's ways (white space, escapes, keys in another
// order, unknown keys, numbers as floats, null values) reads as encoding/json reads it.
func TestLexerRecord(t *testing.T) {
	text := ` { "thread_id" : 5 , "unknown":{"a":["}\"]",{}]}, "records" : [ {"value":null,"counter_id":{"handle":3}},` +
		`{"counter_id":{"handle":4},"value":1.5e3}, {"counter_id":{"handle":4},"value":2}],"replay_pass":1,` +
		`"dispatch_data":{"correlation_id":{"internal":9,"external":1},"start_timestamp":10,"end_timestamp":2e1,` +
		`"dispatch_info":{"agent_id":{"handle":1},"kernel_id":2,"dispatch_id":3,"grid_size":{"x":4,"y":1,"z":1},` +
		`"na\u006de":"x"}},"pmc_group":null}`
	var r recordJSON
	l := newLexer(strings.NewReader(text), 0, nil)
	if err := l.record(&r); err != nil {
		t.Fatal(err)
	}
	if r.ThreadID != 5 || r.ReplayPass != 1 || r.PMCGroup != nil || !r.HasDispatchData ||
		r.DispatchData.Correlation.Internal != 9 || r.DispatchData.End != 20 || r.DispatchData.Info.Grid.X != 4 ||
		r.DispatchData.Info.DispatchID != 3 || len(r.Records) != 3 || r.Records[0].CounterID.Handle != 3 ||
		r.Records[0].Value == r.Records[0].Value || r.Records[1].Value != 1500 || r.Records[2].Value != 2 {
		t.Errorf("read %+v (dispatch data %+v)", r, r.DispatchData)
	}
	if !json.Valid([]byte(text)) {
		t.Fatal("the test's record is not JSON")
	}
	for _, bad := range []string{`{"thread_id":}`, `{"records":[{"counter_id":{"handle":-1},"value":1}]}`, `{"thread_id":1`, `{"a" 1}`} {
		if err := newLexer(strings.NewReader(bad), 0, nil).record(&r); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}

// passesText prints passes with their values, not the values' addresses.
func passesText(passes []contract.Dispatch) string {
	var b strings.Builder
	for _, d := range passes {
		counters := d.Counters
		d.Counters = nil
		fmt.Fprintf(&b, "%+v", d)
		for _, c := range counters {
			fmt.Fprintf(&b, " %s", c.Name)
			for _, v := range c.Values {
				fmt.Fprintf(&b, " %v", *v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestLexerIntegers: the digits-only path of uint and int gives what strconv gives, and leaves
// to it what does not fit (20 digits, past int64) or is written otherwise (a sign, an exponent).
func TestLexerIntegers(t *testing.T) {
	for _, tc := range []struct {
		text string
		u, i string // the value, or "error"
	}{
		{"0", "0", "0"},
		{"007", "7", "7"},
		{"1796166030723104036", "1796166030723104036", "1796166030723104036"},
		{"9223372036854775807", "9223372036854775807", "9223372036854775807"},
		{"9223372036854775808", "9223372036854775808", "error"},
		{"18446744073709551615", "18446744073709551615", "error"},
		{"18446744073709551616", "error", "error"},
		{"-5", "error", "-5"},
		{"1e3", "1000", "1000"},
		{"1.5", "error", "error"},
	} {
		show := func(v any, err error) string {
			if err != nil {
				return "error"
			}
			return fmt.Sprint(v)
		}
		u, err := newLexer(strings.NewReader(tc.text+","), 0, nil).uint()
		if got := show(u, err); got != tc.u {
			t.Errorf("uint %s: %s, want %s", tc.text, got, tc.u)
		}
		i, err := newLexer(strings.NewReader(tc.text+","), 0, nil).int()
		if got := show(i, err); got != tc.i {
			t.Errorf("int %s: %s, want %s", tc.text, got, tc.i)
		}
	}
}
