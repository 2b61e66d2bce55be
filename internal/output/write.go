// Package output turns the records of one profiled process into rocprofv3-compatible files
// (results.json, CSV) and terminal tables.
package output

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
	"github.com/gorocprof/gorocprof/internal/records"
)

// Options says which files Write produces and how names look.
type Options struct {
	Dir          string   // output directory (-d)
	File         string   // file prefix inside Dir, placeholders already expanded (-o)
	Formats      []string // "json" and/or "csv"
	KernelTrace  bool     // also write kernel dispatch timing (--kernel-trace)
	Mangled      bool     // kernel names as mangled symbols (-M)
	Truncate     bool     // kernel names without template and argument lists (-T)
	PlanMetadata any      // embedded in results.json metadata as "gorocprof_plan"
	Command      []string // the profiled command line; the record header's when empty
}

// Formats Write can produce.
var Formats = []string{"csv", "json"}

// Write writes one process's files under Dir and returns their paths. Counter values that could not
// be computed (a derived counter whose base values are missing) are left out and reported in the
// returned error after everything else has been written; cs may be nil when nothing was counted.
// It is Stream with the one sink NewFiles(opts).
func Write(opts Options, proc *records.Process, cs Counters) ([]string, error) {
	f := NewFiles(opts)
	err := Stream(proc, cs, f)
	return f.Paths(), err
}

// Files is the sink of the -f formats: results.json, agent_info.csv, counter_collection.csv and
// kernel_trace.csv of each process, written as its dispatches go by, so that a process is written
// in memory bounded by its agents, kernels and counters, not by its dispatches. The kernel_dispatch
// array of results.json, which follows the counter records, waits in a compact temporary file next
// to the output meanwhile.
type Files struct {
	opts  Options
	v     *view
	s     *streams
	paths []string
}

// NewFiles returns the sink that writes opts.Formats under opts.Dir.
func NewFiles(opts Options) *Files { return &Files{opts: opts} }

// Paths returns the files written so far, in the order they were created.
func (f *Files) Paths() []string { return f.paths }

// Begin creates the process's files and writes what comes before the dispatches.
func (f *Files) Begin(p *Process) error {
	want := map[string]bool{}
	for _, format := range f.opts.Formats {
		switch format {
		case "json", "csv":
			want[format] = true
		default:
			return fmt.Errorf("output format %q: this writer produces %v", format, Formats)
		}
	}
	f.v, f.s = nil, nil
	if len(want) == 0 {
		return nil
	}
	opts := f.opts
	prefix := filepath.Join(opts.Dir, opts.File)
	if err := os.MkdirAll(filepath.Dir(prefix+"_"), 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	v := newView(opts, p)
	s := &streams{}
	f.v, f.s = v, s
	var err error
	if want["json"] {
		if s.results, err = s.create(prefix + "_results.json"); err == nil {
			err = v.writeResultsHead(s.results.w)
		}
		if err == nil && opts.KernelTrace {
			s.trace, err = newTraceSpool(filepath.Dir(prefix + "_"))
		}
	}
	if err == nil && want["csv"] {
		var agents *outFile
		if agents, err = s.create(prefix + "_agent_info.csv"); err == nil {
			err = v.writeAgentInfo(agents.w)
		}
		if err == nil && p.Counters != nil {
			if s.counterCSV, err = s.create(prefix + "_counter_collection.csv"); err == nil {
				writeHeader(s.counterCSV.w, counterCollectionColumns)
			}
		}
		if err == nil && opts.KernelTrace {
			if s.traceCSV, err = s.create(prefix + "_kernel_trace.csv"); err == nil {
				writeHeader(s.traceCSV.w, kernelTraceColumns)
			}
		}
	}
	f.paths = append(f.paths, s.paths...)
	return err
}

// Dispatch writes every pass of one logical dispatch to every open file.
func (f *Files) Dispatch(d *Dispatch) error {
	if f.v == nil {
		return nil
	}
	return f.v.writeLogical(f.s, d)
}

// End finishes the files: the kernel dispatch records after the counter records, then the
// evaluation failures of the whole process, once everything else is written.
func (f *Files) End(failed error) error {
	if f.v == nil {
		return failed
	}
	v, s := f.v, f.s
	f.v, f.s = nil, nil
	defer s.abort()
	if failed != nil {
		return failed
	}
	var err error
	if s.results != nil {
		err = v.writeResultsTail(s.results.w, s.trace)
	}
	if err == nil {
		err = s.close()
	}
	if err != nil {
		return err
	}
	return v.evalError()
}

// outFile is one output file being written.
type outFile struct {
	path string
	f    *os.File
	bg   *bgwrite.Writer
	w    *bufio.Writer // bg's buffer
}

// streams are the files one Write has open, in the order their paths are reported.
type streams struct {
	files      []*outFile
	paths      []string
	results    *outFile
	counterCSV *outFile
	traceCSV   *outFile
	trace      *traceSpool
}

func (s *streams) create(path string) (*outFile, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("writing output: %w", err)
	}
	bg := bgwrite.New(f)
	o := &outFile{path: path, f: f, bg: bg, w: bg.Writer}
	s.files = append(s.files, o)
	s.paths = append(s.paths, path)
	return o, nil
}

// close flushes and closes every file; the first failure names its file.
func (s *streams) close() error {
	var first error
	for _, o := range s.files {
		err := o.bg.Close()
		if cerr := o.f.Close(); err == nil {
			err = cerr
		}
		if err != nil && first == nil {
			first = fmt.Errorf("writing %s: %w", o.path, err)
		}
	}
	s.files = nil
	return first
}

// abort closes what close did not (after a failure) and removes the spool.
func (s *streams) abort() {
	for _, o := range s.files {
		_ = o.bg.Close()
		_ = o.f.Close()
	}
	s.files = nil
	if s.trace != nil {
		s.trace.remove()
	}
}

// view is one process prepared for writing: its agents, counter catalog and kernel names, and
// the state that carries from one pass to the next.
type view struct {
	opts     Options
	proc     *records.Process
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
	v := &view{opts: opts, proc: proc, nodeIDs: map[uint64]uint64{}, cat: p.catalog, names: map[uint64]kernelText{}}
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

// writeLogical writes every pass of one logical dispatch to every open file.
func (v *view) writeLogical(s *streams, l *Dispatch) error {
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
