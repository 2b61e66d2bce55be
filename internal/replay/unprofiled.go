package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
)

// runUnprofiled runs the application of a process outside --profile-mpi-ranks as often as a
// profiled run of the same request would (once, or once per pass of an application replay), so that
// the ranks of an MPI job, which meet in every run, keep meeting; each run has no tool injected and
// writes nothing, as rocprofv3 runs such a rank. It stops at the first run that fails, as an
// application replay does; the exit status is that run's.
func runUnprofiled(ctx context.Context, req Request, plan *counters.Plan, stdout, stderr io.Writer) (Result, error) {
	runs := 1
	if req.Mode == contract.ModeApplication {
		runs = applicationPasses(plan)
	}
	if req.LogLevel == "info" || req.LogLevel == "trace" {
		fmt.Fprintf(stderr, "gorocprof: MPI rank %s is not in --profile-mpi-ranks: %s runs without profiling (%s)\n",
			req.Rank, req.App, plural(runs, "run", "runs"))
	}
	started := time.Now()
	var res Result
	for range runs {
		st, err := launch.Run(ctx, launch.Spec{
			App: req.App, Args: req.Args, Env: unprofiledEnv(os.Environ()),
			Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
		})
		if err != nil {
			return res, err
		}
		res.ExitCode, res.Signal = st.ExitCode, st.SignalName()
		if st.ExitCode != 0 || st.Signaled() {
			break
		}
	}
	res.Elapsed = time.Since(started)
	return res, nil
}

// unprofiledEnv is the application's environment without gorocprof: base less the contract's and
// every backend's injection variables, should gorocprof's own environment hold any.
func unprofiledEnv(base []string) []string {
	return launch.Environ(base, append(slices.Clone(contractVars), backend.InjectionVars...), nil)
}
