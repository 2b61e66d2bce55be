package records

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
)

// ScanProcess reads one record file like ReadProcess but keeps no dispatch: it checks them as they
// go by and remembers only what output needs before writing them (pass counts per agent, the
// dispatches lacking passes), so its memory does not grow with the number of dispatches. The
// returned Process is Streamed: EachLogical reads the dispatches again from Path, in the order
// Group gives. That is file order when the file lists its dispatch lines by dispatch id and pass,
// as the tool does for one thread and the merge always does; for any other file ScanProcess reads
// the whole file like ReadProcess, since ordering it needs all of it.
func ScanProcess(path string) (*Process, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading records: %w", err)
	}
	defer f.Close()
	p := &Process{Path: path, Kernels: map[uint64]contract.Kernel{}, Streamed: true, passCounts: map[uint64]int{}}
	c := collector{p: p, agents: map[uint64]bool{}, stream: &passChecker{}}
	d := NewDecoder(f)
	d.ReuseDispatches()
	for {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading records %s: %w", path, err)
		}
		if err := c.add(rec); err != nil {
			return nil, err
		}
		if c.stream.unordered {
			return ReadProcess(path)
		}
	}
	c.stream.closeBlock()
	p.Problems = append(p.Problems, c.stream.problems...)
	p.missing = c.stream.missing
	return p, nil
}

// ScanRunDir is ReadRunDir with ScanProcess: every process Streamed where its file allows.
func ScanRunDir(runDir string) ([]*Process, error) {
	return readRunDir(runDir, ScanProcess)
}

// PassCounts returns the largest pass count of each agent's dispatch lines, by agent id.
func (p *Process) PassCounts() map[uint64]int {
	if p.Streamed {
		return p.passCounts
	}
	out := map[uint64]int{}
	for _, d := range p.Dispatches {
		out[d.AgentID] = max(out[d.AgentID], d.Passes)
	}
	return out
}

// EachLogical calls fn for every logical dispatch in Group's order. The Logical and the
// dispatches it points to are valid only during the call.
func (p *Process) EachLogical(fn func(Logical) error) error {
	if !p.Streamed {
		for _, l := range Group(p.Dispatches) {
			if err := fn(l); err != nil {
				return err
			}
		}
		return nil
	}
	f, err := os.Open(p.Path)
	if err != nil {
		return fmt.Errorf("reading records: %w", err)
	}
	defer f.Close()
	dec := NewDecoder(f)
	dec.ReuseDispatches()
	var slots []*dispatchSlot
	l := Logical{}
	flush := func() error {
		if len(l.Passes) == 0 {
			return nil
		}
		err := fn(l)
		l.Passes = l.Passes[:0]
		return err
	}
	for {
		rec, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading records %s: %w", p.Path, err)
		}
		if rec.Type != contract.RecDispatch {
			continue
		}
		if len(l.Passes) > 0 && l.ID != rec.Dispatch.DispatchID {
			if err := flush(); err != nil {
				return err
			}
		}
		n := len(l.Passes)
		if n == len(slots) {
			slots = append(slots, &dispatchSlot{})
		}
		l.ID = rec.Dispatch.DispatchID
		l.Passes = append(l.Passes, slots[n].copyOf(rec.Dispatch))
	}
	return flush()
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
	s.ptrs, s.vals = s.ptrs[:0], s.vals[:0]
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

// passChecker is CheckPasses and MissingPasses over a stream, for a file whose dispatch lines come
// by dispatch id and pass: there a dispatch whose lines ended can never come back, so nothing but
// the current dispatch is kept. It notes when the order does not hold (the caller then reads the
// file as a whole).
type passChecker struct {
	first     contract.Dispatch // the current dispatch's first line, without counters
	started   bool
	last      contract.Dispatch // the previous line, without counters
	seen      []int             // pass indexes of the current dispatch
	problems  []string
	missing   []missingPasses
	unordered bool
}

type missingPasses struct {
	id   uint64
	text string
}

func (c *passChecker) add(d *contract.Dispatch) {
	if c.started && (d.DispatchID < c.last.DispatchID || d.DispatchID == c.last.DispatchID && d.Pass < c.last.Pass) {
		c.unordered = true
		return
	}
	head := *d
	head.Counters = nil
	if !c.started || d.DispatchID != c.first.DispatchID {
		c.closeBlock()
		c.first, c.started = head, true
		c.seen = c.seen[:0]
	}
	c.last = head
	first := &c.first
	if d.Passes < 1 || d.Pass < 0 || d.Pass >= d.Passes {
		c.problems = append(c.problems, fmt.Sprintf("dispatch %d: pass %d is outside 0..%d",
			d.DispatchID, d.Pass, d.Passes-1))
	}
	dup := false
	for _, s := range c.seen {
		dup = dup || s == d.Pass
	}
	if dup {
		c.problems = append(c.problems, fmt.Sprintf("dispatch %d: pass %d appears twice", d.DispatchID, d.Pass))
	}
	c.seen = append(c.seen, d.Pass)
	if len(c.seen) == 1 {
		return
	}
	if d.Passes != first.Passes {
		c.problems = append(c.problems, fmt.Sprintf("dispatch %d: pass %d says %d passes, pass %d says %d",
			d.DispatchID, d.Pass, d.Passes, first.Pass, first.Passes))
	}
	if d.KernelID != first.KernelID || d.AgentID != first.AgentID {
		c.problems = append(c.problems, fmt.Sprintf(
			"dispatch %d: pass %d ran kernel %d on agent %d, pass %d kernel %d on agent %d",
			d.DispatchID, d.Pass, d.KernelID, d.AgentID, first.Pass, first.KernelID, first.AgentID))
	}
}

// closeBlock notes the passes the current dispatch lacks, as MissingPasses words them.
func (c *passChecker) closeBlock() {
	if !c.started {
		return
	}
	want := c.first.Passes
	var missing []string
	for i := 0; i < want; i++ {
		have := false
		for _, s := range c.seen {
			have = have || s == i
		}
		if !have {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 0 {
		c.missing = append(c.missing, missingPasses{c.first.DispatchID, fmt.Sprintf("dispatch %d: pass %s of %d missing",
			c.first.DispatchID, strings.Join(missing, ", "), want)})
	}
}

func (p *Process) streamedMissingPasses() []string {
	declined := map[uint64]bool{}
	for _, d := range p.Declines {
		declined[d.DispatchID] = true
	}
	var out []string
	for _, m := range p.missing {
		if !declined[m.id] {
			out = append(out, m.text)
		}
	}
	return out
}

func readRunDir(runDir string, read func(string) (*Process, error)) ([]*Process, error) {
	dir := filepath.Join(runDir, contract.RecordsDir)
	paths, err := filepath.Glob(filepath.Join(dir, "*.ndjson"))
	if err != nil {
		return nil, fmt.Errorf("listing records in %s: %w", dir, err)
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("listing records: %w", err)
	}
	procs := make([]*Process, 0, len(paths))
	for _, path := range paths {
		p, err := read(path)
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}
	sort.SliceStable(procs, func(i, j int) bool {
		if procs[i].Header.PID != procs[j].Header.PID {
			return procs[i].Header.PID < procs[j].Header.PID
		}
		return procs[i].Path < procs[j].Path
	})
	return procs, nil
}
