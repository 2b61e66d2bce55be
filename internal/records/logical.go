package records

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// Logical is one logical dispatch: every recorded pass of one dispatch_id, by pass index.
type Logical struct {
	ID     uint64
	Passes []*contract.Dispatch
}

// PassCounts returns the largest pass count of each agent's dispatch lines, by agent id.
func (p *Process) PassCounts() map[uint64]int { return p.passCounts }

// ReorderWindow returns the most logical dispatches with a greater id that came before one of the
// process's dispatch lines: how many EachLogical holds back. It is 0 for a file in (dispatch id,
// pass) order. The tool writes one thread's dispatch lines by dispatch id and pass; with several
// threads a dispatch's lines, all written at once when its replay ends, land a few dispatches from
// their place.
func (p *Process) ReorderWindow() int { return p.window }

// EachLogical calls fn for every logical dispatch, ordered by dispatch id, its passes by pass index
// and, for equal indexes, in file order. The Logical and the dispatches it points to are valid only
// during the call. The dispatches come from the process's spool, decoded from the record file once
// however often EachLogical is called.
func (p *Process) EachLogical(fn func(Logical) error) error {
	if p.spool == nil {
		return nil // a Process written as a literal, not read: it has no dispatches
	}
	sr := p.spool.reader()
	r := reorderer{window: p.window, fn: fn}
	for {
		d, line, err := sr.next()
		if isEOF(err) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading records %s: %w", p.Path, err)
		}
		if err := r.add(d); err != nil {
			return fmt.Errorf("reading records %s: line %d: %w", p.Path, line, err)
		}
	}
	for r.open.len() > 0 {
		if err := r.emit(); err != nil {
			return err
		}
	}
	return nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// reorderer restores EachLogical's order (by dispatch id, then pass) from a stream whose lines lie
// at most window logical dispatches from their place: it holds the open dispatches, at most
// window+1, and passes on the smallest once a new dispatch would exceed that. Copies live in slots taken back after each call, so a long file
// allocates nothing per line.
type reorderer struct {
	window  int
	fn      func(Logical) error
	open    idWindow[*openLogical]
	spare   []*openLogical
	slots   []*dispatchSlot
	l       Logical
	emitted bool
	last    uint64
}

type openLogical struct{ passes []*dispatchSlot }

func (r *reorderer) add(d *contract.Dispatch) error {
	i, found := r.open.find(d.DispatchID)
	if !found {
		for r.open.len() > r.window {
			if err := r.emit(); err != nil {
				return err
			}
		}
		if r.emitted && d.DispatchID <= r.last {
			return fmt.Errorf("dispatch %d comes after dispatch %d was passed on: the reorder window was measured wrong",
				d.DispatchID, r.last)
		}
		i, _ = r.open.find(d.DispatchID)
		var o *openLogical
		if n := len(r.spare); n > 0 {
			o, r.spare = r.spare[n-1], r.spare[:n-1]
		} else {
			o = &openLogical{}
		}
		r.open.insert(i, d.DispatchID, o)
	}
	var s *dispatchSlot
	if n := len(r.slots); n > 0 {
		s, r.slots = r.slots[n-1], r.slots[:n-1]
	} else {
		s = &dispatchSlot{}
	}
	s.copyOf(d)
	o := *r.open.at(i)
	o.passes = append(o.passes, s)
	return nil
}

// emit passes on the smallest open dispatch, its passes ordered by pass index and, for equal
// indexes, by file order (a stable sort by pass).
func (r *reorderer) emit() error {
	id, o := r.open.popMin()
	ps := o.passes
	for a := 1; a < len(ps); a++ {
		for b := a; b > 0 && ps[b].d.Pass < ps[b-1].d.Pass; b-- {
			ps[b], ps[b-1] = ps[b-1], ps[b]
		}
	}
	r.l.ID, r.l.Passes = id, r.l.Passes[:0]
	for _, s := range ps {
		r.l.Passes = append(r.l.Passes, &s.d)
	}
	r.emitted, r.last = true, id
	err := r.fn(r.l)
	r.slots = append(r.slots, ps...)
	clear(ps)
	o.passes = ps[:0]
	r.spare = append(r.spare, o)
	return err
}

// dispatchSlot holds a copy of a reused dispatch, keeping its storage from one copy to the next.
type dispatchSlot struct {
	d    contract.Dispatch
	cvs  []contract.CounterValue
	ptrs []*float64
	vals []float64
}

func (s *dispatchSlot) copyOf(src *contract.Dispatch) *contract.Dispatch {
	s.d = *src
	if src.Counters == nil {
		return &s.d
	}
	s.cvs = append(s.cvs[:0], src.Counters...)
	n := 0
	for _, c := range src.Counters {
		n += len(c.Values)
	}
	// Grown once to the dispatch's size: a fresh slot (a copy kept for later) allocates three times.
	s.ptrs, s.vals = slices.Grow(s.ptrs[:0], n), slices.Grow(s.vals[:0], n)
	for _, c := range src.Counters {
		for _, v := range c.Values {
			if v == nil {
				s.vals = append(s.vals, 0)
			} else {
				s.vals = append(s.vals, *v)
			}
		}
	}
	// Pointers are taken after the values stopped moving.
	at := 0
	for i, c := range src.Counters {
		start := len(s.ptrs)
		for k, v := range c.Values {
			if v == nil {
				s.ptrs = append(s.ptrs, nil)
			} else {
				s.ptrs = append(s.ptrs, &s.vals[at+k])
			}
		}
		at += len(c.Values)
		s.cvs[i].Values = s.ptrs[start:len(s.ptrs):len(s.ptrs)]
	}
	s.d.Counters = s.cvs
	return &s.d
}

// MissingPasses lists the dispatches that lack some pass index in 0..passes-1, as a kernel-replay
// run must have them all, in dispatch id order. Declined dispatches ran once on purpose and are not
// listed. The reader counted them; their words come from the spool, read again only when some
// dispatch lacks a pass.
func (p *Process) MissingPasses() []string {
	if p.facts.missing == 0 {
		return nil
	}
	declined := map[uint64]bool{}
	for _, d := range p.Declines {
		declined[d.DispatchID] = true
	}
	var out []string
	var passes, missing []int
	err := p.EachLogical(func(l Logical) error {
		if declined[l.ID] {
			return nil
		}
		passes = passes[:0]
		for _, d := range l.Passes {
			passes = append(passes, d.Pass)
		}
		want := l.Passes[0].Passes
		if missing = missingPasses(missing[:0], passes, want); len(missing) > 0 {
			out = append(out, missingText(l.ID, missing, want))
		}
		return nil
	})
	if err != nil {
		out = append(out, fmt.Sprintf("the missing passes could not be listed: %v", err))
	}
	return out
}

// Run is what the record files of a run directory hold.
type Run struct {
	Processes []*Process // by process id, the images of one process in the order they started
	// Unreadable lists the record files that hold no process, each with why: an empty file belongs
	// to a process killed between creating it and writing its header.
	Unreadable []string
}

// ReadRun is ReadRunDir that reports a file without a header in Unreadable instead of failing. The
// dispatch spools go where there is room for them (EnvSpoolDir, TMPDIR, then spoolDirs: the output
// directory); when they fail, the error (ErrSpool) says which `gorocprof process` command would work.
func ReadRun(runDir string, spoolDirs ...string) (Run, error) {
	paths, _ := filepath.Glob(filepath.Join(runDir, contract.RecordsDir, "*.ndjson"))
	candidates := spoolCandidates(spoolDirs)
	need := spoolNeed(recordBytes(paths))
	dir := chooseSpoolDir(candidates, need)
	run, err := readRun(runDir, func(path string) (*Process, error) { return readProcessIn(path, dir) })
	if errors.Is(err, ErrSpool) {
		err = fmt.Errorf("%w; %s", err, spoolHint(runDir, dir, candidates, need))
	}
	return run, err
}

// Close releases every process's spool.
func (r Run) Close() {
	for _, p := range r.Processes {
		p.Close()
	}
}

func readRunDir(runDir string, read func(string) (*Process, error)) ([]*Process, error) {
	r, err := readRun(runDir, read)
	if err != nil {
		return nil, err
	}
	if len(r.Unreadable) > 0 {
		return nil, fmt.Errorf("reading records: %s", r.Unreadable[0])
	}
	return r.Processes, nil
}

func readRun(runDir string, read func(string) (*Process, error)) (Run, error) {
	dir := filepath.Join(runDir, contract.RecordsDir)
	paths, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil {
		return Run{}, fmt.Errorf("listing records in %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return Run{}, fmt.Errorf("listing records: %w", err)
	}
	var r Run
	for _, path := range paths {
		p, err := read(path)
		if errors.Is(err, ErrNoHeader) || errors.Is(err, ErrUnreadable) {
			r.Unreadable = append(r.Unreadable, unreadable(path, err))
			continue
		}
		if err != nil {
			r.Close()
			return Run{}, err
		}
		r.Processes = append(r.Processes, p)
	}
	sort.SliceStable(r.Processes, func(i, j int) bool {
		a, b := r.Processes[i], r.Processes[j]
		if a.Header.PID != b.Header.PID {
			return a.Header.PID < b.Header.PID
		}
		if a.Header.InitTime != b.Header.InitTime {
			return a.Header.InitTime < b.Header.InitTime
		}
		return a.Path < b.Path
	})
	r.dropCopies()
	markReplaced(r.Processes)
	return r, nil
}

// dropCopies leaves out a record file that repeats another (a copy kept next to the original, as
// N-1.ndjson beside N.ndjson): the same process id, start time and command line in the header, and
// the same size. Two images of one process start at different times, so they are never taken
// for copies. Each copy is named in Unreadable.
func (r *Run) dropCopies() {
	kept := r.Processes[:0]
	for _, p := range r.Processes {
		if len(kept) > 0 && sameFile(kept[len(kept)-1], p) {
			orig := kept[len(kept)-1]
			r.Unreadable = append(r.Unreadable, fmt.Sprintf(
				"%s and %s hold the same records (process %d, started at the same time, the same size): one is a copy, read once",
				shortName(orig.Path), shortName(p.Path), p.Header.PID))
			p.Close()
			continue
		}
		kept = append(kept, p)
	}
	r.Processes = kept
}

func sameFile(a, b *Process) bool {
	if a.Header.PID != b.Header.PID || a.Header.InitTime != b.Header.InitTime || a.Header.InitTime == 0 ||
		!slices.Equal(a.Header.Cmdline, b.Header.Cmdline) {
		return false
	}
	sa, errA := os.Stat(a.Path)
	sb, errB := os.Stat(b.Path)
	return errA == nil && errB == nil && sa.Size() == sb.Size()
}

// shortName names a record file as the user finds it in a run directory: records/N.ndjson.
func shortName(path string) string {
	return filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
}

// MarkExited notes that the process pid exited rather than being killed by a signal, as the launcher
// of the application saw it: its last image, when it wrote no end record, ended with _exit() or by
// exec'ing a program the tool does not profile, and is not a crash.
func (r Run) MarkExited(pid int64) {
	var last *Process
	for _, p := range r.Processes {
		if p.Header.PID == pid {
			last = p
		}
	}
	if last != nil && last.End == nil && last.Stopped == "" {
		last.Exited = true
	}
}

// markReplaced marks every image of a process but its last one as ended: exec() replaced it by the
// next one, whose stream shares its process id, and exec runs no exit handler that writes `end`.
func markReplaced(procs []*Process) {
	for i := 0; i+1 < len(procs); i++ {
		if procs[i].Header.PID == procs[i+1].Header.PID && procs[i].End == nil {
			procs[i].Replaced = true
		}
	}
}

func unreadable(path string, err error) string {
	name := filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
	if st, serr := os.Stat(path); serr == nil && st.Mode().IsRegular() && st.Size() == 0 {
		return fmt.Sprintf("%s is empty: its process ended between creating the file and writing the header, so nothing of it was recorded", name)
	}
	// The error names the file already, as "reading records PATH: why"; the user is told the why.
	why := err.Error()
	if _, rest, ok := strings.Cut(why, path+": "); ok {
		why = rest
	}
	return fmt.Sprintf("%s holds no process: %s", name, why)
}
