// Package rocpd writes a profiled process as a rocpd database: the SQLite file rocprofv3 writes with
// `-f rocpd` (`<prefix>_results.db`), with its tables, views, string table and GUID/node/pid keys,
// so that SQL written for rocprofv3's databases and the rocpd tools read gorocprof's.
//
// The Writer knows nothing of how records are read: a caller hands it the process, its agents,
// counters and kernels, then every dispatch with each of its passes and that pass's counter values,
// and closes it. Everything goes in one transaction, committed by Close; the file appears under its name
// only then, so a failed write leaves no half database behind.
package rocpd

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
)

// Process is the profiled process a database describes.
type Process struct {
	PID, PPID int64
	Hostname  string
	MachineID string // the node's identity (rocpd_info_node.machine_id); the hostname when empty
	Init      int64  // start of the process, ns
	Fini      int64  // end of the process, ns; 0 when it did not end normally (stored as NULL)
	Command   []string
	Extdata   json.RawMessage // a JSON object kept with the process; {} when nil
}

func (p Process) machineID() string {
	if p.MachineID != "" {
		return p.MachineID
	}
	return p.Hostname
}

// Agent is one GPU or CPU. ID is its row id, the agent id dispatches and counters name: rocprofv3
// uses the KFD node id (absolute_index).
type Agent struct {
	ID           uint64
	Type         string // "GPU" or "CPU"
	LogicalIndex int64
	TypeIndex    int64
	UUID         int64
	Name         string
	ModelName    string
	VendorName   string
	ProductName  string
	Extdata      json.RawMessage // the agent as results.json has it; rocpd convert reads it back
}

// Counter is one counter of one agent; ID is what CounterValues name it by.
type Counter struct {
	ID, AgentID uint64
	Name        string
	Description string
	Block       string
	Expression  string
	Component   string
	Derived     bool
	Extdata     json.RawMessage // what results.json says of it that the table has no column for
}

// Kernel is one kernel symbol; ID is the kernel id dispatches name it by.
type Kernel struct {
	ID                 uint64
	Name               string // mangled
	DisplayName        string // the name views show (demangled, truncated or mangled as asked)
	KernargSize        int64
	GroupSegmentSize   int64
	PrivateSegmentSize int64
	SGPR, ArchVGPR     int64
	AccumVGPR          int64
	Extdata            json.RawMessage
}

// Dispatch is one dispatch with every pass it ran: one rocpd_kernel_dispatch row (id = dispatch id)
// timed by its first pass, as kernel_stats.csv times it.
type Dispatch struct {
	DispatchID uint64
	// Replayed: the dispatch was to run several passes; each of Passes gets a gorocprof_pass row.
	Replayed bool
	// Rotated: the run rotated its groups (pmc_groups); the row carries the Group the dispatch
	// collected as pmc_group.
	Rotated           bool
	Group             int
	AgentID, KernelID uint64
	Grid, Workgroup   [3]uint32
	LDS, Scratch      int64
	// RegionName is the marker range the dispatch was launched in (region_name_id); "" for none.
	RegionName string
	Passes     []Pass // in pass order
}

// Pass is one executed pass of a dispatch and its counters.
type Pass struct {
	Pass                      int // 0-based replay pass
	CorrelationID, ExternalID uint64
	QueueID, StreamID         uint64
	ThreadID                  uint64
	Start, End                int64
	Counters                  []CounterValues
}

// CounterValues are one counter's values on one pass, one per hardware instance.
type CounterValues struct {
	CounterID uint64
	Values    []float64
}

// Writer writes the database of one or more processes: each has its own GUID and its own tables
// (rocpd_<table>_<uuid>), as rocprofv3 writes one database per process, and the base views join them.
type Writer struct {
	path, tmp string
	c         *conn
	inTx      bool
	done      bool // Close moved the file to its name
	inPlace   bool // CreateInto: the caller owns tmp and moves it
	uuids     []string
	p         *procWriter // the process being written
}

// Create starts the database of one process at path (an existing file there is replaced when Close
// succeeds, as rocprofv3 replaces its own).
func Create(path string, p Process) (*Writer, error) {
	return create(&Writer{path: path, tmp: path + ".tmp"}, p)
}

// CreateInto starts the database of one process in tmp, an empty file the caller created and will
// move to path (the name errors give) together with other files: Close leaves the database in tmp,
// and Abort leaves removing tmp to the caller.
func CreateInto(tmp, path string, p Process) (*Writer, error) {
	return create(&Writer{path: path, tmp: tmp, inPlace: true}, p)
}

func create(w *Writer, p Process) (*Writer, error) {
	if err := w.open(); err != nil {
		w.Abort()
		return nil, fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	if err := w.startProcess(p); err != nil {
		w.Abort()
		return nil, fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	return w, nil
}

func (w *Writer) open() error {
	// CreateInto's tmp is the caller's new empty file, which SQLite takes for an empty database.
	if !w.inPlace {
		if err := os.Remove(w.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	// No journal and no syncs: the file is private until it is renamed (by Close, or by CreateInto's
	// caller after its own sync), so a crash can only leave the temporary file, never a damaged
	// database under the real name.
	// A bounded page cache (64 MiB) keeps memory flat however many dispatches there are.
	c, err := openConn("file:" + w.tmp + "?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)" +
		"&_pragma=cache_size(-65536)&_pragma=locking_mode(EXCLUSIVE)")
	if err != nil {
		return err
	}
	w.c = c
	if err := c.exec("", "BEGIN"); err != nil {
		return err
	}
	w.inTx = true
	return nil
}

// startProcess creates the tables of p under a GUID no earlier process of the database has, and
// writes its metadata, node and process rows.
func (w *Writer) startProcess(p Process) error {
	guid := guidOf(p, 0)
	for n := 1; slices.Contains(w.uuids, uuidOf(guid)); n++ {
		guid = guidOf(p, n)
	}
	pw, err := startProcess(w.c, p, guid)
	if err != nil {
		return err
	}
	w.p = pw
	w.uuids = append(w.uuids, pw.uuid)
	return nil
}

// Process starts another process in the same database (processes that share one output name). Its
// rows go into tables of its own under its own GUID, with the ids it gives them, as in a database
// of its own; the views read every process's.
func (w *Writer) Process(p Process) error {
	err := w.p.finish()
	if err == nil {
		err = w.startProcess(p)
	}
	if err != nil {
		return fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	return nil
}

// Agent adds one agent of the current process.
func (w *Writer) Agent(a Agent) error { return w.p.agent(a) }

// Counter adds one counter of an agent of the current process.
func (w *Writer) Counter(c Counter) error { return w.p.counter(c) }

// Kernel adds one kernel symbol of the current process.
func (w *Writer) Kernel(k Kernel) error { return w.p.kernel(k) }

// Dispatch adds one dispatch of the current process with every pass it ran (dispatch.go).
func (w *Writer) Dispatch(d *Dispatch) error { return w.p.dispatch(d) }

// Close commits the database and moves it to its name (CreateInto: leaves it where it is).
func (w *Writer) Close() error {
	err := w.finish()
	if err == nil && !w.inPlace {
		err = os.Rename(w.tmp, w.path)
	}
	w.done = err == nil
	if err != nil {
		w.Abort()
		return fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	return nil
}

// finish ends the last process, creates the views over every process's tables and commits.
func (w *Writer) finish() error {
	if err := w.p.finish(); err != nil {
		return err
	}
	for _, s := range viewStatements(w.uuids) {
		if err := w.c.exec("", s); err != nil {
			return fmt.Errorf("creating the views: %w", err)
		}
	}
	err := w.c.exec("", "COMMIT")
	w.inTx = false
	if err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	err = w.c.close()
	w.c = nil
	return err
}

// Abort drops the database being written; after Close it does nothing.
func (w *Writer) Abort() {
	if w.c != nil {
		if w.p != nil {
			w.p.abort()
		}
		if w.inTx {
			_ = w.c.exec("", "ROLLBACK")
			w.inTx = false
		}
		_ = w.c.close()
		w.c = nil
	}
	if !w.done && !w.inPlace {
		_ = os.Remove(w.tmp)
	}
}
