package records

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestSpoolRoundTrip: what the spool hands back is the dispatch it was given, bit for bit: every
// field, counters absent or empty, undelivered values, negative zero, fractions, large and negative
// numbers (a counter without values comes back with an empty list).
func TestSpoolRoundTrip(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	ds := []contract.Dispatch{
		{DispatchID: math.MaxUint64, Pass: -1, Passes: 3, CorrelationID: 2, ExternalID: 3, AgentID: 4, QueueID: 5, StreamID: 6,
			ThreadID: 7, KernelID: 8, Grid: [3]uint32{math.MaxUint32, 1, 2}, Workgroup: [3]uint32{3, 4, 5}, LDS: -6, Scratch: 7,
			Start: math.MinInt64, End: math.MaxInt64,
			Counters: []contract.CounterValue{{Name: "A", Values: []*float64{nil, f(0), f(math.Copysign(0, -1)), f(1.5), f(1e20),
				f(1 << 53), f(1<<53 - 1), f(-3), f(math.SmallestNonzeroFloat64)}}, {Name: "B", Values: []*float64{}}, {Name: "A"}}},
		{DispatchID: 1},
		{DispatchID: 2, Counters: []contract.CounterValue{}},
	}
	s := newSpool()
	defer s.close()
	for i := range ds {
		s.add(10+i, i == 1, &ds[i])
	}
	if err := s.finish(); err != nil {
		t.Fatal(err)
	}
	r := s.reader()
	for i, want := range ds {
		got, line, err := r.next()
		if err != nil {
			t.Fatal(err)
		}
		if line != 10+i || r.recovered != (i == 1) {
			t.Errorf("dispatch %d: line %d recovered %v, want %d %v", i, line, r.recovered, 10+i, i == 1)
		}
		g := *got
		g.Counters = deepCounters(got.Counters)
		if got.Counters != nil && len(got.Counters) == 0 {
			g.Counters = []contract.CounterValue{}
		}
		// Counters without values come back with an empty list, as JSON without "values" reads.
		want.Counters = append([]contract.CounterValue(nil), want.Counters...)
		if ds[i].Counters != nil && want.Counters == nil {
			want.Counters = []contract.CounterValue{}
		}
		for k := range g.Counters {
			g.Counters[k].Values = append([]*float64{}, g.Counters[k].Values...)
			want.Counters[k].Values = append([]*float64{}, want.Counters[k].Values...)
		}
		if !reflect.DeepEqual(g, want) {
			t.Errorf("dispatch %d:\n got %+v\nwant %+v", i, g, want)
		}
		for k, c := range want.Counters {
			for j, v := range c.Values {
				if v != nil && math.Float64bits(*v) != math.Float64bits(*g.Counters[k].Values[j]) {
					t.Errorf("dispatch %d counter %d value %d: bits of %v, want %v", i, k, j, *g.Counters[k].Values[j], *v)
				}
			}
		}
	}
	if _, _, err := r.next(); err != io.EOF {
		t.Errorf("after the last dispatch: %v, want io.EOF", err)
	}
}

// TestRecordsReplayTheFile: Records hands out what the decoder read from the file, record for
// record and line for line, damaged files included, without decoding again.
func TestRecordsReplayTheFile(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/records/*.ndjson")
	more, _ := filepath.Glob("../output/testdata/records/*.ndjson")
	for _, path := range append(files, more...) {
		t.Run(path, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			dec := NewDecoder(f)
			dec.SkipBadLines()
			var want []Record
			for {
				rec, err := dec.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) {
						t.Skipf("not a process: %v", err)
					}
					break
				}
				want = append(want, rec)
			}
			p, err := ReadProcess(path)
			if err != nil {
				t.Fatal(err)
			}
			before := Decoded()
			r := p.Records()
			var got []Record
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, rec)
			}
			if n := Decoded() - before; n != 0 {
				t.Errorf("Records decoded %d lines", n)
			}
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				if g.Dispatch != nil {
					d := *g.Dispatch
					d.Counters = deepCounters(d.Counters)
					g.Dispatch = &d
					wd := *w.Dispatch
					wd.Counters = deepCounters(wd.Counters)
					w.Dispatch = &wd
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("record %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
		})
	}
}
