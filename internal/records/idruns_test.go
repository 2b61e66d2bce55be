package records

import (
	"math"
	"reflect"
	"testing"
)

func TestIDRuns(t *testing.T) {
	type step struct {
		id      uint64
		greater int
		seen    bool
	}
	tests := []struct {
		name  string
		bound int
		steps []step
		runs  []idRun // the live runs at the end
	}{
		{"in order is one run", 10, []step{{1, 0, false}, {2, 0, false}, {3, 0, false}}, []idRun{{1, 3}}},
		{"threads close the gaps", 10, []step{{3, 0, false}, {1, 1, false}, {4, 0, false}, {2, 2, false}, {6, 0, false}, {5, 1, false}},
			[]idRun{{1, 6}}},
		{"a dispatch in flight leaves a gap", 10, []step{{1, 0, false}, {3, 0, false}, {4, 0, false}, {5, 0, false}},
			[]idRun{{1, 1}, {3, 5}}},
		{"seen again", 10, []step{{1, 0, false}, {2, 0, false}, {5, 0, false}, {1, 2, true}, {5, 0, true}, {2, 1, true}},
			[]idRun{{1, 2}, {5, 5}}},
		{"the bound drops the lowest ids", 3, []step{{1, 0, false}, {2, 0, false}, {4, 0, false}, {5, 0, false}, {6, 0, false}},
			[]idRun{{4, 6}}},
		{"below the bound is not counted further", 3, []step{{5, 0, false}, {6, 0, false}, {7, 0, false}, {2, 3, false}, {8, 0, false}},
			[]idRun{{6, 8}}},
		{"within the bound after a drop", 4, []step{{1, 0, false}, {3, 0, false}, {5, 0, false}, {6, 0, false}, {7, 0, false}, {4, 3, false}},
			[]idRun{{4, 7}}},
		{"extreme ids", 10, []step{{math.MaxUint64, 0, false}, {0, 1, false}, {math.MaxUint64 - 1, 1, false}, {1, 2, false}},
			[]idRun{{0, 1}, {math.MaxUint64 - 1, math.MaxUint64}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r idRuns
			for i, s := range tc.steps {
				if g, seen := r.add(s.id, tc.bound); g != s.greater || seen != s.seen {
					t.Errorf("step %d: add(%d) = %d, %v; want %d, %v", i, s.id, g, seen, s.greater, s.seen)
				}
			}
			if got := r.runs[r.head:]; !reflect.DeepEqual(got, tc.runs) {
				t.Errorf("runs %v, want %v", got, tc.runs)
			}
		})
	}
}
