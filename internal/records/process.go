package records

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
)

// Process is everything one record file says about one profiled process. Its dispatch lines are
// checked as they are read and kept in a spool, not in memory: EachLogical hands them out.
type Process struct {
	Path     string
	Header   contract.Header
	Agents   []contract.Agent           // file order
	Kernels  map[uint64]contract.Kernel // by kernel_id
	Declines []contract.Decline
	Warnings []string
	Fatals   []string
	End      *contract.End // nil when the process did not exit normally
	// Replaced says a later image of the same process id has its own record file: this image ended
	// by exec(), which writes no end record, not by a crash.
	Replaced bool
	// Exited says the front end saw this process exit, not killed by a signal, although it wrote no
	// end record: it ended with _exit() or exec'd a program the tool does not profile, and its
	// records are complete (see Run.MarkExited).
	Exited bool
	// Stopped is the tool's reason for writing no more of this process's records (a write failed:
	// disk full, file size limit); empty when it did not stop. The process ran on unrecorded.
	Stopped   string
	Truncated bool     // the last line was incomplete and was ignored
	Problems  []string // inconsistencies found while reading; the data is kept

	kept       []Record       // every record but the dispatches and trace lines, in file order (Records)
	passCounts map[uint64]int // the largest pass count per agent id
	facts      logicalFacts   // per logical dispatch: missing passes, counts for Totals
	window     int            // see ReorderWindow
	spool      *spool
	traces     *traceStore // the trace lines
}

// Ended reports whether the process image ended normally: it wrote its end record, exec() replaced
// it by another image, or it exited without a signal (Exited).
func (p *Process) Ended() bool { return p.End != nil || p.Replaced || p.Exited }

// Totals returns the counts of the end record, or for a process without one, the same counts
// taken from its records: the logical dispatches recorded, those with more than one pass line,
// and the declines.
func (p *Process) Totals() contract.End {
	if p.End != nil {
		return *p.End
	}
	return contract.End{Dispatches: p.facts.logicals, Replayed: p.facts.replayed, Declined: uint64(len(p.Declines))}
}

// Close releases the spool of the dispatches; EachLogical hands out none after it.
func (p *Process) Close() { p.spool.close() }

// Agent returns the agent record with the given id.
func (p *Process) Agent(id uint64) (contract.Agent, bool) {
	for _, a := range p.Agents {
		if a.ID == id {
			return a, true
		}
	}
	return contract.Agent{}, false
}

// ReadProcess reads and checks one record file, decoding each line once: what is not a dispatch is
// kept, each dispatch line is checked against the pass rules as it goes by (passChecker) and kept in
// the process's spool, so that memory does not grow with the number of dispatches.
func ReadProcess(path string) (*Process, error) { return readProcessIn(path, "") }

// readProcessIn is ReadProcess with the dispatch spool in dir ("" for TMPDIR).
func readProcessIn(path, spoolDir string) (*Process, error) {
	b := NewBuilder(path)
	b.c.p.spool.dir = spoolDir
	if err := b.c.readFile(); err != nil {
		b.c.p.Close()
		return nil, err
	}
	return b.finish("reading")
}

// readFile feeds every record of the process's file to add, skipping damaged lines (add reports
// them).
func (c *collector) readFile() error {
	f, err := boundedread.Open(c.p.Path)
	if err != nil {
		return unreadableError{fmt.Errorf("reading records: %w", err)}
	}
	defer f.Close()
	d := NewDecoder(f)
	d.ReuseDispatches()
	d.SkipBadLines()
	for {
		rec, err := d.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return unreadableError{fmt.Errorf("reading records %s: %w", c.p.Path, err)}
		}
		c.add(rec)
		if d.Headerless() && !c.headerless {
			c.headerless = true
			c.p.Header.PID = pidOfFile(c.p.Path)
			c.p.Problems = append(c.p.Problems, fmt.Sprintf(
				"%s: no header before this line; process id %d taken from the file's name, its command line and host are unknown",
				c.fileLine(rec.Line), c.p.Header.PID))
		}
	}
}

// pidOfFile is the process id in a record file's name (<pid>.ndjson, <pid>-<image>.ndjson), 0 when
// it holds none.
func pidOfFile(path string) int64 {
	base := strings.TrimSuffix(filepath.Base(path), ".ndjson")
	base, _, _ = strings.Cut(base, "-")
	pid, err := strconv.ParseInt(base, 10, 64)
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}

// ErrUnreadable marks an error of one record file itself (it cannot be opened or read, has no
// header, or a header of another contract version), which costs that file and no other.
var ErrUnreadable = errors.New("unreadable record file")

type unreadableError struct{ err error }

func (e unreadableError) Error() string        { return e.err.Error() }
func (e unreadableError) Unwrap() error        { return e.err }
func (e unreadableError) Is(target error) bool { return target == ErrUnreadable }

// ReadRunDir reads every records/*.ndjson file of a run directory, ordered by process id.
func ReadRunDir(runDir string) ([]*Process, error) {
	return readRunDir(runDir, ReadProcess)
}

type collector struct {
	p          *Process
	headerless bool // the no-header problem was reported
	agents     map[uint64]bool
	check      *passChecker
}

func (c *collector) problem(line int, format string, args ...any) {
	c.p.Problems = append(c.p.Problems, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, args...))
}

// fileLine names a line of the record file as the user finds it in a kept run directory.
func (c *collector) fileLine(line int) string {
	return fmt.Sprintf("%s line %d", filepath.Join(filepath.Base(filepath.Dir(c.p.Path)), filepath.Base(c.p.Path)), line)
}

func (c *collector) add(rec Record) {
	p := c.p
	if p.End != nil && rec.Type != TypeTruncated && rec.Type != TypeSkipped {
		c.problem(rec.Line, "%s record after the end record", rec.Type)
	}
	if rec.Recovered {
		p.Problems = append(p.Problems, fmt.Sprintf(
			"%s: the start of this line was cut short and is lost; the %s record after it is kept", c.fileLine(rec.Line), rec.Type))
	}
	if rec.Type != contract.RecDispatch && rec.Trace == nil {
		p.kept = append(p.kept, rec)
	}
	switch rec.Type {
	case TypeSkipped:
		p.Problems = append(p.Problems, fmt.Sprintf("%s: damaged line skipped: %v", c.fileLine(rec.Line), rec.Err))
	case contract.RecHeader:
		p.Header = *rec.Header
	case contract.RecAgent:
		if c.agents[rec.Agent.ID] {
			c.problem(rec.Line, "agent %d listed twice; the later record wins", rec.Agent.ID)
			for i := range p.Agents {
				if p.Agents[i].ID == rec.Agent.ID {
					p.Agents[i] = *rec.Agent
				}
			}
			return
		}
		c.agents[rec.Agent.ID] = true
		p.Agents = append(p.Agents, *rec.Agent)
	case contract.RecKernel:
		k := *rec.Kernel
		if old, ok := p.Kernels[k.KernelID]; ok && old != k {
			c.problem(rec.Line, "kernel %d redefined with different fields; the later record wins", k.KernelID)
		}
		p.Kernels[k.KernelID] = k
	case contract.RecDispatch:
		c.checkDispatch(rec.Line, rec.Dispatch)
		c.check.add(rec.Dispatch)
		p.passCounts[rec.Dispatch.AgentID] = max(p.passCounts[rec.Dispatch.AgentID], rec.Dispatch.Passes)
		p.spool.add(rec.Line, rec.Recovered, rec.Dispatch)
	case contract.RecDecline:
		p.Declines = append(p.Declines, *rec.Decline)
	case contract.RecWarning:
		p.Warnings = append(p.Warnings, rec.Message.Message)
	case contract.RecFatal:
		p.Fatals = append(p.Fatals, rec.Message.Message)
	case contract.RecEnd:
		p.End = rec.End
	case contract.RecAPI, contract.RecMarker, contract.RecCopy:
		c.checkTrace(rec.Line, rec.Trace)
		p.traces.add(rec.Line, rec.Trace)
	case contract.RecStopped:
		p.Stopped = rec.Stopped.Reason
		p.Problems = append(p.Problems, fmt.Sprintf("%s: the tool stopped recording this process: %s", c.fileLine(rec.Line), p.Stopped))
	case TypeTruncated:
		p.Truncated = true
		c.problem(rec.Line, "incomplete last line ignored (the process stopped in the middle of a write)")
	}
}

// checkDispatch reports references the file never defined and values the hardware did not deliver.
func (c *collector) checkDispatch(line int, d *contract.Dispatch) {
	if _, ok := c.p.Kernels[d.KernelID]; !ok {
		c.problem(line, "dispatch %d pass %d names kernel %d, which has no kernel record before it",
			d.DispatchID, d.Pass, d.KernelID)
	}
	if !c.agents[d.AgentID] {
		c.problem(line, "dispatch %d pass %d names agent %d, which has no agent record before it",
			d.DispatchID, d.Pass, d.AgentID)
	}
	for _, cv := range d.Counters {
		missing := 0
		for _, v := range cv.Values {
			if v == nil {
				missing++
			}
		}
		if missing > 0 {
			c.problem(line, "dispatch %d pass %d: counter %s: %d of %d instance values were not delivered (null)",
				d.DispatchID, d.Pass, cv.Name, missing, len(cv.Values))
		}
	}
}
