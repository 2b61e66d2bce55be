package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// A backend that cannot replay kernels turns kernel replay into application replay, and says why;
// a plan of one pass per agent runs once without replay.
func TestReplayableMode(t *testing.T) {
	refusal := errors.New("no kernel replay: rocprofiler-sdk 1.0.0 has no kernel replay domain")
	one := &counters.Plan{Agents: []contract.PlanAgent{{Passes: make([]contract.PlanPass, 1)}, {Passes: make([]contract.PlanPass, 1)}}}
	two := &counters.Plan{Agents: []contract.PlanAgent{{Passes: make([]contract.PlanPass, 1)}, {Passes: make([]contract.PlanPass, 2)}}}
	for _, tc := range []struct {
		mode    string
		refuse  error
		plan    *counters.Plan
		want    string
		message string
	}{
		{contract.ModeKernel, nil, two, contract.ModeKernel, ""},
		{contract.ModeKernel, refusal, two, contract.ModeApplication,
			"gorocprof: note: backend fake: no kernel replay: rocprofiler-sdk 1.0.0 has no kernel replay domain: the application runs once per pass (application replay)\n"},
		{contract.ModeKernel, refusal, one, contract.ModeNone, ""},
		{contract.ModeApplication, refusal, two, contract.ModeApplication, ""},
		{contract.ModeNone, refusal, two, contract.ModeNone, ""},
	} {
		f := backendtest.New("fake", 1)
		f.NoKernelReplay = tc.refuse
		var stderr strings.Builder
		if got := replayableMode(&stderr, tc.mode, f, tc.plan); got != tc.want || stderr.String() != tc.message {
			t.Errorf("mode %s, refusal %v, %d agents: %s with %q, want %s with %q", tc.mode, tc.refuse, len(tc.plan.Agents), got, stderr.String(), tc.want, tc.message)
		}
	}
}
