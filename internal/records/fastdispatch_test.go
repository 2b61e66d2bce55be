package records

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// fastCases are dispatch lines near the edges of the fast path's shape; each must decode as
// encoding/json decodes it, whichever path takes it.
var fastCases = []struct {
	line string
	fast bool // whether the fast path should take it
}{
	{disp(1, 0, 2), true},
	{`{"t":"dispatch","dispatch_id":7,"pass":1,"passes":3,"correlation_id":7,"external_id":0,"agent_id":1,"queue_id":1,"stream_id":0,"thread_id":4242,"kernel_id":3,"grid":[4096,1,1],"workgroup":[256,1,1],"lds":0,"scratch":0,"start":1700000000000100000,"end":1700000000000200000,"counters":[{"name":"SQ_WAVES","values":[16,16,null,-0.5,1e300,2.5E-3]}]}`, true},
	{`{"t":"dispatch","dispatch_id":1,"counters":[]}`, true},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"name":"A","values":[]},{"name":"B","values":[1]}]}`, true},
	{`{"t":"dispatch","dispatch_id":1,"start":-5,"end":-0}`, true},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"name":"A","values":[-0,0,999999999999999,-999999999999999,9999999999999999,99999999999999999999,12345678901234567,1.0,-7]}]}`, true},
	{`{"t":"dispatch","dispatch_id":18446744073709551615}`, true},
	{`{"t":"dispatch","dispatch_id":18446744073709551616}`, false},
	{`{"t":"dispatch","dispatch_id":9999999999999999999,"start":-9223372036854775808,"end":999999999999999999,"lds":-999999999999999999,"grid":[999999999,4294967295,1]}`, true},
	{`{"t":"dispatch","start":9223372036854775808}`, false},
	{`{"t":"dispatch","grid":[1,1,1],"dispatch_id":2,"pass":1}`, true},
	{`{"t":"dispatch","dispatch_id":1,"pass":1.0}`, false},
	{`{"t":"dispatch","dispatch_id":01}`, false},
	{`{"t":"dispatch","dispatch_id":-1}`, false},
	{`{"t":"dispatch","dispatch_id":1,"dispatch_id":2}`, false},
	{`{"t":"dispatch","Dispatch_ID":1}`, false},
	{`{"t":"dispatch","dispatch_id":1,"future":[1,2]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"counters":null}`, false},
	{`{"t":"dispatch","dispatch_id":null}`, false},
	{`{"t":"dispatch","dispatch_id":1,"grid":[1,2]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"grid":[1,2,3,4]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"grid":[4294967296,1,1]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"name":"A\u0042","values":[1]}]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"values":[1],"name":"A"}]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"name":"A","values":[1e400]}]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"name":"A","values":[.5]}]}`, false},
	{`{"t":"dispatch","dispatch_id":1,"counters":[{"name":"A","values":[Inf]}]}`, false},
	{`{"t":"dispatch","dispatch_id":1} `, false},
	{`{"t":"dispatch", "dispatch_id":1}`, false},
	{`{"t":"dispatch","dispatch_id":1}x`, false},
	{`{"t":"dispatch","dispatch_id":1,"t":"kernel"}`, false},
}

func TestFastDispatchMatchesEncodingJSON(t *testing.T) {
	for _, tc := range fastCases {
		fast := checkFastMatchesJSON(t, []byte(tc.line))
		if fast != tc.fast {
			t.Errorf("%s: fast path took it: %v, want %v", tc.line, fast, tc.fast)
		}
	}
}

// checkFastMatchesJSON decodes line both ways, with and without reuse, and reports whether the
// fast path took it.
func checkFastMatchesJSON(t *testing.T, line []byte) bool {
	t.Helper()
	var s dispatchScanner
	var got contract.Dispatch
	if !s.scan(line, &got, false) {
		return false
	}
	var want contract.Dispatch
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("%s: the fast path took a line encoding/json refuses: %v", line, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\nfast %+v\njson %+v", line, got, want)
	}
	// Reuse after a line with other counters must give the same result.
	var reused contract.Dispatch
	s.scan([]byte(disp(9, 0, 1)), &reused, true)
	if !s.scan(line, &reused, true) || !reflect.DeepEqual(reused, want) {
		t.Fatalf("%s: reusing decode differs:\nfast %+v\njson %+v", line, reused, want)
	}
	return true
}

// FuzzFastDispatch checks that the fast path never accepts a line that encoding/json decodes
// differently or refuses.
func FuzzFastDispatch(f *testing.F) {
	for _, tc := range fastCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFastMatchesJSON(t, line)
	})
}
