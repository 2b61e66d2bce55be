package replay

import (
	"context"
	"encoding/json"
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
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// ErrIncomplete marks a run whose application succeeded but whose measurements are incomplete
// (a declined replay, a fatal record, a process that ended early): gorocprof must not exit 0.
var ErrIncomplete = errors.New("profiling incomplete")

// Run is the story of one profiling run: plan, write the plan, launch, read the records, write the
// output. The application's exit status is returned in Result; an error means gorocprof itself failed
// or the measurements are incomplete. Everything measured before a failure is still written. Under
// application replay the story repeats once per pass and ends with a merge (application.go).
func Run(ctx context.Context, req Request) (Result, error) {
	stdout, stderr := writerOr(req.Stdout, os.Stdout), writerOr(req.Stderr, os.Stderr)
	sess, err := OpenSession(ctx, req.Backend, req.App)
	if err != nil {
		return Result{}, err
	}
	planned := time.Now()
	plan, err := sess.Plan(req.Groups)
	if err != nil {
		return Result{}, err
	}
	tracePhase("passes", planned)
	tracePhase("process start to plan ready", processStart)
	printNotes(stderr, plan)
	req.Mode = effectiveMode(stderr, req.Mode, plan)
	if req.DryRun {
		return Result{}, PrintPlan(stdout, sess, plan)
	}
	if req.Mode == contract.ModeApplication {
		return runApplication(ctx, req, sess, plan, stdout, stderr)
	}
	return runOnce(ctx, req, sess, plan, stdout, stderr)
}

// runOnce profiles the application in one run: kernel replay, or no replay at all.
func runOnce(ctx context.Context, req Request, sess *Session, plan *counters.Plan, stdout, stderr io.Writer) (Result, error) {
	runDir, planPath, err := prepareRun(contractPlan(req, sess, plan))
	if err != nil {
		return Result{}, err
	}
	launched := time.Now()
	st, err := launchApp(ctx, req, sess, runDir, planPath, stdout, stderr)
	if err != nil {
		_ = os.RemoveAll(runDir)
		return Result{}, err
	}
	res := Result{ExitCode: st.ExitCode, Signal: st.SignalName()}

	files, incomplete, err := collect(req, runDir, plan, launched, stdout, stderr)
	res.Files = files
	if err == nil && req.inspect != nil {
		err = req.inspect(runDir, plan)
	}
	res.Elapsed = time.Since(launched)
	if err != nil {
		fmt.Fprintf(stderr, "gorocprof: the records are kept in %s\n", runDir)
		return res, err
	}
	_ = os.RemoveAll(runDir)
	if incomplete != "" && st.ExitCode == 0 {
		return res, fmt.Errorf("%w: %s", ErrIncomplete, incomplete)
	}
	return res, nil
}

// prepareRun creates a run directory holding the plan and an empty records directory.
func prepareRun(cp contract.Plan) (runDir, planPath string, err error) {
	runDir, err = os.MkdirTemp("", "gorocprof-run-")
	if err != nil {
		return "", "", fmt.Errorf("creating the run directory: %w", err)
	}
	planPath = filepath.Join(runDir, contract.PlanFile)
	if err := writePlan(planPath, cp); err != nil {
		_ = os.RemoveAll(runDir)
		return "", "", err
	}
	if err := os.Mkdir(filepath.Join(runDir, contract.RecordsDir), 0o755); err != nil {
		_ = os.RemoveAll(runDir)
		return "", "", fmt.Errorf("creating %s: %w", filepath.Join(runDir, contract.RecordsDir), err)
	}
	return runDir, planPath, nil
}

// launchApp runs the application once with the tool library injected into runDir's plan.
func launchApp(ctx context.Context, req Request, sess *Session, runDir, planPath string, stdout, stderr io.Writer) (launch.Status, error) {
	st, err := launch.Run(ctx, launch.Spec{
		App: req.App, Args: req.Args,
		Env:   childEnv(req, sess, runDir, planPath),
		Stdin: os.Stdin, Stdout: stdout, Stderr: stderr,
	})
	if err == nil && st.Signaled() {
		fmt.Fprintf(stderr, "gorocprof: %s was %s\n", req.App, st)
	}
	return st, err
}

// effectiveMode is the mode the plan needs: a plan with several passes on some agent and no kernel
// replay (a --pmc group split by the planner) is collected by application replay, as rocprofv3 does.
func effectiveMode(stderr io.Writer, mode string, plan *counters.Plan) string {
	if mode == contract.ModeKernel || mode == contract.ModeApplication {
		return mode
	}
	for _, a := range plan.Agents {
		if len(a.Passes) > 1 {
			fmt.Fprintf(stderr, "gorocprof: note: agent %d (%s) needs %d passes for these counters: the application runs once per pass (application replay)\n",
				a.Index, a.Name, len(a.Passes))
			return contract.ModeApplication
		}
	}
	return contract.ModeNone
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
		Backend:         sess.Backend.Name,
		ReplayMode:      mode,
		ApplicationPass: -1,
		KernelTrace:     req.KernelTrace,
		Filters:         f,
		Agents:          plan.Contract(),
	}
}

func writePlan(path string, p contract.Plan) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the plan: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the plan %s: %w", path, err)
	}
	return nil
}

// collect reads every record file of the run and writes each process's output. It returns the files
// written and a description of what is incomplete (empty when nothing is).
func collect(req Request, runDir string, plan *counters.Plan, launched time.Time, stdout, stderr io.Writer) ([]string, string, error) {
	// Scanned, not loaded: memory follows the kernels, not the number of dispatches.
	procs, err := records.ScanRunDir(runDir)
	if err != nil {
		return nil, "", fmt.Errorf("reading the records of %s: %w", req.App, err)
	}
	if len(procs) == 0 {
		return nil, "", fmt.Errorf("%s wrote no records: the tool library was not loaded (is it a %s application?)", req.App, backendWord(plan))
	}
	cs := plan
	var files, warnings, problems []string
	for _, p := range procs {
		written, err := writeProcess(req, p, plan, cs, launched)
		files = append(files, written...)
		if err != nil {
			return files, "", err
		}
		w, pr := processProblems(req, p)
		warnings, problems = append(warnings, w...), append(problems, pr...)
	}
	if !req.Quiet {
		if err := output.Summary(stdout, procs, cs); err != nil {
			return files, "", fmt.Errorf("writing the summary: %w", err)
		}
	}
	for _, w := range append(warnings, problems...) {
		fmt.Fprintf(stderr, "gorocprof: warning: %s\n", w)
	}
	return files, strings.Join(problems, "; "), nil
}

func backendWord(plan *counters.Plan) string {
	if len(plan.Agents) == 0 {
		return "GPU"
	}
	return plan.Agents[0].Name
}

func writeProcess(req Request, p *records.Process, plan *counters.Plan, cs output.Counters, launched time.Time) ([]string, error) {
	cwd, _ := os.Getwd()
	vars := output.PathVars{Hostname: p.Header.Hostname, PID: p.Header.PID, PPID: p.Header.PPID, CWD: cwd, Launch: launched, Args: p.Header.Cmdline}
	vars.FromEnv(os.Getenv)
	dir, err := output.ExpandPath(req.OutputDir, vars)
	if err != nil {
		return nil, fmt.Errorf("output directory %q: %w", req.OutputDir, err)
	}
	file, err := output.ExpandPath(req.OutputFile, vars)
	if err != nil {
		return nil, fmt.Errorf("output file %q: %w", req.OutputFile, err)
	}
	files, err := output.Write(output.Options{
		Dir: dir, File: file, Formats: req.Formats, KernelTrace: req.KernelTrace,
		Mangled: req.Mangled, Truncate: req.Truncate, PlanMetadata: planMetadata(plan),
	}, p, cs)
	if err != nil {
		return files, fmt.Errorf("writing the output of process %d: %w", p.Header.PID, err)
	}
	return files, nil
}

// processProblems lists what the user must know about one process's measurements: warnings, and
// problems that make its measurements incomplete.
func processProblems(req Request, p *records.Process) (warnings, out []string) {
	who := fmt.Sprintf("process %d", p.Header.PID)
	for _, d := range p.Declines {
		out = append(out, fmt.Sprintf("%s: dispatch %d was not replayed: %s", who, d.DispatchID, d.Reason))
	}
	for _, f := range p.Fatals {
		out = append(out, fmt.Sprintf("%s: %s", who, f))
	}
	for _, w := range p.Warnings {
		warnings = append(warnings, fmt.Sprintf("%s: %s", who, w))
	}
	for _, pr := range p.Problems {
		out = append(out, fmt.Sprintf("%s: %s", who, pr))
	}
	if req.Mode == contract.ModeKernel {
		for _, m := range p.MissingPasses() {
			out = append(out, fmt.Sprintf("%s: %s", who, m))
		}
	}
	if !p.Ended() {
		out = append(out, fmt.Sprintf("%s ended before the tool library finished (crash or signal): its output holds every dispatch completed before that", who))
	}
	return warnings, out
}

func writerOr(w, def io.Writer) io.Writer {
	if w != nil {
		return w
	}
	return def
}

// childEnv is the application's environment: the caller's, the contract's and the backend's variables.
func childEnv(req Request, sess *Session, runDir, planPath string) []string {
	return append(sess.Backend.InjectionEnv(os.Environ(), runDir, planPath, logLevel(req.LogLevel)),
		contract.EnvCacheControl+"="+cacheControl(req.CacheControl))
}

func cacheControl(c string) string {
	if c == "" {
		return "all"
	}
	return c
}

func logLevel(l string) string {
	if l == "" {
		return "warning"
	}
	return l
}
