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

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/querycache"
)

// ProcessRequest asks for the outputs of a kept run directory (`gorocprof process`).
type ProcessRequest struct {
	RunDir     string
	OutputDir  string   // "" keeps the run's -d
	OutputFile string   // "" keeps the run's -o
	Formats    []string // nil keeps the run's -f
	Stdout     io.Writer
	Stderr     io.Writer
}

// Process writes the outputs of a run directory that gorocprof kept, or left behind when it was
// stopped: the files and the summary its run would have written from the same records, under the
// run's own -d, -o and -f unless the request names others. The counters are planned again from the
// run's request on the agents it recorded, and must give the plan the run had. The application's
// ending is not known here, so only what the records themselves lack is reported.
func Process(ctx context.Context, pr ProcessRequest) (Result, error) {
	stdout, stderr := writerOr(pr.Stdout, os.Stdout), writerOr(pr.Stderr, os.Stderr)
	info, err := ReadRunInfo(pr.RunDir)
	if err != nil {
		return Result{}, err
	}
	req, plan, err := info.replan(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", pr.RunDir, err)
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
	if info.Mode == contract.ModeApplication && info.ApplicationPass >= 0 {
		// One run of an application replay: its own output, as the replay writes it.
		req.OutputDir = filepath.Join(req.OutputDir, PassDir(info.ApplicationPass))
		req.Quiet = true
	}
	files, problems, err := collect(req, pr.RunDir, plan, launch.Status{}, info.Launched, stdout)
	res := Result{Files: files}
	for _, f := range files {
		fmt.Fprintf(stderr, "gorocprof: wrote %s\n", f)
	}
	if errors.Is(err, errNoRecords) {
		return res, fmt.Errorf("%s holds no records: %s ended before it touched the GPU", pr.RunDir, info.App)
	}
	if err != nil {
		return res, err
	}
	return res, incomplete(problems)
}

// replan rebuilds the run's request and plans its counters on the agents it recorded; the plan must
// be the one the run had, or the records would be read against other counters.
func (info RunInfo) replan(ctx context.Context) (Request, *counters.Plan, error) {
	groups, err := counters.ParseGroups(info.PMC)
	if err != nil {
		return Request{}, nil, fmt.Errorf("%s: %w", RunInfoFile, err)
	}
	b := launch.Backend{Name: info.Backend}
	if info.Backend == launch.BackendCUDA {
		// NVIDIA catalogs come from the query helper (or the query cache).
		libDir, err := launch.LibDir()
		if err != nil {
			return Request{}, nil, err
		}
		if b, err = launch.FindBackend(info.Backend, libDir); err != nil {
			return Request{}, nil, err
		}
	}
	sess, err := newSession(ctx, querycache.Open(), b, info.Agents)
	if err != nil {
		return Request{}, nil, err
	}
	plan, err := sess.Plan(groups)
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
		Backend: info.Backend, Groups: groups, Mode: info.Mode, KernelTrace: info.KernelTrace, Filters: info.Filters,
		OutputDir: info.OutputDir, OutputFile: info.OutputFile, Formats: info.Formats,
		Mangled: info.Mangled, Truncate: info.Truncate, Quiet: info.Quiet, LogLevel: info.LogLevel,
		AllowDivergence: info.AllowDivergence, App: info.App, Args: info.Args,
	}
	return req, plan, nil
}
