// Package output turns the records of one profiled process into rocprofv3-compatible files
// (results.json, CSV) and terminal tables.
package output

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/records"
)

// Options says which files Write produces and how names look.
type Options struct {
	Dir          string   // output directory (-d)
	File         string   // file prefix inside Dir, placeholders already expanded (-o); must stay below Dir
	Formats      []string // "json" and/or "csv"
	KernelTrace  bool     // also write kernel dispatch timing (--kernel-trace)
	Mangled      bool     // kernel names as mangled symbols (-M)
	Truncate     bool     // kernel names without template and argument lists (-T)
	PlanMetadata any      // embedded in results.json metadata as "gorocprof_plan"
	Command      []string // the profiled command line; the record header's when empty

	// wrap, when set, stands between each output file and the formatting, so that tests can make a
	// write fail part way (a full disk) or stop the run there (a signal).
	wrap func(name string, w io.Writer) io.Writer
}

// Formats Write can produce.
var Formats = []string{"csv", "json"}

// Write writes one process's files under Dir and returns their paths; see WriteProcesses.
func Write(opts Options, proc *records.Process, cs Counters) ([]string, error) {
	return WriteProcesses(context.Background(), opts, []*records.Process{proc}, cs)
}

// WriteProcesses writes the files of one prefix for every process of procs, in order, and returns
// their paths: results.json with one element per process (its schema's layout), the CSV files with
// the rows of all of them (agent_info.csv a row per distinct agent). Counter values that could not
// be computed (a derived counter whose base values are missing) are left out and reported in the
// returned error after everything else has been written; cs may be nil when nothing was counted.
//
// Each file is written under a temporary name beside its own and the files are renamed into place
// together once all are complete, so a write that fails (a full disk), or a ctx cancelled on the
// way (SIGINT), leaves whatever had these names before untouched and no partial file; the error is
// then context.Cause(ctx) or the write's.
//
// The dispatches go by once (proc.EachLogical) and every file is written as they do, so a process
// from records.ScanProcess is written in memory bounded by its agents, kernels and counters, not
// by its dispatches. The kernel_dispatch array of results.json, which follows the counter records,
// waits in a compact temporary file meanwhile.
func WriteProcesses(ctx context.Context, opts Options, procs []*records.Process, cs Counters) ([]string, error) {
	want := map[string]bool{}
	for _, f := range opts.Formats {
		switch f {
		case "json", "csv":
			want[f] = true
		default:
			return nil, fmt.Errorf("output format %q: this writer produces %v", f, Formats)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	if !filepath.IsLocal(opts.File) {
		return nil, fmt.Errorf("the file name %q leaves the output directory %s: refusing to write there", opts.File, opts.Dir)
	}
	file := filepath.Clean(opts.File)
	loc, err := openLocation(opts.Dir, filepath.Dir(file), os.Geteuid())
	if err != nil {
		return nil, err
	}
	defer loc.close()
	s := &streams{loc: loc, base: filepath.Base(file), wrap: opts.wrap, agentRows: map[string]bool{}}
	defer s.abort()
	if err := s.open(want, opts.KernelTrace, cs != nil); err != nil {
		return nil, err
	}
	var evalErrs []error
	for i, proc := range procs {
		v := newView(opts, proc, cs)
		if err := v.write(ctx, s, i == 0); err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return nil, cause // told as it is, not as what the reader was doing then
			}
			return nil, err
		}
		if err := v.evalError(); err != nil {
			evalErrs = append(evalErrs, err)
		}
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	paths, err := s.commit()
	if err != nil {
		return paths, err
	}
	return paths, errors.Join(evalErrs...)
}

// write adds one process to every open file; first says it is the first process of the files.
func (v *view) write(ctx context.Context, s *streams, first bool) error {
	var err error
	if s.results != nil {
		err = v.writeResultsHead(s.results.w, first)
		if err == nil && v.opts.KernelTrace {
			s.trace, err = newTraceSpool(s.loc, s.base)
		}
	}
	if err == nil && s.agentInfo != nil {
		v.writeAgentInfo(s.agentInfo.w, s.agentRows)
	}
	// Without counters nor kernel trace, no file has a line per pass: the dispatches need not be read.
	passes := v.eval.cs != nil || v.opts.KernelTrace
	if err == nil && passes {
		err = v.proc.EachLogical(func(l records.Logical) error {
			if err := ctx.Err(); err != nil {
				return context.Cause(ctx)
			}
			return v.writeLogical(s, l)
		})
	}
	if err == nil && s.results != nil {
		err = v.writeResultsTail(s.results.w, s.trace)
	}
	if s.trace != nil {
		s.trace.close()
		s.trace = nil
	}
	return err
}

// view is one process prepared for writing: its agents, counter catalog and kernel names, and
// the state that carries from one pass to the next.
type view struct {
	opts     Options
	proc     *records.Process
	agents   map[uint64]contract.Agent
	nodeIDs  map[uint64]uint64 // Agent_Id of the CSV rows, by agent handle
	cat      *catalog
	eval     evaluator
	errs     []error // the first maxShownErrors evaluation failures
	nErrs    int
	command  []string
	names    map[uint64]kernelText // by kernel id
	counters []idValues            // the current pass's counters
	line     []byte
	// wroteCounter says whether results.json has a counter record yet.
	wroteCounter bool
}

// kernelText is a kernel's fields as the rows print them.
type kernelText struct {
	k      contract.Kernel
	quoted []byte // the chosen name as a CSV text field
}

// idValues is a counter of a pass with its catalog id.
type idValues struct {
	id uint64
	counterValues
}

const maxShownErrors = 10

func newView(opts Options, proc *records.Process, cs Counters) *view {
	v := &view{opts: opts, proc: proc, agents: map[uint64]contract.Agent{}, nodeIDs: map[uint64]uint64{},
		cat: buildCatalog(proc, cs), eval: evaluator{cs: cs}, names: map[uint64]kernelText{}}
	for _, a := range proc.Agents {
		v.agents[a.ID] = a
		v.nodeIDs[a.ID] = agentNodeID(a)
	}
	v.command = opts.Command
	if len(v.command) == 0 {
		v.command = proc.Header.Cmdline
	}
	return v
}

// kernel returns the kernel of a dispatch; a kernel id without a kernel record gives the zero
// kernel, as a map lookup would.
func (v *view) kernel(id uint64) kernelText {
	if t, ok := v.names[id]; ok {
		return t
	}
	k := v.proc.Kernels[id]
	t := kernelText{k: k, quoted: []byte(csvString(v.kernelName(k)))}
	v.names[id] = t
	return t
}

// passCounters computes one pass's counters and keeps those the catalog has an id for, so that
// JSON and CSV always agree. The result is valid until the next call.
func (v *view) passCounters(d *contract.Dispatch) []idValues {
	v.counters = v.counters[:0]
	a, ok := v.agents[d.AgentID]
	if !ok {
		return nil
	}
	cvs, errs := v.eval.pass(a.Index, d)
	for _, err := range errs {
		if len(v.errs) < maxShownErrors {
			v.errs = append(v.errs, err)
		}
		v.nErrs++
	}
	for _, c := range cvs {
		if id, ok := v.cat.ids[catalogKey{d.AgentID, c.Name}]; ok {
			v.counters = append(v.counters, idValues{id, c})
		}
	}
	return v.counters
}

// writeLogical writes every pass of one logical dispatch to every open file.
func (v *view) writeLogical(s *streams, l records.Logical) error {
	for _, d := range l.Passes {
		k := v.kernel(d.KernelID)
		counters := v.passCounters(d)
		if s.results != nil && len(counters) > 0 {
			v.line = appendCounterRecord(append(v.line[:0], ",\n"...), d, k.k, counters)
			if err := v.element(s.results.w, &v.wroteCounter); err != nil {
				return err
			}
		}
		if s.trace != nil {
			if err := s.trace.add(d); err != nil {
				return err
			}
		}
		if s.counterCSV != nil {
			v.writeCounterRows(s.counterCSV.w, d, k, counters)
		}
		if s.traceCSV != nil {
			v.writeKernelTraceRow(s.traceCSV.w, d, k)
		}
	}
	return nil
}

// element writes v.line, a JSON array element prefixed with ",\n", dropping the comma before the
// array's first element.
func (v *view) element(w *bufio.Writer, wrote *bool) error {
	line := v.line
	if !*wrote {
		line = line[1:]
		*wrote = true
	}
	_, err := w.Write(line)
	return err
}

func (v *view) evalError() error {
	if v.nErrs == 0 {
		return nil
	}
	errs := v.errs
	if v.nErrs > len(errs) {
		errs = append(errs[:len(errs):len(errs)], fmt.Errorf("and %d more", v.nErrs-len(errs)))
	}
	return fmt.Errorf("pid %d: some counter values were not written: %w", v.proc.Header.PID, errors.Join(errs...))
}

// KernelName picks the flavour of a kernel's name the user asked for. -M wins over -T, as truncating
// a mangled name leaves it unchanged.
func KernelName(k contract.Kernel, mangled, truncate bool) string {
	switch {
	case mangled && k.Name != "":
		return k.Name
	case truncate && k.Truncated != "":
		return k.Truncated
	case k.Demangled != "":
		return k.Demangled
	}
	return k.Name
}

// csvAgentID is a dispatch's Agent_Id: its agent's node id, the handle of an agent without a record.
func (v *view) csvAgentID(handle uint64) uint64 {
	if id, ok := v.nodeIDs[handle]; ok {
		return id
	}
	return handle
}

func (v *view) kernelName(k contract.Kernel) string {
	return KernelName(k, v.opts.Mangled, v.opts.Truncate)
}

func sortedKernels(proc *records.Process) []contract.Kernel {
	ks := make([]contract.Kernel, 0, len(proc.Kernels))
	for _, k := range proc.Kernels {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].KernelID < ks[j].KernelID })
	return ks
}
