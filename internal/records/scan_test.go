package records

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// TestScanMatchesRead checks that a process read once says what the pass rules held in memory say,
// and that its dispatches come back in refGroup's order, for the test data and small synthetic files.
func TestScanMatchesRead(t *testing.T) {
	files, _ := filepath.Glob("testdata/run/records/*.ndjson")
	more, _ := filepath.Glob("../output/testdata/records/*.ndjson")
	files = append(files, more...)
	synthetic := []struct {
		name, content string
	}{
		{"ordered with problems", lines(hdr, agent, kern, disp(1, 0, 3), disp(1, 0, 3), disp(1, 2, 3), disp(2, 1, 3),
			`{"t":"decline","dispatch_id":2,"reason":"r"}`, disp(3, 1, 2), disp(3, 4, 2),
			`{"t":"dispatch","dispatch_id":4,"pass":0,"passes":1,"agent_id":9,"kernel_id":8}`,
			`{"t":"dispatch","dispatch_id":5,"pass":0,"passes":2,"agent_id":1,"kernel_id":3,"counters":[{"name":"A","values":[null,1]}]}`,
			`{"t":"dispatch","dispatch_id":5,"pass":1,"passes":3,"agent_id":1,"kernel_id":4}`)},
		{"ids out of order", lines(hdr, agent, kern, disp(2, 0, 2), disp(2, 1, 2), disp(1, 0, 2), disp(1, 1, 2))},
		{"passes out of order", lines(hdr, agent, kern, disp(1, 1, 2), disp(1, 0, 2))},
		{"not consecutive", lines(hdr, agent, kern, disp(1, 0, 2), disp(2, 0, 1), disp(1, 1, 2))},
		{"truncated", lines(hdr, agent, kern, disp(1, 0, 1)) + disp(2, 0, 1)[:20]},
		{"no dispatches", lines(hdr, agent, `{"t":"end","fini_time":3}`)},
	}
	type check struct{ name, path string }
	var checks []check
	for _, f := range files {
		checks = append(checks, check{f, f})
	}
	for _, s := range synthetic {
		checks = append(checks, check{s.name, writeFile(t, s.content)})
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			scanMatchesRead(t, c.path)
		})
	}
}

// scanMatchesRead checks that ReadProcess of path says what the pass rules held in memory say
// (reference_test.go), and that EachLogical hands over refGroup's logical dispatches in its order.
func scanMatchesRead(t *testing.T, path string) *Process {
	t.Helper()
	ds := readAllDispatches(t, path)
	got, err := ReadProcess(path)
	if err != nil {
		t.Fatal(err)
	}
	// The pass rules' problems follow those of the lines themselves.
	want := refCheckPasses(ds)
	if n := len(got.Problems) - len(want); n < 0 || !reflect.DeepEqual(got.Problems[n:], want) && len(want) > 0 {
		t.Errorf("problems\n got %q\nwant them to end with %q", got.Problems, want)
	}
	if g, w := got.MissingPasses(), refMissingPasses(ds, got.Declines); !reflect.DeepEqual(g, w) {
		t.Errorf("missing passes\n got %q\nwant %q", g, w)
	}
	passCounts := map[uint64]int{}
	for _, d := range ds {
		passCounts[d.AgentID] = max(passCounts[d.AgentID], d.Passes)
	}
	if g := got.PassCounts(); !reflect.DeepEqual(g, passCounts) {
		t.Errorf("pass counts %v, want %v", g, passCounts)
	}
	if got.End == nil {
		want := contract.End{Declined: uint64(len(got.Declines))}
		for _, l := range refGroup(ds) {
			want.Dispatches++
			if len(l.Passes) > 1 {
				want.Replayed++
			}
		}
		if g := got.Totals(); g != want {
			t.Errorf("totals %+v, want %+v", g, want)
		}
	}
	var wantLs [][]contract.Dispatch
	for _, l := range refGroup(ds) {
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
