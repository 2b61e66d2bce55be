package output

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/output/bgwrite"
)

// outFile is one output file being written under a temporary name.
type outFile struct {
	final string // its name in the location
	tmp   string // the name it is written under
	f     *os.File
	bg    *bgwrite.Writer // nil for the database, which SQLite writes through a handle of its own
}

// prefix is the files of one output prefix (-d and -o expanded), whichever sinks write them: each
// is created under a temporary name, and they are synced and renamed into place together.
type prefix struct {
	loc      *location
	base     string // the prefix's file name part
	wrap     func(string, io.Writer) io.Writer
	files    []*outFile
	replaced []string // the files commit put in place of an earlier output's
}

// tempSuffixes are the names a prefix's files get after it (create, createPath, the trace spool):
// a hidden temporary file of one of them is this prefix's, never another prefix's.
var tempSuffixes = append([]string{"_results.json", "_agent_info.csv", "_counter_collection.csv", "_kernel_trace.csv",
	"_results.pftrace", "_results.db", "_trace.spool", "_kernel_stats.csv", "_domain_stats.csv"}, traceSuffixes()...)

// removeStale removes the temporary files an earlier gorocprof left of this prefix when it was
// killed before it could (SIGKILL, a crash): a run holds its prefix's lock, or names it per
// process, so no running gorocprof writes them.
func (pf *prefix) removeStale() {
	d, err := pf.loc.root.Open(".")
	if err != nil {
		return
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(1024)
		for _, name := range names {
			if pf.isTemp(name) {
				pf.loc.remove(name)
			}
		}
		if err != nil {
			return
		}
	}
}

// isTemp says whether name is createTemp's name for one of the prefix's files.
func (pf *prefix) isTemp(name string) bool {
	rest, ok := strings.CutPrefix(name, "."+pf.base)
	if !ok {
		return false
	}
	i := strings.LastIndex(rest, ".tmp-")
	if i < 0 || !slices.Contains(tempSuffixes, rest[:i]) {
		return false
	}
	tag := rest[i+len(".tmp-"):]
	_, err := hex.DecodeString(tag)
	return len(tag) == 12 && err == nil
}

// create starts the file base+suffix, written through a background writer.
func (pf *prefix) create(suffix string) (*outFile, error) {
	final := pf.base + suffix
	f, tmp, err := pf.loc.createTemp(final)
	if err != nil {
		return nil, err
	}
	var w io.Writer = finalName{f, filepath.Join(pf.loc.path, final)}
	if pf.wrap != nil {
		w = pf.wrap(final, f)
	}
	o := &outFile{final: final, tmp: tmp, f: f, bg: bgwrite.New(w)}
	pf.files = append(pf.files, o)
	return o, nil
}

// createPath starts the file base+suffix for a writer that opens it by its path (SQLite) and
// returns the temporary path and the final one, which its errors name. The path's directories
// passed the checks of openLocation (ours, or root's and sticky), so no other user can make the
// name lead elsewhere.
func (pf *prefix) createPath(suffix string) (tmp, final string, err error) {
	f, name, err := pf.loc.createTemp(pf.base + suffix)
	if err != nil {
		return "", "", err
	}
	pf.files = append(pf.files, &outFile{final: pf.base + suffix, tmp: name, f: f})
	return filepath.Join(pf.loc.path, name), filepath.Join(pf.loc.path, pf.base+suffix), nil
}

// documents is the sink of results.json (-f json: one element per process, its schema's layout)
// and the CSV files (-f csv: the rows of every process, agent_info.csv a row per distinct agent) of
// a prefix. The kernel_dispatch array of results.json, which follows the counter records, waits in
// a compact temporary file meanwhile.
type documents struct {
	pf         *prefix
	opts       Options
	results    *outFile
	agentInfo  *outFile
	counterCSV *outFile
	traceCSV   *outFile
	trace      *traceSpool     // the current process's kernel dispatch records
	traceRows  []*outFile      // by traceGroups: the trace CSV files, each created with its first row
	spools     []*recordSpool  // by traceGroups: the current process's trace records, nil before its first
	agentRows  map[string]bool // agent_info.csv rows written, so that processes sharing an agent list it once
	v          *view           // the process begun and not ended
	n          int             // processes begun
}

// openDocuments creates the files of the formats wanted and writes what comes before the first
// process; counters says whether the run counted anything (counter_collection.csv).
func openDocuments(pf *prefix, opts Options, counters bool) (prefixSink, error) {
	s := &documents{pf: pf, opts: opts, agentRows: map[string]bool{}, traceRows: make([]*outFile, len(traceGroups)),
		spools: make([]*recordSpool, len(traceGroups))}
	var err error
	if slices.Contains(opts.Formats, "json") {
		if s.results, err = pf.create("_results.json"); err != nil {
			return nil, err
		}
		s.results.bg.WriteString(`{"rocprofiler-sdk-tool":[`)
	}
	if !slices.Contains(opts.Formats, "csv") {
		return s, nil
	}
	if s.agentInfo, err = pf.create("_agent_info.csv"); err != nil {
		return nil, err
	}
	writeHeader(s.agentInfo.bg, agentInfoColumns)
	if counters {
		if s.counterCSV, err = pf.create("_counter_collection.csv"); err != nil {
			return nil, err
		}
		writeHeader(s.counterCSV.bg, counterCollectionColumns)
	}
	if opts.KernelTrace {
		if s.traceCSV, err = pf.create("_kernel_trace.csv"); err != nil {
			return nil, err
		}
		writeHeader(s.traceCSV.bg, kernelTraceColumns)
	}
	return s, nil
}

// Begin adds a process to every file.
func (s *documents) Begin(p *Process) error {
	s.n++
	s.v = newView(s.opts, p)
	if s.results != nil {
		s.v.traces = newTraceNames(p.Process)
		if wantsStats(s.opts) {
			s.v.stats = newDomainStats(s.opts)
		}
	}
	var err error
	if s.results != nil {
		err = s.v.writeResultsHead(s.results.bg, s.n == 1)
		if err == nil && s.opts.KernelTrace {
			s.trace, err = newTraceSpool(s.pf.loc, s.pf.base)
		}
	}
	if err == nil && s.agentInfo != nil {
		s.v.writeAgentInfo(s.agentInfo.bg, s.agentRows)
	}
	return err
}

// Dispatch writes every pass of one logical dispatch.
func (s *documents) Dispatch(d *Dispatch) error {
	if s.v.stats != nil {
		s.v.stats.dispatch(s.v.proc.Kernels, d)
	}
	return s.v.writeLogical(s, d)
}

// End writes what follows the process's dispatches (its kernel dispatch records after its counter
// records) and drops its kernel dispatch spool.
func (s *documents) End(failed error) error {
	v := s.v
	s.v = nil
	var err error
	if failed == nil && s.results != nil {
		err = v.writeResultsTail(s.results.bg, s.trace, s.spools)
	}
	s.closeSpools()
	return err
}

// Trace writes one trace line: its row in its group's CSV file, which its first row creates (a
// file is written only when it has rows, as rocprofv3's), and its record in the process's spool of
// its group's buffer_records array.
func (s *documents) Trace(t *contract.Trace) error {
	g := traceGroupOf(t.TraceDomain())
	if g < 0 {
		return nil // Files.Trace hands on no such line
	}
	v := s.v
	if v.stats != nil {
		v.stats.trace(t)
	}
	if s.results != nil {
		if s.spools[g] == nil {
			sp, err := newRecordSpool(s.pf.loc, s.pf.base)
			if err != nil {
				return err
			}
			s.spools[g] = sp
		}
		kind := traceKind(t.TraceDomain())
		v.line = appendTraceRecord(v.line[:0], t, kind, v.traces.opIndex[kind][t.Op])
		if err := s.spools[g].add(v.line); err != nil {
			return fmt.Errorf("trace record spool: %w", err)
		}
	}
	if s.agentInfo == nil { // no csv
		return nil
	}
	o := s.traceRows[g]
	if o == nil {
		var err error
		if o, err = s.pf.create(traceGroups[g].trace); err != nil {
			return err
		}
		writeHeader(o.bg, traceColumns(t))
		s.traceRows[g] = o
	}
	v.line = v.appendTraceRow(v.line[:0], t)
	_, err := o.bg.Write(v.line)
	return err
}

// closeSpools drops the process's spools: its kernel dispatch records and its trace records.
func (s *documents) closeSpools() {
	if s.trace != nil {
		s.trace.close()
		s.trace = nil
	}
	for i, sp := range s.spools {
		if sp != nil {
			sp.close()
			s.spools[i] = nil
		}
	}
}

func (s *documents) close() error {
	if s.results != nil {
		s.results.bg.WriteString("]}\n")
	}
	return nil
}

func (s *documents) abort() { s.closeSpools() }

// finalName writes to a temporary file and names the file it will become in its errors, which is
// the file users asked for.
type finalName struct {
	f    *os.File
	name string
}

func (w finalName) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = w.name
	}
	return n, err
}

// finish ends every file and makes its bytes durable; the first failure names its file. The
// fsync comes before the rename on purpose: a rename can reach the disk before the data it names
// (ext4 and XFS write data lazily), and a crash then would leave the final name on an empty or
// partial file, where without the sync the previous output would have been lost for nothing.
func (pf *prefix) finish() error {
	for _, o := range pf.files {
		var err error
		if o.bg != nil {
			err = o.bg.Close()
		}
		if err == nil {
			err = o.f.Sync()
		}
		if cerr := o.f.Close(); err == nil {
			err = cerr
		}
		o.f = nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", filepath.Join(pf.loc.path, o.final), err)
		}
	}
	return nil
}

// commit renames every finished file into place and returns the paths placed. A rename that
// fails stops there: the files placed are complete, the others keep their previous content.
func (pf *prefix) commit() ([]string, error) {
	var paths []string
	for len(pf.files) > 0 {
		o := pf.files[0]
		_, existed := pf.loc.root.Lstat(o.final)
		if err := pf.loc.place(o.tmp, o.final); err != nil {
			return paths, err
		}
		if existed == nil {
			pf.replaced = append(pf.replaced, filepath.Join(pf.loc.path, o.final))
		}
		pf.files = pf.files[1:]
		paths = append(paths, filepath.Join(pf.loc.path, o.final))
	}
	return paths, pf.loc.syncDir()
}

// abort removes the temporary files not placed, after a failure; after commit it has nothing to do.
func (pf *prefix) abort() {
	for _, o := range pf.files {
		if o.f != nil {
			if o.bg != nil {
				_ = o.bg.Close()
			}
			_ = o.f.Close()
		}
		pf.loc.remove(o.tmp)
	}
	pf.files = nil
}

// WriteFile writes data as the file path the way the output files are written: under a
// temporary name in its directory, which must exist and pass the checks of an output directory,
// synced and renamed into place, so that a failure leaves what path held before.
func WriteFile(path string, data []byte) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	loc := &location{root: root, path: filepath.Clean(dir), uid: os.Geteuid()}
	defer loc.close()
	if err := loc.check(); err != nil {
		return err
	}
	f, tmp, err := loc.createTemp(name)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		loc.remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := loc.place(tmp, name); err != nil {
		loc.remove(tmp)
		return err
	}
	return loc.syncDir()
}
