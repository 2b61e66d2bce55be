package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// ProcessRequest asks for the outputs of kept run directories (`gorocprof process`): one run
// directory, or every pass directory of one application replay.
type ProcessRequest struct {
	RunDirs    []string
	OutputDir  string   // "" keeps the run's -d
	OutputFile string   // "" keeps the run's -o
	Formats    []string // nil keeps the run's -f
	Stdout     io.Writer
	Stderr     io.Writer
}

// Process writes the outputs of run directories that gorocprof kept, or left behind when it was
// stopped: the files and the summary their run would have written from the same records, under the
// run's own -d, -o and -f unless the request names others. The counters are planned again from the
// run's request on the agents it recorded, and must give the plan the run had. One directory is one
// run (a pass of an application replay writes its pass_<n>/ output); the pass directories of an
// application replay together also give its merged result. The application's ending is not known
// here, so only what the records themselves lack is reported.
func Process(ctx context.Context, pr ProcessRequest) (Result, error) {
	if len(pr.RunDirs) == 0 {
		return Result{}, errors.New("no run directory to process")
	}
	pr.Stdout, pr.Stderr = writerOr(pr.Stdout, os.Stdout), writerOr(pr.Stderr, os.Stderr)
	infos := make([]RunInfo, len(pr.RunDirs))
	for i, dir := range pr.RunDirs {
		if err := checkRunEnded(dir); err != nil {
			return Result{}, err
		}
		info, err := ReadRunInfo(dir)
		if err != nil {
			return Result{}, err
		}
		infos[i] = info
	}
	// Nothing here runs an application: from the start, SIGINT or SIGTERM stops the output as it
	// stops a run's output phase, leaving no partial file.
	ctx, release := CatchInterrupts(ctx)
	defer release()
	if len(infos) == 1 {
		res, run, err := processRun(ctx, pr, pr.RunDirs[0], infos[0])
		run.Close()
		return res, err
	}
	return processReplay(ctx, pr, infos)
}

// processRun writes the outputs of one run directory. It returns the run's records, which the
// caller closes, so that a replay merges them without reading them again.
func processRun(ctx context.Context, pr ProcessRequest, dir string, info RunInfo) (Result, records.Run, error) {
	req, plan, err := info.request(ctx, pr)
	if err != nil {
		return Result{}, records.Run{}, fmt.Errorf("%s: %w", dir, err)
	}
	lock, err := lockOutput(req)
	if err != nil {
		return Result{}, records.Run{}, err
	}
	defer lock.Release()
	if info.Mode == contract.ModeApplication && info.ApplicationPass >= 0 {
		// One run of an application replay: its own output, as the replay writes it.
		req.OutputDir = filepath.Join(req.OutputDir, PassDir(info.ApplicationPass))
		req.Quiet = true
		req.Summary = nil
		req.TraceDomains = passTraceDomains(req.TraceDomains, info.ApplicationPass)
	}
	run, err := readRecords(req, dir, launch.Status{})
	if errors.Is(err, errNoRecords) {
		return Result{}, run, fmt.Errorf("%s holds no records: %s ended before it touched the GPU", dir, info.App)
	}
	if err != nil {
		return Result{}, run, err
	}
	res, err := processRecords(ctx, req, plan, run, info, pr)
	return res, run, err
}

// processRecords writes the outputs of a run's records.
func processRecords(ctx context.Context, req Request, plan *counters.Plan, run records.Run, info RunInfo, pr ProcessRequest) (Result, error) {
	files, problems, err := collect(ctx, req, run, plan, launch.Status{}, info.Launched, pr.Stdout, pr.Stderr)
	res := Result{Files: files}
	for _, f := range files {
		fmt.Fprintf(pr.Stderr, "gorocprof: wrote %s\n", f)
	}
	if err != nil {
		return res, err
	}
	return res, incomplete(problems)
}

// processReplay writes the outputs of every pass of one application replay and then merges them,
// as the replay would have: each pass's own output, then the merged result and its summary.
func processReplay(ctx context.Context, pr ProcessRequest, infos []RunInfo) (Result, error) {
	dirs, first, err := replayPasses(pr.RunDirs, infos)
	if err != nil {
		return Result{}, err
	}
	var res Result
	var runs [][]*records.Process
	defer func() {
		for _, ps := range runs {
			records.Run{Processes: ps}.Close()
		}
	}()
	for i, dir := range dirs {
		r, run, err := processRun(ctx, pr, dir, infos[slices.Index(pr.RunDirs, dir)])
		runs = append(runs, run.Processes)
		res.Files = append(res.Files, r.Files...)
		if err != nil {
			return res, fmt.Errorf("pass %d (%s): %w", i+1, dir, err)
		}
	}
	merged, rep, err := MergeRuns(runs)
	defer records.Run{Processes: merged}.Close()
	res.Divergences = rep.Divergences
	if err != nil {
		return res, err
	}
	req, plan, err := first.request(ctx, pr)
	if err != nil {
		return res, err
	}
	out, err := processRecords(ctx, req, plan, records.Run{Processes: merged}, first, pr)
	res.Files = append(res.Files, out.Files...)
	if err == nil && len(rep.Divergences) > 0 {
		err = reportDivergences(pr.Stderr, first.App, rep.Divergences, first.AllowDivergence)
	}
	return res, err
}

// replayPasses puts the directories of one application replay in pass order and returns them with
// the first pass's account: every pass once, all of one request.
func replayPasses(dirs []string, infos []RunInfo) ([]string, RunInfo, error) {
	ordered := make([]string, len(dirs))
	var first RunInfo
	for i, info := range infos {
		if info.Mode != contract.ModeApplication || info.ApplicationPass < 0 || info.ApplicationPass >= len(dirs) ||
			info.ApplicationPasses != len(dirs) {
			return nil, first, fmt.Errorf("%s is not one of the %d pass directories of an application replay: several run directories are processed together only as every pass of one replay, each once", dirs[i], len(dirs))
		}
		if ordered[info.ApplicationPass] != "" {
			return nil, first, fmt.Errorf("%s and %s are both pass %d", ordered[info.ApplicationPass], dirs[i], info.ApplicationPass+1)
		}
		if !sameRequest(info, infos[0]) {
			return nil, first, fmt.Errorf("%s and %s are passes of different runs", dirs[0], dirs[i])
		}
		ordered[info.ApplicationPass] = dirs[i]
		if info.ApplicationPass == 0 {
			first = info
		}
	}
	first.ApplicationPass = -1 // the merged records
	return ordered, first, nil
}

// sameRequest reports whether two passes' accounts differ only in their pass and launch time.
func sameRequest(a, b RunInfo) bool {
	a.ApplicationPass, b.ApplicationPass = 0, 0
	a.Launched, b.Launched = time.Time{}, time.Time{}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// request is the run's request with the overrides of pr, and its plan.
func (info RunInfo) request(ctx context.Context, pr ProcessRequest) (Request, *counters.Plan, error) {
	req, plan, err := info.replan(ctx)
	if err != nil {
		return req, nil, err
	}
	req.saved = &savedRun{cwd: info.CWD, env: info.PathEnv, baseDir: info.CWD}
	if pr.OutputDir != "" {
		req.OutputDir, req.saved.baseDir = pr.OutputDir, ""
	}
	if pr.OutputFile != "" {
		req.OutputFile = pr.OutputFile
	}
	if pr.Formats != nil {
		req.Formats = pr.Formats
	}
	return req, plan, nil
}

// replan rebuilds the run's request and plans its counters on the agents it recorded; the plan must
// be the one the run had, or the records would be read against other counters.
func (info RunInfo) replan(ctx context.Context) (Request, *counters.Plan, error) {
	groups, err := counters.ParseGroups(info.PMC)
	if err != nil {
		return Request{}, nil, fmt.Errorf("%s: %w", RunInfoFile, err)
	}
	// The saved agents are planned on, not the ones this machine has: their catalogs come from the
	// backend (the sim's own, NVIDIA's from the query helper or its cache).
	b, err := backend.Choose(ctx, backend.Choice{Name: info.Backend, ROCmRoot: info.ROCmRoot}, "")
	if err != nil {
		return Request{}, nil, err
	}
	var extra *counters.Extra
	if info.ExtraCounters != "" {
		if extra, err = counters.ParseExtra(RunInfoFile+" extra_counters", []byte(info.ExtraCounters)); err != nil {
			return Request{}, nil, err
		}
	}
	sess := &Session{Backend: b, Agents: info.Agents, Extra: extra}
	plan, err := sess.Plan(ctx, groups)
	if err != nil {
		return Request{}, nil, err
	}
	got, err := json.Marshal(plan.Agents)
	if err != nil {
		return Request{}, nil, fmt.Errorf("encoding the plan: %w", err)
	}
	var want bytes.Buffer
	if err := json.Compact(&want, info.Plan); err != nil || !bytes.Equal(got, want.Bytes()) {
		return Request{}, nil, fmt.Errorf("the counter catalogs of this gorocprof plan %q differently from the run (its %s holds another plan)", info.PMC, RunInfoFile)
	}
	req := Request{
		Backend: info.Backend, ROCmRoot: info.ROCmRoot, Groups: groups, Extra: extra, Mode: info.Mode, GroupInterval: info.GroupInterval, KernelTrace: info.KernelTrace, Stats: info.Stats, Filters: info.Filters,
		Tracing: info.Tracing, TraceDomains: info.TraceDomains,
		OutputDir: info.OutputDir, OutputFile: info.OutputFile, Formats: info.Formats,
		Mangled: info.Mangled, Truncate: info.Truncate, AgentIndex: info.AgentIndex, Quiet: info.Quiet, LogLevel: info.LogLevel,
		AllowDivergence: info.AllowDivergence, App: info.App, Args: info.Args,
		Summary: info.Summary, SummaryTo: info.SummaryTo,
		RankVariables: output.RankVariables{Rank: info.MPIRankVariable, Size: info.MPISizeVariable},
	}
	return req, plan, nil
}
