// Package merge writes one result from the results of several processes (`gorocprof merge`): the
// results.json files and rocpd databases of MPI ranks, of separate runs, of many nodes. Every
// process is kept, as one results.json element and its own rows, with ids that never collide
// (ids.go); the inputs are read back into records and streamed through the same sinks as a run's,
// one process at a time.
package merge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/stats"
)

// Request is one merge.
type Request struct {
	Inputs     []string // results.json files, rocpd databases, directories holding them
	OutputDir  string   // -d
	OutputFile string   // -o, below OutputDir
	Formats    []string // -f
	Stats      bool     // --stats: needs inputs with the kernel trace
	Quiet      bool     // no summary
	Truncate   bool     // -T: kernel names without template and argument lists
	Mangled    bool     // -M: kernel names as mangled
	AgentIndex string   // --agent-index; empty is relative
	// Summary: rocprofv3's summaries of every merged process (-S, -D, --summary-groups, -u), which
	// need inputs with the kernel trace, and where they go (SummaryTo: stderr, stdout or a file
	// name, as --summary-output-file); nil for none.
	Summary   *stats.SummaryOptions
	SummaryTo string
	Stdout    io.Writer
	Stderr    io.Writer
}

// Run reads every input, refuses the merge before anything is written when an input is not a
// result gorocprof can merge, and writes the merged files and the summary. It returns the files
// written.
func Run(ctx context.Context, req Request) ([]string, error) {
	prog := &readProgress{}
	defer prog.stop()
	heads, err := readInputs(ctx, req, prog)
	if err != nil {
		return nil, err
	}
	trace := heads[0].kernelTrace
	domains := traceDomains(heads)
	for _, wants := range []struct {
		flag string
		set  bool
	}{{"--stats", req.Stats}, {"a summary (-S, -D, --summary-groups)", req.Summary != nil}} {
		if wants.set && !trace && len(domains) == 0 {
			return nil, fmt.Errorf("%s needs a trace, which %s does not hold (it ran without --kernel-trace or another trace)", wants.flag, heads[0].name())
		}
	}
	sum, err := output.NewStatsSummary(req.Summary, req.SummaryTo, output.PathVars{}, req.Stdout, req.Stderr)
	if err != nil {
		return nil, err
	}
	files := output.NewFiles(ctx, output.Options{Dir: req.OutputDir, File: req.OutputFile, Formats: req.Formats,
		KernelTrace: trace, TraceDomains: domains, Stats: req.Stats, Summary: sum, Truncate: req.Truncate, Mangled: req.Mangled, AgentIndex: req.AgentIndex,
		SeveralHosts: severalHosts(heads)})
	var summary *output.SummarySink
	if !req.Quiet {
		summary = output.NewSummary(output.SummaryNames{Mangled: req.Mangled, Truncate: req.Truncate})
	}
	werr := write(heads, files, summary)
	if werr != nil {
		files.Abort(werr)
	}
	paths, err := files.Close()
	prog.stop() // before anything else is printed
	if werr != nil {
		return nil, werr
	}
	if err != nil {
		return paths, fmt.Errorf("writing the merged result: %w", err)
	}
	// The table goes where rocprofv3's summaries go by default, stderr, out of the way of what
	// stdout carries.
	if summary != nil && req.Stderr != nil {
		if err := summary.Print(req.Stderr); err != nil {
			return paths, err
		}
	}
	return paths, nil
}

// traceDomains are the domains any of the processes traced, sorted: what the merged result says
// its run traced.
func traceDomains(heads []*head) []string {
	var out []string
	for _, h := range heads {
		for _, d := range h.traceDomains {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// severalHosts tells whether the processes come from more than one host; heads are in merge order,
// by host first.
func severalHosts(heads []*head) bool {
	return heads[0].header.Hostname != heads[len(heads)-1].header.Hostname
}

// write streams every process, in merge order, through the files and the summary.
func write(heads []*head, files *output.Files, summary *output.SummarySink) error {
	for i, s := range shifts(heads) {
		h := heads[i]
		proc, err := build(h, s)
		if err != nil {
			return fmt.Errorf("%s: %w", h.name(), err)
		}
		sinks := []output.Sink{files}
		if summary != nil {
			sinks = append(sinks, summary)
		}
		var plan any
		if h.plan != nil {
			plan = h.plan
		}
		err = output.StreamPlanned(proc, h.cs, plan, h.rotation, sinks...)
		proc.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", h.name(), err)
		}
	}
	return nil
}

// readInputs finds and checks every input, and returns its processes in merge order: by host, then
// start time, then pid, whatever the order of the command line.
func readInputs(ctx context.Context, req Request, prog *readProgress) ([]*head, error) {
	if len(req.Inputs) == 0 {
		return nil, errors.New("nothing to merge: name results.json files, rocpd databases or directories holding them")
	}
	skip := map[string]bool{}
	for _, suffix := range []string{jsonSuffix, dbSuffix} {
		if abs, err := filepath.Abs(filepath.Join(req.OutputDir, req.OutputFile+suffix)); err == nil {
			skip[abs] = true
		}
	}
	files, err := findInputs(req.Inputs, skip)
	if err != nil {
		return nil, err
	}
	prog.start(req, files)
	var heads []*head
	for _, f := range files {
		if err := context.Cause(ctx); err != nil {
			return nil, err
		}
		hs, err := readFile(f)
		if err != nil {
			return nil, err
		}
		heads = append(heads, hs...)
	}
	heads = sorted(heads)
	return heads, compatible(heads)
}

// readFile reads and checks every process of one input.
func readFile(f inputFile) ([]*head, error) {
	scan := func(path string) ([]*head, error) { return scanJSON(path, f.prog.counter()) }
	if f.db {
		scan = scanDB
	}
	heads, err := scan(f.path)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", f.path, err)
	}
	if len(heads) == 0 {
		return nil, fmt.Errorf("input %s: holds no process", f.path)
	}
	for _, h := range heads {
		if err := h.prepare(); err != nil {
			return nil, fmt.Errorf("%s: %w", h.name(), err)
		}
		if !h.checked {
			f.prog.again(h.recordBytes)
		}
		if err := h.check(); err != nil {
			return nil, fmt.Errorf("%s: %w", h.name(), err)
		}
		if h.cs, err = newInputCounters(h); err != nil {
			return nil, fmt.Errorf("%s: %w", h.name(), err)
		}
	}
	return heads, nil
}

// sorted puts processes in merge order: by host, then start time, then pid.
func sorted(heads []*head) []*head {
	slices.SortStableFunc(heads, func(a, b *head) int {
		return cmp.Or(strings.Compare(a.header.Hostname, b.header.Hostname), cmp.Compare(a.header.InitTime, b.header.InitTime),
			cmp.Compare(a.header.PID, b.header.PID))
	})
	return heads
}

// compatible refuses processes that cannot share one result: one process twice (the same host, pid
// and start), and inputs with and without the kernel trace.
func compatible(heads []*head) error {
	for i := 1; i < len(heads); i++ {
		a, b := heads[i-1], heads[i]
		if a.header.Hostname == b.header.Hostname && a.header.PID == b.header.PID && a.header.InitTime == b.header.InitTime {
			return fmt.Errorf("%s and %s are the same process (same host, pid and start time): merge each process once", a.name(), b.name())
		}
	}
	for _, h := range heads[1:] {
		if h.kernelTrace != heads[0].kernelTrace {
			with, without := h, heads[0]
			if !h.kernelTrace {
				with, without = heads[0], h
			}
			return fmt.Errorf("%s holds the kernel trace and %s does not: merge results that all ran with --kernel-trace, or all without", with.name(), without.name())
		}
	}
	return nil
}
