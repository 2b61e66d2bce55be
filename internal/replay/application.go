package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
)

// runApplication profiles by application replay: the application runs once per pass index, each
// run collecting that pass on every agent. Each run's output goes to <dir>/pass_<i+1>/ (rocprofv3's
// layout); then the runs are merged into one result at <dir>/<file>_*, every pass's counters on
// their logical dispatch. A run that fails stops the remaining ones; what was written is kept.
func runApplication(ctx context.Context, req Request, sess *Session, plan *counters.Plan, stdout, stderr io.Writer) (Result, error) {
	passes := applicationPasses(plan)
	base := contractPlan(req, sess, plan)
	prog := newProgress(stderr, passes)
	started := time.Now()
	var res Result
	var runDirs, problems []string
	keep := false
	defer func() {
		if !keep {
			for _, d := range runDirs {
				_ = os.RemoveAll(d)
			}
		}
	}()
	fail := func(err error) (Result, error) {
		prog.finish()
		res.Elapsed = time.Since(started)
		return res, err
	}

	var firstLaunch time.Time
	for i := 0; i < passes; i++ {
		runDir, planPath, err := prepareRun(applicationPlan(base, i, passes))
		if err != nil {
			return fail(err)
		}
		runDirs = append(runDirs, runDir)
		launched := time.Now()
		if i == 0 {
			firstLaunch = launched
		}
		prog.startPass(i, runDir)
		st, err := launchApp(ctx, req, sess, runDir, planPath, stdout, stderr)
		prog.endPass(err == nil && st.ExitCode == 0)
		if err != nil {
			return fail(fmt.Errorf("application replay pass %d of %d: %w", i+1, passes, err))
		}
		passReq := req
		passReq.OutputDir = filepath.Join(req.OutputDir, PassDir(i))
		passReq.Quiet = true
		if !st.Signaled() {
			passReq.exited = int64(st.PID)
		}
		// A run's warnings reach the merged records, which report them once, with their pass; only
		// a run that ends the replay reports its own.
		passWarnings := io.Discard
		if st.ExitCode != 0 || st.Signaled() {
			passWarnings = stderr
		}
		files, incomplete, err := collect(passReq, runDir, plan, launched, stdout, passWarnings)
		res.Files = append(res.Files, files...)
		if err != nil {
			keep = true
			fmt.Fprintf(stderr, "gorocprof: the records of pass %d are kept in %s\n", i+1, runDir)
		}
		if st.ExitCode != 0 || st.Signaled() {
			res.ExitCode, res.Signal = st.ExitCode, st.SignalName()
			msg := fmt.Sprintf("application replay pass %d of %d: %s %s; the remaining passes were not run and the output of the passes run so far is kept",
				i+1, passes, req.App, st)
			if err != nil {
				return fail(fmt.Errorf("%s: %w", msg, err))
			}
			return fail(errors.New(msg))
		}
		if err != nil {
			return fail(fmt.Errorf("application replay pass %d of %d: %w", i+1, passes, err))
		}
		if incomplete != "" {
			problems = append(problems, fmt.Sprintf("pass %d: %s", i+1, incomplete))
		}
	}
	prog.finish()

	mergeDir, err := os.MkdirTemp("", "gorocprof-merge-")
	if err != nil {
		return fail(fmt.Errorf("creating the merge directory: %w", err))
	}
	rep, err := MergeRuns(runDirs, mergeDir)
	runDirs = append(runDirs, mergeDir)
	res.Divergences = rep.Divergences
	if err != nil {
		keep = true
		fmt.Fprintf(stderr, "gorocprof: the records of every pass are kept in %s\n", strings.Join(runDirs[:passes], " "))
		return fail(err)
	}
	files, incomplete, err := collect(req, mergeDir, plan, firstLaunch, stdout, stderr)
	res.Files = append(res.Files, files...)
	if err == nil && req.inspect != nil {
		err = req.inspect(mergeDir, plan)
	}
	res.Elapsed = time.Since(started)
	if err != nil {
		keep = true
		fmt.Fprintf(stderr, "gorocprof: the merged records are kept in %s\n", mergeDir)
		return res, err
	}
	if len(rep.Divergences) > 0 {
		fmt.Fprintf(stderr, "gorocprof: %s: the application replay runs dispatched different kernels; the merged result holds the dispatches of pass 1 with the passes that match them:\n", req.App)
		PrintDivergences(stderr, "gorocprof:   ", rep.Divergences)
		if !req.AllowDivergence {
			return res, fmt.Errorf("%w: %d difference(s) between the runs (listed above); --allow-divergence accepts the merged result",
				ErrDivergence, len(rep.Divergences))
		}
	}
	if incomplete != "" && len(problems) == 0 {
		problems = append(problems, incomplete)
	}
	if len(problems) > 0 {
		return res, fmt.Errorf("%w: %s", ErrIncomplete, strings.Join(problems, "; "))
	}
	return res, nil
}

// PassDir is the directory of pass i's own output under the output directory (rocprofv3 numbers the
// passes from 1).
func PassDir(i int) string { return fmt.Sprintf("pass_%d", i+1) }

// applicationPasses is how many runs an application replay takes: the most passes of any agent,
// and one run at least (an application replay of a kernel trace alone).
func applicationPasses(plan *counters.Plan) int {
	n := 1
	for _, a := range plan.Agents {
		n = max(n, len(a.Passes))
	}
	return n
}

// applicationPlan is the plan of run i of n. Every agent lists n passes, those beyond its own
// collecting nothing, so that each record of the run says pass i of n whatever its agent: the
// pass index of a record always lies within its pass count, and the merged result reads as one
// replay of n passes.
func applicationPlan(base contract.Plan, i, n int) contract.Plan {
	p := base
	p.ReplayMode = contract.ModeApplication
	p.ApplicationPass = i
	p.Agents = make([]contract.PlanAgent, len(base.Agents))
	for k, a := range base.Agents {
		passes := append([]contract.PlanPass(nil), a.Passes...)
		group := 0
		if len(passes) > 0 {
			group = passes[len(passes)-1].Group
		}
		for len(passes) < n {
			passes = append(passes, contract.PlanPass{Group: group, Counters: []contract.PlanCounter{}})
		}
		a.Passes = passes
		p.Agents[k] = a
	}
	return p
}
