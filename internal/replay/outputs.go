package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
)

// target is one output prefix and the processes whose files it names, in the order of procs.
type target struct {
	dir, file string
	vars      output.PathVars // the first process's, which name the files
	procs     []*records.Process
	files     *output.Files
}

// outputTargets expands -d and -o for every process and gathers the processes whose names come out
// the same (a fixed -o, without %pid%): they share one set of files. Placeholder values of a
// record header that could not be one file name are said on stderr, with what was written instead.
func outputTargets(req Request, procs []*records.Process, launched time.Time, stderr io.Writer) ([]*target, error) {
	var targets []*target
	byPath := map[string]*target{}
	for _, p := range procs {
		vars := req.pathVars(p, launched)
		dir, err := output.ExpandPath(req.OutputDir, vars)
		if err != nil {
			return nil, fmt.Errorf("output directory %q: %w", req.OutputDir, err)
		}
		dir = req.outputDir(dir)
		file, err := output.ExpandPath(req.OutputFile, vars)
		if err != nil {
			return nil, fmt.Errorf("output file %q: %w", req.OutputFile, err)
		}
		for _, a := range vars.Altered() {
			fmt.Fprintf(stderr, "gorocprof: warning: process %d: %%%s%% %q is not a file name (it would leave or add a directory): its output is named with %q\n",
				p.Header.PID, a.Placeholder, a.Value, a.Written)
		}
		key := filepath.Join(dir, file)
		t := byPath[key]
		if t == nil {
			t = &target{dir: dir, file: file, vars: vars}
			byPath[key] = t
			targets = append(targets, t)
		}
		t.procs = append(t.procs, p)
	}
	return targets, nil
}

// writeOutputs streams every process, in order, through the files of its target (-f, with the
// statistics and rocprofv3's summary of the target's processes, printed on stdout or stderr once
// its files are in place), the summary table (nil under --quiet) and the request's own sinks
// (compare's statistics), then puts every target's files in place. A target that fails does not
// keep the others from being written: its error joins the returned one. ctx's cancellation (an
// interrupt) stops it, with the files not complete left unwritten.
func writeOutputs(ctx context.Context, req Request, procs []*records.Process, plan *counters.Plan, launched time.Time, summary *output.SummarySink, stdout, stderr io.Writer) ([]string, error) {
	var targets []*target
	if len(req.Formats) > 0 {
		var err error
		if targets, err = outputTargets(req, procs, launched, stderr); err != nil {
			return nil, err
		}
	}
	byProc := map[*records.Process]*target{}
	for _, t := range targets {
		if note := t.sharedNote(); note != "" {
			fmt.Fprintf(stderr, "gorocprof: note: %s\n", note)
		}
		sum, err := output.NewStatsSummary(req.Summary, req.SummaryTo, t.vars, stdout, stderr)
		if err != nil {
			return nil, err
		}
		t.files = output.NewFiles(ctx, output.Options{
			Dir: t.dir, File: t.file, Formats: req.Formats, KernelTrace: req.KernelTrace, TraceDomains: req.TraceDomains, Stats: req.Stats,
			Summary: sum, Mangled: req.Mangled, Truncate: req.Truncate, AgentIndex: req.AgentIndex, PlanMetadata: plan.Agents, Rotation: rotation(req, plan),
		})
		for _, p := range t.procs {
			byProc[p] = t
		}
	}
	stopped := streamOutputs(ctx, req, procs, plan, byProc, summary)
	var files []string
	var errs []error
	for _, t := range targets {
		if stopped != nil {
			t.files.Abort(stopped)
		}
		written, err := t.files.Close()
		files = append(files, written...)
		if note := output.ReplacedNote(t.files.Replaced()); note != "" {
			fmt.Fprintf(stderr, "gorocprof: note: %s\n", note)
		}
		if err != nil && stopped == nil && err != context.Cause(ctx) {
			errs = append(errs, fmt.Errorf("writing the output of %s: %w", pidList(t.procs), err))
		}
	}
	if stopped != nil {
		return files, stopped
	}
	if err := context.Cause(ctx); err != nil {
		return files, err
	}
	return files, errors.Join(errs...)
}

// streamOutputs streams each process through its sinks. It returns what stops every output: ctx's
// cause, or the failure of a sink that is no target's files; a target whose files fail is left out
// of the streams of its later processes, and its Close reports the failure.
func streamOutputs(ctx context.Context, req Request, procs []*records.Process, plan *counters.Plan, byProc map[*records.Process]*target, summary *output.SummarySink) error {
	for _, p := range procs {
		var sinks []output.Sink
		t := byProc[p]
		if t != nil && t.files.Failed() == nil {
			sinks = append(sinks, t.files)
		}
		if summary != nil {
			sinks = append(sinks, summary)
		}
		sinks = append(sinks, req.sinks...)
		err := output.Stream(p, plan, sinks...)
		if cause := context.Cause(ctx); cause != nil {
			return cause
		}
		if err != nil && (t == nil || t.files.Failed() == nil) {
			return fmt.Errorf("writing the output of process %d: %w", p.Header.PID, err)
		}
	}
	return nil
}

// sharedNote says that several processes share the target's files, and how they are kept.
// Process images of one pid (an exec) share them whatever -o says.
func (t *target) sharedNote() string {
	if len(t.procs) < 2 {
		return ""
	}
	name := filepath.Join(t.dir, t.file)
	pid := t.procs[0].Header.PID
	for _, p := range t.procs[1:] {
		if p.Header.PID != pid {
			return fmt.Sprintf("%s share the output name %s: results.json holds one element per process "+
				"and the CSV files the rows of all; put %%pid%% in -o for files of their own", pidList(t.procs), name)
		}
	}
	return fmt.Sprintf("the %d process images of process %d (exec) share the output name %s: results.json holds one element per image "+
		"and the CSV files the rows of all", len(t.procs), pid, name)
}

// pidList names processes as "process 12" or "processes 12, 13".
func pidList(procs []*records.Process) string {
	pids := make([]string, len(procs))
	for i, p := range procs {
		pids[i] = strconv.FormatInt(p.Header.PID, 10)
	}
	if len(pids) == 1 {
		return "process " + pids[0]
	}
	return "processes " + strings.Join(pids, ", ")
}

// rotation is output.Options.Rotation: the interval and plan of a run that rotated its groups, nil
// otherwise.
func rotation(req Request, plan *counters.Plan) *output.Rotation {
	if req.Mode != contract.ModeRotation {
		return nil
	}
	return &output.Rotation{Interval: groupInterval(req), Plan: plan.Agents}
}
