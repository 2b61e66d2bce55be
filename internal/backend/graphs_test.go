package backend

import (
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/cuda"
	"github.com/gorocprof/gorocprof/internal/backend/rocm"
	"github.com/gorocprof/gorocprof/internal/backend/sim"
)

// wholeGraphs is a backend whose capability says what the test sets.
type wholeGraphs struct {
	Backend
	whole bool
}

func (w wholeGraphs) ProfilesWholeGraphs() bool { return w.whole }

func TestCheckGraphProfiling(t *testing.T) {
	var simB Backend = &sim.Backend{}
	for _, tc := range []struct {
		name string
		b    Backend
		mode string
		want string // "" for accepted, else a part of the error
	}{
		{"cuda graph", &cuda.Backend{}, "graph", ""},
		{"cuda node", &cuda.Backend{}, "node", ""},
		{"sim default", simB, "", ""},
		{"sim node", simB, "node", ""},
		{"sim graph", simB, "graph", "--graph-profiling graph: backend sim does not profile graph launches as whole workloads"},
		{"rocm graph", &rocm.Backend{}, "graph", "backend rocm does not profile"},
		{"capability off", wholeGraphs{simB, false}, "graph", "backend sim does not profile"},
		{"capability on", wholeGraphs{simB, true}, "graph", ""},
	} {
		err := CheckGraphProfiling(tc.b, tc.mode)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: CheckGraphProfiling(%q) = %v, want %q", tc.name, tc.mode, err, tc.want)
		}
	}
}
