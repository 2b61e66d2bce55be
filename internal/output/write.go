// Package output turns the records of one profiled process into rocprofv3-compatible files
// (results.json, CSV, the rocpd database) and terminal tables.
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
	"github.com/gorocprof/gorocprof/internal/stats"
)

// Options says which files Write produces and how names look.
type Options struct {
	Dir          string   // output directory (-d)
	File         string   // file prefix inside Dir, placeholders already expanded (-o); must stay below Dir
	Formats      []string // any of "json", "csv", "rocpd"
	KernelTrace  bool     // also write kernel dispatch timing (--kernel-trace)
	Stats        bool     // with KernelTrace: kernel_stats.csv and domain_stats.csv (--stats)
	Mangled      bool     // kernel names as mangled symbols (-M)
	Truncate     bool     // kernel names without template and argument lists (-T)
	PlanMetadata any      // embedded in results.json metadata as "gorocprof_plan"
	Command      []string // the profiled command line; the record header's when empty

	// wrap, when set, stands between each output file and the formatting, so that tests can make a
	// write fail part way (a full disk) or stop the run there (a signal).
	wrap func(name string, w io.Writer) io.Writer
}

// Formats Write can produce.
var Formats = []string{"csv", "json", "rocpd"}

// Write writes one process's files under Dir and returns their paths; see WriteProcesses.
func Write(opts Options, proc *records.Process, cs Counters) ([]string, error) {
	return WriteProcesses(context.Background(), opts, []*records.Process{proc}, cs)
}

// WriteProcesses writes the files of one prefix for every process of procs, in order, and returns
// their paths: it is Stream of each process with the one sink NewFiles(ctx, opts), then its Close.
func WriteProcesses(ctx context.Context, opts Options, procs []*records.Process, cs Counters) ([]string, error) {
	f := NewFiles(ctx, opts)
	for _, proc := range procs {
		if err := Stream(proc, cs, f); err != nil {
			break // f keeps it: Close aborts the files and returns it
		}
	}
	return f.Close()
}

// Files is the sink of the -f formats of one prefix: results.json with one element per process
// (its schema's layout), the CSV files with the rows of every process (agent_info.csv a row per
// distinct agent), the rocpd database, and with --stats the kernel and domain statistics, written as
// the dispatches go by, so that a process is written in memory bounded by its agents, kernels and
// counters, not by its dispatches. The kernel_dispatch array of results.json, which follows the
// counter records, waits in a compact temporary file meanwhile.
//
// Each file is written under a temporary name beside its own and Close renames them into place
// together once all are complete, so a write that fails (a full disk), or a ctx cancelled on the
// way (SIGINT), leaves whatever had these names before untouched and no partial file; the error is
// then context.Cause(ctx) or the write's.
type Files struct {
	ctx      context.Context
	opts     Options
	loc      *location
	s        *streams // nil before the first process, and when no format is wanted
	v        *view    // the process begun and not ended
	n        int      // processes begun
	evalErrs []error
	err      error // the first failure: every later call returns it and Close aborts the files
	closed   bool
}

// NewFiles returns the sink that writes opts.Formats under opts.Dir; ctx's cancellation stops it.
func NewFiles(ctx context.Context, opts Options) *Files { return &Files{ctx: ctx, opts: opts} }

// Failed returns the failure that stopped the files, nil while they are being written.
func (f *Files) Failed() error { return f.err }

// Abort stops the files with err: Close then removes them and returns err.
func (f *Files) Abort(err error) { f.fail(err) }

// fail keeps the first failure, told as ctx's cause when ctx was cancelled, not as what the
// writer was doing then.
func (f *Files) fail(err error) error {
	if cause := context.Cause(f.ctx); cause != nil {
		err = cause
	}
	if f.err == nil {
		f.err = err
	}
	return f.err
}

// Begin adds a process to the files, creating them for the first one, and writes what comes before
// its dispatches.
func (f *Files) Begin(p *Process) error {
	if f.err != nil {
		return f.err
	}
	if f.n == 0 {
		if err := f.open(p.Counters != nil); err != nil {
			return f.fail(err)
		}
	}
	f.n++
	if f.s == nil {
		return nil
	}
	f.v = newView(f.opts, p)
	if err := f.v.begin(f.s, f.n == 1); err != nil {
		return f.fail(err)
	}
	return nil
}

// open checks the formats and the location and creates the files of the formats wanted.
func (f *Files) open(counters bool) error {
	opts := f.opts
	want := map[string]bool{}
	for _, format := range opts.Formats {
		switch format {
		case "json", "csv", "rocpd":
			want[format] = true
		default:
			return fmt.Errorf("output format %q: this writer produces %v", format, Formats)
		}
	}
	if len(want) == 0 {
		return nil
	}
	if !filepath.IsLocal(opts.File) {
		return fmt.Errorf("the file name %q leaves the output directory %s: refusing to write there", opts.File, opts.Dir)
	}
	file := filepath.Clean(opts.File)
	loc, err := openLocation(opts.Dir, filepath.Dir(file), os.Geteuid())
	if err != nil {
		return err
	}
	f.loc = loc
	f.s = &streams{loc: loc, base: filepath.Base(file), wrap: opts.wrap, agentRows: map[string]bool{}}
	if err := f.s.open(want, opts.KernelTrace, counters); err != nil {
		return err
	}
	if opts.Stats && opts.KernelTrace {
		f.s.kernelStats, f.s.domainStats = &stats.Table{}, &stats.Table{}
	}
	return nil
}

// Dispatch writes every pass of one logical dispatch to every open file.
func (f *Files) Dispatch(d *Dispatch) error {
	if f.err != nil {
		return f.err
	}
	if f.v == nil {
		return nil
	}
	if f.ctx.Err() != nil {
		return f.fail(context.Cause(f.ctx))
	}
	if err := f.v.writeLogical(f.s, d); err != nil {
		return f.fail(err)
	}
	return nil
}

// End ends the process in the files: its kernel dispatch records after its counter records. Its
// evaluation failures wait for Close, which reports them once everything else is written.
func (f *Files) End(failed error) error {
	v := f.v
	f.v = nil
	if failed != nil {
		f.fail(failed)
		return failed
	}
	if f.err != nil {
		return f.err
	}
	if v == nil {
		return nil
	}
	err := v.end(f.s)
	if err != nil {
		return f.fail(err)
	}
	if err := v.evalError(); err != nil {
		f.evalErrs = append(f.evalErrs, err)
	}
	return nil
}

// Close finishes the files and renames them into place, and returns their paths; after a failure
// it removes them instead and returns the failure. The error also reports the counter values that
// could not be computed (a derived counter whose base values are missing), which were left out.
func (f *Files) Close() ([]string, error) {
	if f.closed {
		return nil, errors.New("output files closed twice")
	}
	f.closed = true
	if f.loc != nil {
		defer f.loc.close()
	}
	if f.s == nil {
		return nil, f.err
	}
	s := f.s
	defer s.abort()
	if f.err != nil {
		return nil, f.err
	}
	if s.kernelStats != nil {
		if err := s.writeStats(); err != nil {
			return nil, err
		}
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	if err := context.Cause(f.ctx); err != nil {
		return nil, err
	}
	paths, err := s.commit()
	if err != nil {
		return paths, err
	}
	return paths, errors.Join(f.evalErrs...)
}

// begin adds one process to every open file; first says it is the first process of the files.
func (v *view) begin(s *streams, first bool) error {
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
	if err == nil && s.rocpd {
		err = s.rocpdProcess(v)
	}
	return err
}

// end writes what follows the process's dispatches and drops its kernel dispatch spool.
func (v *view) end(s *streams) error {
	var err error
	if s.results != nil {
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
	plan     any               // results.json's gorocprof_plan
	nodeIDs  map[uint64]uint64 // Agent_Id of the CSV rows, by agent handle
	cat      *catalog
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

func newView(opts Options, p *Process) *view {
	proc := p.Process
	v := &view{opts: opts, proc: proc, plan: opts.PlanMetadata, nodeIDs: map[uint64]uint64{}, cat: p.catalog, names: map[uint64]kernelText{}}
	if p.Plan != nil {
		v.plan = p.Plan
	}
	for _, a := range proc.Agents {
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

// passCounters keeps the pass's counters the catalog has an id for, so that JSON and CSV always
// agree, and notes its evaluation failures. The result is valid until the next call.
func (v *view) passCounters(p *Pass) []idValues {
	v.counters = v.counters[:0]
	for _, err := range p.Errs {
		if len(v.errs) < maxShownErrors {
			v.errs = append(v.errs, err)
		}
		v.nErrs++
	}
	for _, c := range p.Counters {
		if c.ID != 0 {
			v.counters = append(v.counters, idValues{c.ID, counterValues{c.Name, c.Values}})
		}
	}
	return v.counters
}

// writeLogical writes every pass of one logical dispatch to every open file. --stats times a
// dispatch once, by its first pass, never by the sum of its passes.
func (v *view) writeLogical(s *streams, l *Dispatch) error {
	if s.kernelStats != nil && len(l.Passes) > 0 {
		d := l.Passes[0].Record
		name := v.kernelName(v.kernel(d.KernelID).k)
		s.kernelStats.Add(name, d.End-d.Start)
		s.domainStats.Add("KERNEL_DISPATCH", d.End-d.Start)
	}
	for i := range l.Passes {
		p := &l.Passes[i]
		d := p.Record
		k := v.kernel(d.KernelID)
		counters := v.passCounters(p)
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
		if s.db != nil {
			if err := s.db.pass(v, d, counters); err != nil {
				return err
			}
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
