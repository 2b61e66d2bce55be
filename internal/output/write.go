// Package output turns the records of one profiled process into rocprofv3-compatible files
// (results.json, CSV, the rocpd database, the Perfetto trace) and terminal tables.
package output

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
	"github.com/gorocprof/gorocprof/internal/records"
)

// Options says which files Write produces and how names look.
type Options struct {
	Dir          string   // output directory (-d)
	File         string   // file prefix inside Dir, placeholders already expanded (-o); must stay below Dir
	Formats      []string // any of Formats
	KernelTrace  bool     // also write kernel dispatch timing (--kernel-trace)
	TraceDomains []string // the domains the run traced (plan.json's trace_domains), sorted
	Stats        bool     // with KernelTrace: kernel_stats.csv and domain_stats.csv (--stats)
	Mangled      bool     // kernel names as mangled symbols (-M)
	Truncate     bool     // kernel names without template and argument lists (-T)
	PlanMetadata any      // embedded in results.json metadata as "gorocprof_plan"
	// Rotation, set for a run that rotated groups over the dispatches (contract.ModeRotation): a
	// record's pass then names the agent's pass the dispatch collected, which every format shows as
	// that pass's group ("pmc_group"), with replay_pass 0 as in any run without replay.
	Rotation *Rotation
	Command  []string // the profiled command line; the record header's when empty
	// SeveralHosts, set when the processes come from more than one host (a merge of nodes' results):
	// the Perfetto trace then puts each host's processes on a machine of their own, named by the
	// host, since a trace tells the processes of one machine apart by pid alone.
	SeveralHosts bool
	// AgentIndex is how the CSV files and the Perfetto trace number agents (--agent-index): one of
	// AgentIndexes; empty is rocprofv3's default, relative.
	AgentIndex string

	// Summary, with KernelTrace: rocprofv3's summary tables (-S, -D, --summary-groups) of the
	// prefix's processes and where they go; nil for none.
	Summary *StatsSummary

	// wrap, when set, stands between each output file and the formatting, so that tests can make a
	// write fail part way (a full disk) or stop the run there (a signal).
	wrap func(name string, w io.Writer) io.Writer
}

// Rotation is how a run rotated its groups over the dispatches (pmc_groups): results.json's
// metadata keeps it ("pmc_group_interval" in the gorocprof object, the passes' groups in
// gorocprof_plan), so that a merge of the run rotates its records back into passes.
type Rotation struct {
	Interval int                  // pmc_group_interval: dispatches of an agent per group
	Plan     []contract.PlanAgent // the passes of each agent, whose Group a dispatch's pass collected
}

// Formats Write can produce.
var Formats = []string{"csv", "json", "pftrace", "rocpd"}

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

// Files is the sink of the files of one prefix: it hands the stream to the sinks of the formats and
// statistics asked for (prefixSinks) and puts their files in place together. Each sink writes as the
// dispatches go by, so that a process is written in memory bounded by its agents, kernels and
// counters, not by its dispatches.
//
// Each file is written under a temporary name beside its own and Close renames them into place
// together once all are complete, so a write that fails (a full disk), or a ctx cancelled on the
// way (SIGINT), leaves whatever had these names before untouched and no partial file; the error is
// then context.Cause(ctx) or the write's.
type Files struct {
	ctx   context.Context
	opts  Options
	loc   *location
	pf    *prefix      // nil before the first process, and when nothing is wanted
	sinks []prefixSink // those of opts, in prefixSinks' order
	proc  *Process     // the process begun and not ended
	n     int          // processes begun
	errs  []error      // the process's first maxShownErrors evaluation failures
	nErrs int
	// unknown counts the process's trace lines by domain that no output knows (TraceDomainKnown)
	unknown  map[string]int
	evalErrs []error
	err      error // the first failure: every later call returns it and Close aborts the files
	closed   bool
}

// A prefixSink writes some of the files of a prefix from the stream. close writes what follows the
// last process, before the files are synced; abort releases what it holds after a failure.
type prefixSink interface {
	Sink
	close() error
	abort()
}

type prefixSinkRow struct {
	formats []string
	wanted  func(Options) bool
	open    func(pf *prefix, opts Options, counters bool) (prefixSink, error)
}

// prefixSinks are the sinks a prefix can have, in the order their files are created and reported:
// each serves the -f formats it names, or is wanted by the options alone (formats nil). A new format
// is one more row.
var prefixSinks = []prefixSinkRow{
	{formats: []string{"json", "csv"}, open: openDocuments},
	{formats: []string{"pftrace"}, open: openPftrace},
	{formats: []string{"rocpd"}, open: openRocpd},
	{wanted: wantsStats, open: openStats},
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
	if f.pf == nil {
		return nil
	}
	f.proc, f.errs, f.nErrs, f.unknown = p, nil, 0, nil
	for _, s := range f.sinks {
		if err := s.Begin(p); err != nil {
			return f.fail(err)
		}
	}
	return nil
}

// open checks the formats and the location and opens the sinks wanted, which create their files.
func (f *Files) open(counters bool) error {
	opts := f.opts
	var rows []int
	for _, format := range opts.Formats {
		i := slices.IndexFunc(prefixSinks, func(r prefixSinkRow) bool { return slices.Contains(r.formats, format) })
		if i < 0 {
			return fmt.Errorf("output format %q: this writer produces %v", format, Formats)
		}
		rows = append(rows, i)
	}
	if len(rows) == 0 {
		return nil
	}
	for i, r := range prefixSinks {
		if r.wanted != nil && r.wanted(opts) {
			rows = append(rows, i)
		}
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
	f.pf = &prefix{loc: loc, base: filepath.Base(file), wrap: opts.wrap}
	f.pf.removeStale()
	for i, r := range prefixSinks {
		if !slices.Contains(rows, i) {
			continue
		}
		s, err := r.open(f.pf, opts, counters)
		if err != nil {
			return err
		}
		f.sinks = append(f.sinks, s)
	}
	return nil
}

// taking says whether a process's dispatches and trace lines go to the sinks now: not before a
// process is begun, nor when nothing is written, nor after a failure, which it returns (a ctx
// cancelled meanwhile among them).
func (f *Files) taking() (bool, error) {
	if f.err != nil {
		return false, f.err
	}
	if f.pf == nil || f.proc == nil {
		return false, nil
	}
	if f.ctx.Err() != nil {
		return false, f.fail(context.Cause(f.ctx))
	}
	return true, nil
}

// Dispatch hands one logical dispatch to every sink and keeps its evaluation failures.
func (f *Files) Dispatch(d *Dispatch) error {
	if ok, err := f.taking(); !ok {
		return err
	}
	for i := range d.Passes {
		for _, err := range d.Passes[i].Errs {
			if len(f.errs) < maxShownErrors {
				f.errs = append(f.errs, err)
			}
			f.nErrs++
		}
	}
	for _, s := range f.sinks {
		if err := s.Dispatch(d); err != nil {
			return f.fail(err)
		}
	}
	return nil
}

// End ends the process in every sink. Its evaluation failures wait for Close, which reports them
// once everything else is written.
func (f *Files) End(failed error) error {
	p := f.proc
	f.proc = nil
	if failed != nil {
		f.fail(failed)
		for _, s := range f.sinks {
			_ = s.End(failed)
		}
		return failed
	}
	if f.err != nil {
		return f.err
	}
	if p == nil {
		return nil
	}
	for _, s := range f.sinks {
		if err := s.End(nil); err != nil {
			return f.fail(err)
		}
	}
	if err := f.evalError(p); err != nil {
		f.evalErrs = append(f.evalErrs, err)
	}
	if err := f.unknownTraceError(p.Header.PID); err != nil {
		f.evalErrs = append(f.evalErrs, err)
	}
	return nil
}

func (f *Files) evalError(p *Process) error {
	if f.nErrs == 0 {
		return nil
	}
	errs := f.errs
	if f.nErrs > len(errs) {
		errs = append(errs[:len(errs):len(errs)], fmt.Errorf("and %d more", f.nErrs-len(errs)))
	}
	return fmt.Errorf("pid %d: some counter values were not written: %w", p.Header.PID, errors.Join(errs...))
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
	if f.pf == nil {
		return nil, f.err
	}
	defer f.abort()
	if f.err != nil {
		return nil, f.err
	}
	for _, s := range f.sinks {
		if err := s.close(); err != nil {
			return nil, err
		}
	}
	if err := f.pf.finish(); err != nil {
		return nil, err
	}
	if err := context.Cause(f.ctx); err != nil {
		return nil, err
	}
	paths, err := f.pf.commit()
	if err != nil {
		return paths, err
	}
	for _, s := range f.sinks {
		if t, ok := s.(interface{ placed() error }); ok {
			if err := t.placed(); err != nil {
				return paths, err
			}
		}
	}
	return paths, errors.Join(f.evalErrs...)
}

// Replaced lists the files Close put in place of an earlier output's (each replaced whole, by a
// rename, never written in place), for the note that says so.
func (f *Files) Replaced() []string {
	if f.pf == nil {
		return nil
	}
	return f.pf.replaced
}

// ReplacedNote words Replaced for stderr: a few names, then how many more; "" when none.
func ReplacedNote(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	const shown = 4
	names := strings.Join(paths[:min(len(paths), shown)], ", ")
	if len(paths) > shown {
		names += fmt.Sprintf(" and %d more", len(paths)-shown)
	}
	return "replaced the earlier output " + names
}

// abort releases every sink and removes the files not placed.
func (f *Files) abort() {
	for _, s := range f.sinks {
		s.abort()
	}
	f.sinks = nil
	f.pf.abort()
}

// view is one process prepared for writing: its agents, counter catalog and kernel names, and
// the state that carries from one pass to the next.
type view struct {
	opts    Options
	proc    *records.Process
	plan    any               // results.json's gorocprof_plan
	nodeIDs map[uint64]uint64 // the agent's node id, by agent handle
	// agentIDs are the CSV rows' Agent_Id by agent handle, quoted ("Agent 1"), as --agent-index
	// numbers the agent.
	agentIDs map[uint64][]byte
	cat      *catalog
	command  []string
	names    map[uint64]kernelText // by kernel id
	traces   *traceNames           // results.json's: the trace records' operations and marker messages
	stats    *domainStats          // the process's statistics for results.json's summary; nil without --stats or a summary
	counters []idValues            // the current pass's counters
	line     []byte
	// wroteCounter says whether results.json has a counter record yet.
	wroteCounter bool
	// rotation and rotated: under rotation, the process's rotation and the group of each pass by
	// agent handle.
	rotation *Rotation
	rotated  map[uint64][]int
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
	v := &view{opts: opts, proc: proc, plan: opts.PlanMetadata, nodeIDs: map[uint64]uint64{},
		agentIDs: map[uint64][]byte{}, cat: p.catalog, names: map[uint64]kernelText{}}
	if p.Plan != nil {
		v.plan = p.Plan
	}
	for _, a := range proc.Agents {
		v.nodeIDs[a.ID] = a.NodeID()
		v.agentIDs[a.ID] = []byte(csvString(agentIndexLabel(a, opts.AgentIndex, " ")))
	}
	v.command = opts.Command
	if len(v.command) == 0 {
		v.command = proc.Header.Cmdline
	}
	v.rotation, v.rotated = p.rotation(opts)
	return v
}

// rotation returns the process's rotation (its own, else the Options') and the group of each pass
// by agent handle; nil for a run that did not rotate.
func (p *Process) rotation(opts Options) (*Rotation, map[uint64][]int) {
	r := opts.Rotation
	if p.Rotation != nil {
		r = p.Rotation
	}
	if r == nil {
		return nil, nil
	}
	return r, rotatedGroups(r.Plan, p.Agents)
}

// rotatedGroups maps each agent handle of the process to the groups of its planned passes.
func rotatedGroups(plan []contract.PlanAgent, agents []contract.Agent) map[uint64][]int {
	out := map[uint64][]int{}
	for _, a := range agents {
		for _, pa := range plan {
			if pa.Index != a.Index {
				continue
			}
			groups := make([]int, len(pa.Passes))
			for i, p := range pa.Passes {
				groups[i] = p.Group
			}
			out[a.ID] = groups
		}
	}
	return out
}

// replayPass is the replay_pass results.json gives a pass, and the group it collected under rotation
// (-1 otherwise: the pass is a replay pass, or the run's only one).
func (v *view) replayPass(d *contract.Dispatch) (pass, group int) {
	return replayPass(v.rotated, d)
}

// replayPass is view.replayPass for the groups of a process's rotation (nil for none).
func replayPass(rotated map[uint64][]int, d *contract.Dispatch) (pass, group int) {
	if rotated == nil {
		return d.Pass, -1
	}
	groups := rotated[d.AgentID]
	if d.Pass < 0 || d.Pass >= len(groups) {
		return 0, -1
	}
	return 0, groups[d.Pass]
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

// passCounters keeps the pass's counters the catalog has an id for, so that every format writes
// the same counters. The result is valid until the next call.
func (v *view) passCounters(p *Pass) []idValues {
	v.counters = v.counters[:0]
	for _, c := range p.Counters {
		if c.ID != 0 {
			v.counters = append(v.counters, idValues{c.ID, counterValues{c.Name, c.Values}})
		}
	}
	return v.counters
}

// writeLogical writes every pass of one logical dispatch to results.json and the CSV files.
func (v *view) writeLogical(s *documents, l *Dispatch) error {
	for i := range l.Passes {
		p := &l.Passes[i]
		d := p.Record
		k := v.kernel(d.KernelID)
		counters := v.passCounters(p)
		if s.results != nil && len(counters) > 0 {
			pass, group := v.replayPass(d)
			v.line = appendCounterRecord(append(v.line[:0], ",\n"...), d, k.k, counters, pass, group)
			if err := v.element(s.results.bg, &v.wroteCounter); err != nil {
				return err
			}
		}
		if s.trace != nil {
			if err := s.trace.add(d, i == 0); err != nil {
				return err
			}
		}
		if s.counterCSV != nil {
			v.writeCounterRows(s.counterCSV.bg, d, k, counters)
		}
		if s.traceCSV != nil {
			v.writeKernelTraceRow(s.traceCSV.bg, d, k)
		}
	}
	return nil
}

// element writes v.line, a JSON array element prefixed with ",\n", dropping the comma before the
// array's first element.
func (v *view) element(w *bgwrite.Writer, wrote *bool) error {
	line := v.line
	if !*wrote {
		line = line[1:]
		*wrote = true
	}
	_, err := w.Write(line)
	return err
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

// csvAgentID is a dispatch's agent node id: its agent's node id, the handle of an agent without a record.
func (v *view) csvAgentID(handle uint64) uint64 {
	if id, ok := v.nodeIDs[handle]; ok {
		return id
	}
	return handle
}

// csvAgentLabel is a dispatch's Agent_Id, quoted: its agent as --agent-index names it, an agent
// without a record "Agent <handle>".
func (v *view) csvAgentLabel(handle uint64) []byte {
	if l, ok := v.agentIDs[handle]; ok {
		return l
	}
	l := []byte(csvString("Agent " + strconv.FormatUint(handle, 10)))
	v.agentIDs[handle] = l
	return l
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
