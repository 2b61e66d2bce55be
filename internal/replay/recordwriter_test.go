package replay

import (
	"bytes"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// TestDispatchLineRoundTrip: the hand-written dispatch line reads back as the dispatch it was
// written from, whatever the values.
func TestDispatchLineRoundTrip(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []contract.Dispatch{
		{},
		{DispatchID: math.MaxUint64, Pass: 2, Passes: 3, CorrelationID: 7, ExternalID: 1 << 63, AgentID: 9, QueueID: 4, StreamID: 5,
			ThreadID: 4242, KernelID: 3, Grid: [3]uint32{math.MaxUint32, 2, 3}, Workgroup: [3]uint32{256, 1, 1}, LDS: 65536,
			Scratch: -1, Start: math.MinInt64, End: math.MaxInt64,
			Counters: []contract.CounterValue{
				{Name: "SQ_WAVES", Values: []*float64{f(16), nil, f(0), f(-0.5)}},
				{Name: `we"ird\name ü <&>`, Values: []*float64{f(1e300), f(5e-324), f(0.1 + 0.2), f(123456789012345678)}},
				{Name: "EMPTY", Values: []*float64{}},
			}},
	}
	for _, d := range tests {
		var buf bytes.Buffer
		w := newLineWriter(&buf)
		if err := w.write(contract.RecHeader, contract.Header{Version: contract.Version}); err != nil {
			t.Fatal(err)
		}
		if err := w.write(contract.RecDispatch, &d); err != nil {
			t.Fatal(err)
		}
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
		var got *contract.Dispatch
		if err := records.Decode(&buf, func(r records.Record) error {
			if r.Dispatch != nil {
				got = r.Dispatch
			}
			return nil
		}); err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		want := d
		if want.Counters == nil {
			want.Counters = []contract.CounterValue{}
		}
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("read back\n %+v\nwant\n %+v", got, &want)
		}
	}
}

func TestDispatchLineRefusesNonFinite(t *testing.T) {
	inf := math.Inf(1)
	w := newLineWriter(&bytes.Buffer{})
	err := w.write(contract.RecDispatch, &contract.Dispatch{DispatchID: 4, Counters: []contract.CounterValue{{Name: "X", Values: []*float64{&inf}}}})
	if err == nil {
		t.Fatal("an infinite value was written as JSON")
	}
}

// TestDispatchValuesAsStrconv checks that the short cut for whole numbers prints what
// strconv.AppendFloat(v, 'g', -1) prints.
func TestDispatchValuesAsStrconv(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 7, 999999, -999999, 1e6, -1e6, 123456, 1e5, 1e15, 0.5, 1e21, 2.5e-7}
	for i := 0; i < 2000; i++ {
		vals = append(vals, float64(i*i*i), -float64(i*997))
	}
	w := newLineWriter(&bytes.Buffer{})
	for _, v := range vals {
		v := v
		line, err := w.appendDispatch(nil, &contract.Dispatch{Counters: []contract.CounterValue{{Name: "X", Values: []*float64{&v}}}})
		if err != nil {
			t.Fatal(err)
		}
		want := `"values":[` + strconv.FormatFloat(v, 'g', -1, 64) + `]`
		if !bytes.Contains(line, []byte(want)) {
			t.Errorf("%v: line %s lacks %s", v, line, want)
		}
	}
}
