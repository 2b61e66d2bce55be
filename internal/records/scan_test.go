package records

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestScanMatchesRead checks that a scanned process says what a read one says, and that its
// dispatches come back in Group's order, for the test data and small synthetic files.
func TestScanMatchesRead(t *testing.T) {
	files, _ := filepath.Glob("testdata/run/records/*.ndjson")
	more, _ := filepath.Glob("../output/testdata/records/*.ndjson")
	files = append(files, more...)
	synthetic := []struct {
		name, content string
		streamed      bool
	}{
		{"ordered with problems", lines(hdr, agent, kern, disp(1, 0, 3), disp(1, 0, 3), disp(1, 2, 3), disp(2, 1, 3),
			`{"t":"decline","dispatch_id":2,"reason":"r"}`, disp(3, 1, 2), disp(3, 4, 2),
			`{"t":"dispatch","dispatch_id":4,"pass":0,"passes":1,"agent_id":9,"kernel_id":8}`,
			`{"t":"dispatch","dispatch_id":5,"pass":0,"passes":2,"agent_id":1,"kernel_id":3,"counters":[{"name":"A","values":[null,1]}]}`,
			`{"t":"dispatch","dispatch_id":5,"pass":1,"passes":3,"agent_id":1,"kernel_id":4}`), true},
		{"ids out of order", lines(hdr, agent, kern, disp(2, 0, 2), disp(2, 1, 2), disp(1, 0, 2), disp(1, 1, 2)), true},
		{"passes out of order", lines(hdr, agent, kern, disp(1, 1, 2), disp(1, 0, 2)), true},
		{"not consecutive", lines(hdr, agent, kern, disp(1, 0, 2), disp(2, 0, 1), disp(1, 1, 2)), false},
		{"truncated", lines(hdr, agent, kern, disp(1, 0, 1)) + disp(2, 0, 1)[:20], true},
		{"no dispatches", lines(hdr, agent, `{"t":"end","fini_time":3}`), true},
	}
	type check struct {
		name, path string
		streamed   bool
	}
	var checks []check
	for _, f := range files {
		checks = append(checks, check{f, f, true})
	}
	for _, s := range synthetic {
		checks = append(checks, check{s.name, writeFile(t, s.content), s.streamed})
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if got := scanMatchesRead(t, c.path); got.Streamed != c.streamed {
				t.Errorf("streamed = %v, want %v", got.Streamed, c.streamed)
			}
		})
	}
}

// scanMatchesRead checks that ScanProcess of path says what ReadProcess says, that EachLogical hands
// over Group's logical dispatches in Group's order, and that a Streamed process holds no dispatch.
func scanMatchesRead(t *testing.T, path string) *Process {
	t.Helper()
	want, err := ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ScanProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Streamed != (got.Dispatches == nil) {
		t.Errorf("streamed = %v with %d dispatches in memory", got.Streamed, len(got.Dispatches))
	}
	if !reflect.DeepEqual(got.Problems, want.Problems) {
		t.Errorf("problems\n got %q\nwant %q", got.Problems, want.Problems)
	}
	if g, w := got.MissingPasses(), want.MissingPasses(); !reflect.DeepEqual(g, w) {
		t.Errorf("missing passes\n got %q\nwant %q", g, w)
	}
	if g, w := got.PassCounts(), want.PassCounts(); !reflect.DeepEqual(g, w) {
		t.Errorf("pass counts %v, want %v", g, w)
	}
	if !reflect.DeepEqual(got.Header, want.Header) || !reflect.DeepEqual(got.Agents, want.Agents) ||
		!reflect.DeepEqual(got.Kernels, want.Kernels) || !reflect.DeepEqual(got.Declines, want.Declines) ||
		!reflect.DeepEqual(got.Warnings, want.Warnings) || !reflect.DeepEqual(got.Fatals, want.Fatals) ||
		!reflect.DeepEqual(got.End, want.End) || got.Truncated != want.Truncated {
		t.Errorf("scanned process differs from the read one:\n got %+v\nwant %+v", got, want)
	}
	var wantLs [][]contract.Dispatch
	for _, l := range Group(want.Dispatches) {
		var ps []contract.Dispatch
		for _, d := range l.Passes {
			ps = append(ps, *d)
		}
		wantLs = append(wantLs, ps)
	}
	var gotLs [][]contract.Dispatch
	err = got.EachLogical(func(l Logical) error {
		var ps []contract.Dispatch
		for _, d := range l.Passes {
			if d.DispatchID != l.ID {
				t.Errorf("logical %d holds dispatch %d", l.ID, d.DispatchID)
			}
			c := *d
			c.Counters = deepCounters(d.Counters)
			ps = append(ps, c)
		}
		gotLs = append(gotLs, ps)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotLs, wantLs) {
		t.Errorf("EachLogical\n got %+v\nwant %+v", gotLs, wantLs)
	}
	return got
}

// deepCounters copies counters out of storage EachLogical reuses.
func deepCounters(cs []contract.CounterValue) []contract.CounterValue {
	if cs == nil {
		return nil
	}
	out := make([]contract.CounterValue, len(cs))
	for i, c := range cs {
		out[i] = contract.CounterValue{Name: c.Name, Values: make([]*float64, len(c.Values))}
		for k, v := range c.Values {
			if v != nil {
				x := *v
				out[i].Values[k] = &x
			}
		}
	}
	return out
}
