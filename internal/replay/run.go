package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Run is the story of one profiling run: plan, write the plan, launch, read the records, write the
// output. The application's exit status is returned in Result; an error means gorocprof itself failed
// or the measurements are incomplete. Everything measured before a failure is still written. Under
// application replay the story repeats once per pass and ends with a merge (application.go). A
// request that Prepare returned is launched with what Prepare found; any other is prepared first.
func Run(ctx context.Context, req Request) (Result, error) {
	stdout, stderr := writerOr(req.Stdout, os.Stdout), writerOr(req.Stderr, os.Stderr)
	var err error
	if req.prepared == nil {
		if req, err = Prepare(ctx, req); err != nil {
			return Result{}, err
		}
	}
	sess, plan := req.prepared.sess, req.prepared.plan
	printNotes(stderr, plan)
	if req.LogLevel == "info" || req.LogLevel == "trace" {
		for _, n := range req.prepared.traceNotes {
			fmt.Fprintf(stderr, "gorocprof: info: %s\n", n)
		}
	}
	req.Mode = effectiveMode(stderr, req.Mode, plan)
	req.Mode = replayableMode(stderr, req.Mode, sess.Backend, plan)
	if req.DryRun {
		if err := PrintPlan(stdout, plan); err != nil {
			return Result{}, err
		}
		if err := printTracing(stdout, req); err != nil {
			return Result{}, err
		}
		return Result{}, printRotation(stdout, req)
	}
	if req.Unprofiled {
		return runUnprofiled(ctx, req, plan, stdout, stderr)
	}
	warnKernelTrace(stderr, req, plan)
	lock, err := lockOutput(req)
	if err != nil {
		return Result{}, err
	}
	defer lock.Release()
	var res Result
	if req.Mode == contract.ModeApplication {
		res, err = runApplication(ctx, req, sess, plan, stdout, stderr)
	} else {
		res, err = runOnce(ctx, req, sess, plan, stdout, stderr)
	}
	reportFiles(stderr, req.LogLevel, res.Files)
	return res, err
}

// warnKernelTrace says once, before launch, that under kernel replay the kernel trace has a row per
// replay pass: each pass really runs the kernel, and the CSV has no column to tell them apart.
func warnKernelTrace(stderr io.Writer, req Request, plan *counters.Plan) {
	if req.Mode != contract.ModeKernel || !req.KernelTrace {
		return
	}
	most := 0
	for _, a := range plan.Agents {
		most = max(most, len(a.Passes))
	}
	if most > 1 {
		fmt.Fprintf(stderr, "gorocprof: warning: the kernel trace (--kernel-trace, which --sys-trace and --runtime-trace turn on) with --replay-mode kernel: every replay pass runs the kernel again, "+
			"so each dispatch is traced once per pass (up to %d times, under one Dispatch_Id); kernel_trace.csv cannot tell the passes apart, "+
			"the replay_pass of results.json's kernel dispatch records does (buffer_records.kernel_dispatch holds "+
			"each dispatch's first pass, gorocprof_replay_kernel_dispatch the others)\n", most)
	}
}

// reportFiles names the output files at --log-level info and trace.
func reportFiles(stderr io.Writer, level string, files []string) {
	if level != "info" && level != "trace" {
		return
	}
	for _, f := range files {
		fmt.Fprintf(stderr, "gorocprof: wrote %s\n", f)
	}
}

// prepared is what Prepare found for a request.
type prepared struct {
	sess   *Session
	plan   *counters.Plan
	inject []string // the backend's variables that inject its tool library
	// traceNotes say what a tracing shorthand left out on this backend (tracing.Resolved.LeftOut).
	traceNotes []string
	// traceVars are what the backend's tool needs to trace the run's domains (backend.TraceVars),
	// set unless the user's environment has them.
	traceVars []string
}

// Prepare checks a request against everything outside the command line, launching nothing: the
// application exists and can be executed (before the backend is chosen, so that a mistyped name is
// reported as such and not as a backend that does not fit it), the backend is usable, and every
// counter of every group is planned onto the agents. The request it returns carries the session
// and the plan, so that Run finds neither again.
func Prepare(ctx context.Context, req Request) (Request, error) {
	return NewPreparer(backend.Choose)(ctx, req)
}

// NewPreparer returns a Prepare that opens one session per backend and application however many
// requests it prepares, on the backends choose returns: the jobs of a sweep are all planned before
// the first one is launched, at the cost of planning one.
func NewPreparer(choose backend.Chooser) func(context.Context, Request) (Request, error) {
	sessions := map[[2]any]*Session{}
	return func(ctx context.Context, req Request) (Request, error) {
		if req.App != "" {
			if _, err := launch.Resolve(req.App); err != nil {
				return req, err
			}
		}
		choice := backend.Choice{Name: req.Backend, ROCmRoot: req.ROCmRoot}
		key := [2]any{choice, req.App} // the jobs of a sweep share it, whatever their counters
		sess := sessions[key]
		if sess == nil {
			var err error
			choice.Ahead = counters.CommonScope(req.Groups)
			if sess, err = OpenSession(ctx, choose, choice, req.App); err != nil {
				return req, err
			}
			sessions[key] = sess
		}
		sess = sess.WithExtra(req.Extra)
		_, inject, err := sess.Backend.Tool()
		if err != nil && req.App != "" {
			return req, fmt.Errorf("%w %s: %w", backend.ErrBackend, sess.Backend.Name(), err)
		}
		plan, err := sess.Plan(ctx, req.Groups)
		if err != nil {
			return req, err
		}
		if err := checkRotation(req, plan); err != nil {
			return req, err
		}
		if err := backend.CheckGraphProfiling(sess.Backend, req.GraphProfiling); err != nil {
			return req, err
		}
		traced, err := tracing.Resolve(req.Tracing, sess.Backend.Name(), sess.Backend.Traces())
		if err != nil {
			return req, err
		}
		req.TraceDomains = traced.Domains
		tracePhase("process start to plan ready", processStart)
		req.prepared = &prepared{sess: sess, plan: plan, inject: inject, traceNotes: traced.LeftOut,
			traceVars: backend.TraceVars(sess.Backend, traced.Domains)}
		return req, nil
	}
}

// runOnce profiles the application in one run: kernel replay, or no replay at all.
func runOnce(ctx context.Context, req Request, sess *Session, plan *counters.Plan, stdout, stderr io.Writer) (Result, error) {
	launched := time.Now()
	info, err := newRunInfo(req, sess, plan, launched, -1, 0)
	if err != nil {
		return Result{}, err
	}
	runDir, planPath, err := prepareRun(contractPlan(req, sess, plan), info)
	if err != nil {
		return Result{}, err
	}
	defer releaseRunDir(runDir)
	announceRunDir(stderr, req.LogLevel, runDir)
	intr := catchInterrupts(stderr)
	defer intr.stop()
	intr.watchRun()
	stopLine := runLine(stderr, req.Quiet, runWhat(req.Mode), runDir, mostPasses(req.Mode, plan))
	st, err := launchApp(ctx, req, sess, runDir, planPath, stdout, stderr)
	stopLine()
	if err != nil {
		_ = os.RemoveAll(runDir)
		return Result{}, err
	}
	res := Result{ExitCode: st.ExitCode, Signal: st.SignalName()}

	octx, release := intr.outputPhase(ctx, st.Signal)
	defer release()
	run, err := readRecords(req, runDir, st)
	defer run.Close()
	var files, problems []string
	if err == nil {
		files, problems, err = collect(octx, req, run, plan, st, launched, stdout, stderr)
	}
	res.Files = files
	if errors.Is(err, errNoRecords) {
		_ = os.RemoveAll(runDir)
		res.Elapsed = time.Since(launched)
		return res, noRecords(req, sess, st)
	}
	res.Elapsed = time.Since(launched)
	if err != nil {
		keptRecords(stderr, "the records are", runDir)
		return res, err
	}
	_ = os.RemoveAll(runDir)
	return res, incomplete(problems)
}

// prepareRun creates a run directory holding the plan, the run's account (run.json) and an empty
// records directory.
func prepareRun(cp contract.Plan, info RunInfo) (runDir, planPath string, err error) {
	runDir, err = os.MkdirTemp("", "gorocprof-run-")
	if err != nil {
		return "", "", fmt.Errorf("creating the run directory: %w", err)
	}
	planPath = filepath.Join(runDir, contract.PlanFile)
	if err := writePlan(planPath, cp); err != nil {
		_ = os.RemoveAll(runDir)
		return "", "", err
	}
	if err := writeRunInfo(runDir, info); err != nil {
		_ = os.RemoveAll(runDir)
		return "", "", err
	}
	if err := os.Mkdir(filepath.Join(runDir, contract.RecordsDir), 0o755); err != nil {
		_ = os.RemoveAll(runDir)
		return "", "", fmt.Errorf("creating %s: %w", filepath.Join(runDir, contract.RecordsDir), err)
	}
	if err := lockRunDir(runDir); err != nil {
		_ = os.RemoveAll(runDir)
		return "", "", err
	}
	return runDir, planPath, nil
}

// announceRunDir names the run directory at --log-level info and trace: should gorocprof be stopped
// before it writes the outputs, the records stay there for `gorocprof process`.
func announceRunDir(stderr io.Writer, level, runDir string) {
	if level == "info" || level == "trace" {
		fmt.Fprintf(stderr, "gorocprof: the records of this run go to %s\n", runDir)
	}
}

// launchApp runs the application once with the tool library injected into runDir's plan.
func launchApp(ctx context.Context, req Request, sess *Session, runDir, planPath string, stdout, stderr io.Writer) (launch.Status, error) {
	return launch.Run(ctx, launch.Spec{
		App: req.App, Args: req.Args,
		Env:   childEnv(req, runDir, planPath),
		Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
		Marker: contract.EnvRunDir + "=" + runDir,
	})
}

// contractVars are the variables of the contract a run sets in the child, replacing the parent's.
var contractVars = []string{contract.EnvContract, contract.EnvRunDir, contract.EnvPlan, contract.EnvLogLevel, contract.EnvCacheControl, contract.EnvGraphProfiling}

// childEnv is the application's environment: gorocprof's own, the contract variables of this run
// and what the backend injects its tool library with (found by Prepare), replacing any the parent
// had under those names (a backend that extends a parent's list, such as LD_PRELOAD, includes it),
// and what the tool needs to trace, where the parent has none of that name.
func childEnv(req Request, runDir, planPath string) []string {
	drop := append(slices.Clone(contractVars), backend.InjectionVars...)
	for _, kv := range req.prepared.inject {
		name, _, _ := strings.Cut(kv, "=")
		drop = append(drop, name)
	}
	inject := slices.Clone(req.prepared.inject)
	for _, kv := range req.prepared.traceVars {
		if name, _, _ := strings.Cut(kv, "="); os.Getenv(name) == "" { // unset, or set to nothing
			drop = append(drop, name)
			inject = append(inject, kv)
		}
	}
	return launch.Environ(os.Environ(), drop, append([]string{
		fmt.Sprintf("%s=%d", contract.EnvContract, contract.Version),
		contract.EnvRunDir + "=" + runDir,
		contract.EnvPlan + "=" + planPath,
		contract.EnvLogLevel + "=" + logLevel(req.LogLevel),
		contract.EnvCacheControl + "=" + cacheControl(req.CacheControl),
		contract.EnvGraphProfiling + "=" + graphProfiling(req.GraphProfiling),
	}, inject...))
}

// effectiveMode is the mode the plan needs: a plan with several passes on some agent and no kernel
// replay (a --pmc group split by the planner) is collected by application replay, as rocprofv3 does.
func effectiveMode(stderr io.Writer, mode string, plan *counters.Plan) string {
	if mode == contract.ModeKernel || mode == contract.ModeApplication || mode == contract.ModeRotation {
		return mode
	}
	for _, a := range plan.Agents {
		if len(a.Passes) > 1 {
			fmt.Fprintf(stderr, "gorocprof: note: %s needs %d passes for these counters: the application runs once per pass (application replay)\n",
				a.Label(), len(a.Passes))
			return contract.ModeApplication
		}
	}
	return contract.ModeNone
}

// replayableMode is application replay when kernel replay was asked for on a backend that cannot
// replay (an SDK without the replay domain), said once before launch; a plan of one pass per agent
// needs no replay at all.
func replayableMode(stderr io.Writer, mode string, b backend.Backend, plan *counters.Plan) string {
	if mode != contract.ModeKernel {
		return mode
	}
	err := b.KernelReplay()
	if err == nil {
		return mode
	}
	if !slices.ContainsFunc(plan.Agents, func(a contract.PlanAgent) bool { return len(a.Passes) > 1 }) {
		return contract.ModeNone
	}
	fmt.Fprintf(stderr, "gorocprof: note: backend %s: %v: the application runs once per pass (application replay)\n", b.Name(), err)
	return contract.ModeApplication
}

func contractPlan(req Request, sess *Session, plan *counters.Plan) contract.Plan {
	mode := req.Mode
	if mode == "" {
		mode = contract.ModeNone
	}
	f := req.Filters
	if f.NameKind == "" {
		f.NameKind = "demangled"
		if req.Truncate {
			f.NameKind = "truncated"
		}
	}
	return contract.Plan{
		Version:         contract.Version,
		Backend:         sess.Backend.Name(),
		ReplayMode:      mode,
		ApplicationPass: -1,
		GroupInterval:   groupInterval(req),
		KernelTrace:     req.KernelTrace,
		TraceDomains:    req.TraceDomains,
		Filters:         f,
		Agents:          plan.Agents,
	}
}

func writePlan(path string, p contract.Plan) error {
	data, err := p.Encode()
	if err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing the plan %s: %w", path, err)
	}
	return nil
}

// readRecords reads every record file of the run once. st is how the launched application ended.
func readRecords(req Request, runDir string, st launch.Status) (records.Run, error) {
	run, err := records.ReadRun(runDir, spoolDir(req))
	if err != nil {
		return run, fmt.Errorf("reading the records of %s: %w", req.App, err)
	}
	if st.PID != 0 && !st.Signaled() {
		// The launched process exited (maybe with _exit, or by exec of a program the tool never
		// entered): its record file lacking an end record is not a crash.
		run.MarkExited(int64(st.PID))
	}
	if len(run.Processes) == 0 && len(run.Unreadable) > 0 {
		return run, fmt.Errorf("reading the records of %s: %s", req.App, strings.Join(run.Unreadable, "; "))
	}
	if len(run.Processes) == 0 {
		return run, errNoRecords
	}
	return run, nil
}

// collect streams each process of the run through the request's sinks (writeOutputs). It returns the
// files written and what makes the measurements incomplete (processProblems; st is how the
// application ended). A ctx cancelled on the way (an interrupt) ends it with its cause.
func collect(ctx context.Context, req Request, run records.Run, plan *counters.Plan, st launch.Status, launched time.Time, stdout, stderr io.Writer) ([]string, []string, error) {
	procs := run.Processes
	var summary *output.SummarySink
	if !req.Quiet {
		summary = output.NewSummary(output.SummaryNames{Mangled: req.Mangled, Truncate: req.Truncate})
	}
	var total int64
	for _, p := range procs {
		total += int64(p.Totals().Dispatches)
	}
	line := newOutputLine(stderr, req.Quiet, total)
	req.sinks = append(slices.Clip(req.sinks), line)
	files, err := writeOutputs(ctx, req, procs, plan, launched, summary, stdout, stderr)
	line.line.Stop()
	if err != nil {
		return files, nil, err
	}
	warnNoMatch(stderr, req, procs)
	problems := run.Unreadable
	for _, p := range procs {
		problems = append(problems, processProblems(req.Mode, st, p)...)
	}
	if summary != nil {
		// On stderr, as rocprofv3's summaries by default: stdout is the application's.
		if err := summary.Print(stderr); err != nil {
			return files, nil, fmt.Errorf("writing the summary: %w", err)
		}
	}
	return files, problems, context.Cause(ctx)
}

// errNoRecords: no process of the run wrote a record file. The tool library starts with the GPU
// runtime (at the first CUDA or simulated-runtime call), so the application ended before it touched
// the GPU; noRecords says so.
var errNoRecords = errors.New("no records")

// noRecords explains a run that measured nothing because no process started the GPU runtime.
func noRecords(req Request, sess *Session, st launch.Status) error {
	// How it ended is AppEnding's to tell.
	ended := "exited"
	if st.Signaled() {
		ended = "ended"
	}
	msg := fmt.Sprintf("nothing was measured: %s %s before it touched the GPU", req.App, ended)
	if why := sess.Backend.NoRecords(req.App); why != "" {
		return fmt.Errorf("%s (%s)", msg, why)
	}
	return errors.New(msg)
}

// plural is "1 <one>" or "n <many>".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func writerOr(w, def io.Writer) io.Writer {
	if w != nil {
		return w
	}
	return def
}

// cacheControl is the --cache-control the tool gets: ncu's default, all, when the request names none.
func cacheControl(c string) string {
	if c == "" {
		return "all"
	}
	return c
}

// graphProfiling is the --graph-profiling the tool gets: ncu's default, node, when the request names none.
func graphProfiling(g string) string {
	if g == "" {
		return backend.GraphProfilingNode
	}
	return g
}

func logLevel(l string) string {
	if l == "" {
		return "warning"
	}
	return l
}

// groupInterval is the plan's group_interval: the request's under rotation (1 when unset, as
// rocprofv3's default), absent otherwise.
func groupInterval(req Request) int {
	if req.Mode != contract.ModeRotation {
		return 0
	}
	return max(req.GroupInterval, 1)
}

// checkRotation refuses, before launch, a rotated group that does not fit one pass of an agent:
// rotation gives each dispatch one pass, so such a group could never be collected whole (rocprofv3
// fails at the first dispatch instead).
func checkRotation(req Request, plan *counters.Plan) error {
	if req.Mode != contract.ModeRotation {
		return nil
	}
	var diags []string
	for _, a := range plan.Agents {
		for _, n := range a.Notes {
			if n.Kind == contract.NoteSplit {
				diags = append(diags, fmt.Sprintf("pmc_groups group %d needs %d passes on %s: under rotation each dispatch collects one pass, so every group must fit one; split it into groups that do",
					n.Group+1, n.Passes, a.Label()))
			}
		}
	}
	if len(diags) > 0 {
		return fmt.Errorf("%s", strings.Join(diags, "; "))
	}
	return nil
}

// runWhat names the run for its progress line.
func runWhat(mode string) string {
	if mode == contract.ModeKernel {
		return "kernel replay"
	}
	return "profiling"
}

// mostPasses is the most passes a dispatch of the plan takes in one run: kernel replay's, else 1.
func mostPasses(mode string, plan *counters.Plan) int {
	most := 1
	if mode == contract.ModeKernel {
		for _, a := range plan.Agents {
			most = max(most, len(a.Passes))
		}
	}
	return most
}
