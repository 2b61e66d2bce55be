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
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/records"
)

// runApplication profiles by application replay: the application runs once per pass index, each
// run collecting that pass on every agent. Each run's output goes to <dir>/pass_<i+1>/ (rocprofv3's
// layout); then the runs are merged into one result at <dir>/<file>_*, every pass's counters on
// their logical dispatch. A run that fails stops the remaining ones; what was written is kept.
func runApplication(ctx context.Context, req Request, sess *Session, plan *counters.Plan, stdout, stderr io.Writer) (Result, error) {
	started := time.Now()
	ps := &passRuns{}
	defer ps.close()
	intr := catchInterrupts(stderr)
	defer intr.stop()
	res, err := ps.runAll(ctx, req, sess, plan, intr, stdout, stderr)
	if err != nil {
		res.Elapsed = time.Since(started)
		return res, err
	}
	return ps.writeMerged(ctx, req, plan, intr, res, started, stdout, stderr)
}

// passRuns are the runs of an application replay so far: each pass's processes, read once for its
// own output and the merge, and the run directories, removed at the end unless kept.
type passRuns struct {
	runs     [][]*records.Process
	dirs     []string
	problems []string  // what the passes' records lack, pass by pass
	first    time.Time // the first pass's launch
	keep     bool      // the run directories stay for a look
}

func (ps *passRuns) close() {
	for _, p := range ps.runs {
		records.Run{Processes: p}.Close()
	}
	if !ps.keep {
		for _, d := range ps.dirs {
			_ = os.RemoveAll(d)
		}
	}
}

// runAll runs the passes in order, each writing its own output. A pass that fails, or an interrupt
// during one that is not the last, stops the replay; res says how the last run application ended.
func (ps *passRuns) runAll(ctx context.Context, req Request, sess *Session, plan *counters.Plan, intr *interrupts, stdout, stderr io.Writer) (Result, error) {
	passes := applicationPasses(plan)
	base := contractPlan(req, sess, plan)
	prog := newProgress(stderr, passes)
	defer prog.finish()
	var res Result
	for i := 0; i < passes; i++ {
		pr, err := runPass(ctx, req, sess, plan, applicationPlan(base, i, passes), passes, intr, prog, stdout, stderr)
		if pr.dir != "" {
			ps.dirs = append(ps.dirs, pr.dir)
		}
		ps.runs = append(ps.runs, pr.run.Processes)
		res.Files = append(res.Files, pr.files...)
		res.ExitCode, res.Signal = pr.st.ExitCode, pr.st.SignalName()
		ps.keep = ps.keep || pr.keep
		if i == 0 {
			ps.first = pr.launched
		}
		if err != nil {
			return res, err
		}
		if len(pr.problems) > 0 {
			ps.problems = append(ps.problems, fmt.Sprintf("pass %d: %s", i+1, strings.Join(pr.problems, "; ")))
		}
		if intr.during != 0 && i+1 < passes {
			return res, &PassesInterruptedError{Signal: intr.during, Pass: i + 1, Passes: passes}
		}
	}
	return res, nil
}

// writeMerged merges the passes into one result and writes its output; res is how the passes went.
// Records that could not be merged or written are kept.
func (ps *passRuns) writeMerged(ctx context.Context, req Request, plan *counters.Plan, intr *interrupts, res Result, started time.Time, stdout, stderr io.Writer) (Result, error) {
	octx, release := intr.outputPhase(ctx, 0)
	defer release()
	merged, rep, err := MergeRuns(ps.runs)
	res.Divergences = rep.Divergences
	if err != nil {
		ps.keep = true
		keptRecords(stderr, "the records of every pass are", ps.dirs...)
		res.Elapsed = time.Since(started)
		return res, err
	}
	defer records.Run{Processes: merged}.Close()
	files, mergedProblems, err := collect(octx, req, records.Run{Processes: merged}, plan, launch.Status{}, ps.first, stdout, stderr)
	res.Files = append(res.Files, files...)
	res.Elapsed = time.Since(started)
	if err != nil {
		ps.keep = true
		keptRecords(stderr, "the records of every pass are", ps.dirs...)
		return res, err
	}
	if len(rep.Divergences) > 0 && !req.ownDivergences {
		if err := reportDivergences(stderr, req.App, rep.Divergences, req.AllowDivergence); err != nil {
			return res, err
		}
	}
	// The merged records repeat what the passes lacked (their declines, fatal records and early
	// ends), so they speak only when no pass did.
	if len(ps.problems) > 0 {
		return res, incomplete(ps.problems)
	}
	return res, incomplete(mergedProblems)
}

// reportDivergences lists where the runs of an application replay disagreed; the error is the run's
// unless divergence is allowed.
func reportDivergences(stderr io.Writer, app string, ds []Divergence, allow bool) error {
	fmt.Fprintf(stderr, "gorocprof: %s: the application replay runs dispatched different kernels; the merged result holds the dispatches of pass 1 with the passes that match them:\n", app)
	PrintDivergences(stderr, "gorocprof:   ", ds)
	if allow {
		return nil
	}
	return fmt.Errorf("%w: %d difference(s) between the runs (listed above); --allow-divergence accepts the merged result", ErrDivergence, len(ds))
}

// passRun is one run of an application replay.
type passRun struct {
	dir      string // its run directory
	launched time.Time
	st       launch.Status
	run      records.Run // its processes, for the merge; the caller closes them
	files    []string    // the output written under <dir>/pass_<i+1>/
	problems []string    // what its records lack (processProblems)
	keep     bool        // its records stay for a look: they could not be turned into output
}

// runPass runs pass cp.ApplicationPass of the n of an application replay and writes its output. The error
// is what stops the replay at this pass: the application failed, or its records could not be read or
// written.
func runPass(ctx context.Context, req Request, sess *Session, plan *counters.Plan, cp contract.Plan, n int, intr *interrupts, prog progress, stdout, stderr io.Writer) (passRun, error) {
	i := cp.ApplicationPass
	pr := passRun{launched: time.Now()}
	info, err := newRunInfo(req, sess, plan, pr.launched, i, n)
	if err != nil {
		return pr, err
	}
	runDir, planPath, err := prepareRun(cp, info)
	if err != nil {
		return pr, err
	}
	pr.dir = runDir
	defer releaseRunDir(runDir)
	announceRunDir(stderr, req.LogLevel, runDir)
	prog.startPass(i, runDir)
	intr.watchRun()
	pr.st, err = launchApp(ctx, req, sess, runDir, planPath, stdout, stderr)
	prog.endPass(err == nil && pr.st.ExitCode == 0)
	if err != nil {
		return pr, fmt.Errorf("application replay pass %d of %d: %w", i+1, n, err)
	}
	passReq := req
	passReq.OutputDir = filepath.Join(req.OutputDir, PassDir(i))
	passReq.Quiet = true
	passReq.TraceDomains = cp.TraceDomains
	passReq.sinks = nil // the caller's sinks see the merged result, not each pass
	// rocprofv3's summary is of the merged result, as the summary table is.
	passReq.Summary = nil
	octx, release := intr.outputPhase(ctx, pr.st.Signal)
	defer release()
	pr.run, err = readRecords(passReq, runDir, pr.st)
	if err == nil {
		pr.files, pr.problems, err = collect(octx, passReq, pr.run, plan, pr.st, pr.launched, stdout, stderr)
	}
	if errors.Is(err, errNoRecords) {
		err = noRecords(req, sess, pr.st)
	} else if err != nil {
		pr.keep = true
		keptRecords(stderr, fmt.Sprintf("the records of pass %d are", i+1), runDir)
	}
	if pr.st.ExitCode != 0 || pr.st.Signaled() {
		// The caller tells how the application ended (AppEnding); this says what it means for the
		// replay and what the records of this pass lack.
		if err == nil {
			err = incomplete(pr.problems)
		}
		if err != nil {
			return pr, fmt.Errorf("%s: %w", passEnded(i, n), err)
		}
		return pr, errors.New(passEnded(i, n))
	}
	if err != nil {
		return pr, fmt.Errorf("application replay pass %d of %d: %w", i+1, n, err)
	}
	return pr, nil
}

// passTraceDomains are the domains run i of an application replay traces: the first run's, none
// on the others.
func passTraceDomains(domains []string, i int) []string {
	if i > 0 {
		return nil
	}
	return domains
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
	// The application's calls, markers and copies are the same on every run: the first traces them.
	p.TraceDomains = passTraceDomains(base.TraceDomains, i)
	p.Agents = make([]contract.PlanAgent, len(base.Agents))
	for k, a := range base.Agents {
		passes := append([]contract.PlanPass(nil), a.Passes...)
		group := 0
		if len(passes) > 0 {
			group = passes[len(passes)-1].Group
		}
		for len(passes) < n {
			passes = append(passes, contract.PlanPass{Group: group, Base: []contract.PlanCounter{}})
		}
		a.Passes = passes
		p.Agents[k] = a
	}
	return p
}
