package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// avail, -L and plan hand the backend --rocm-root, else GOROCPROF_ROCM_ROOT, else $ROCM_PATH, else
// /opt/rocm, as the profiling command does.
func TestROCmRootOfAvailAndPlan(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"avail", "--backend", "rocm"}, map[string]string{"ROCM_PATH": ""}, "/opt/rocm"},
		{[]string{"avail", "--backend", "rocm"}, map[string]string{"ROCM_PATH": "/opt/rocm-7.0"}, "/opt/rocm-7.0"},
		{[]string{"-L", "--backend", "rocm"}, map[string]string{"GOROCPROF_ROCM_ROOT": "/env", "ROCM_PATH": "/opt/rocm-7.0"}, "/env"},
		{[]string{"avail", "--rocm-root", "/flag"}, map[string]string{"GOROCPROF_ROCM_ROOT": "/env"}, "/flag"},
		{[]string{"plan", "--backend", "rocm", "--rocm-root", "/flag", "--pmc", "SQ_WAVES"}, nil, "/flag"},
		{[]string{"plan", "--pmc", "SQ_WAVES"}, map[string]string{"GOROCPROF_ROCM_ROOT": "/env"}, "/env"},
	} {
		clearEnv(t)
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		var got backend.Choice
		var out, errOut bytes.Buffer
		f := &Factory{IO: IOStreams{Out: &out, ErrOut: &errOut},
			AvailData: func(_ context.Context, c backend.Choice, _ *counters.Extra) ([]AgentCounters, error) {
				got = c
				return fixtureAgents(), nil
			},
			PlanData: func(_ context.Context, c backend.Choice, _ *counters.Extra, _ []counters.Group) ([]contract.PlanAgent, error) {
				got = c
				return []contract.PlanAgent{}, nil
			},
		}
		if err := Execute(context.Background(), NewRootCmd(f), tc.args); err != nil {
			t.Fatalf("%v: %v (stderr %q)", tc.args, err, errOut.String())
		}
		if got.ROCmRoot != tc.want {
			t.Errorf("%v with %v: the backend got root %q, want %q", tc.args, tc.env, got.ROCmRoot, tc.want)
		}
	}
}

func TestEmptyROCmRoot(t *testing.T) {
	clearEnv(t)
	rec := &recorder{}
	_, stderr, code := runCLI(t, rec, "--rocm-root", "", "--pmc", "SQ_WAVES", "--", "./app")
	if want := "--rocm-root: empty: name the ROCm installation (default $ROCM_PATH, else /opt/rocm)"; code != 1 || !strings.Contains(stderr, want) || len(rec.reqs) != 0 {
		t.Errorf("exit %d, %d runs, stderr %q; want exit 1 with %q", code, len(rec.reqs), stderr, want)
	}
}
