package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend/backendtest"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// A backend that cannot replay kernels turns kernel replay into application replay, and says why.
func TestReplayableMode(t *testing.T) {
	refusal := errors.New("no kernel replay: rocprofiler-sdk 1.0.0 has no kernel replay domain")
	for _, tc := range []struct {
		mode    string
		refuse  error
		want    string
		message string
	}{
		{contract.ModeKernel, nil, contract.ModeKernel, ""},
		{contract.ModeKernel, refusal, contract.ModeApplication,
			"gorocprof: note: backend fake: no kernel replay: rocprofiler-sdk 1.0.0 has no kernel replay domain: the application runs once per pass (application replay)\n"},
		{contract.ModeApplication, refusal, contract.ModeApplication, ""},
		{contract.ModeNone, refusal, contract.ModeNone, ""},
	} {
		f := backendtest.New("fake", 1)
		f.NoKernelReplay = tc.refuse
		var stderr strings.Builder
		if got := replayableMode(&stderr, tc.mode, f); got != tc.want || stderr.String() != tc.message {
			t.Errorf("mode %s, refusal %v: %s with %q, want %s with %q", tc.mode, tc.refuse, got, stderr.String(), tc.want, tc.message)
		}
	}
}
