// Package rocpd writes a profiled process as a rocpd database: the SQLite file rocprofv3 writes with
// `-f rocpd` (`<prefix>_results.db`), with its tables, views, string table and GUID/node/pid keys,
// so that SQL written for rocprofv3's databases and the rocpd tools read gorocprof's.
//
// The Writer knows nothing of how records are read: a caller hands it the process, its agents,
// counters and kernels, then every pass of every dispatch with that pass's counter values, and
// closes it. Everything goes in one transaction, committed by Close; the file appears under its name
// only then, so a failed write leaves no half database behind.
package rocpd

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: the binary stays static
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

// Dispatch is one executed pass of one dispatch.
type Dispatch struct {
	DispatchID    uint64
	Pass          int  // 0-based replay pass
	Replayed      bool // the dispatch has several passes: its rows carry replay_pass
	CorrelationID uint64
	ExternalID    uint64
	AgentID       uint64
	QueueID       uint64
	StreamID      uint64
	ThreadID      uint64
	KernelID      uint64
	Grid          [3]uint32
	Workgroup     [3]uint32
	LDS, Scratch  int64
	Start, End    int64
}

// CounterValues are one counter's values on one pass, one per hardware instance.
type CounterValues struct {
	CounterID uint64
	Values    []float64
}

// Writer writes one process's database.
type Writer struct {
	path, tmp string
	db        *sql.DB
	tx        *sql.Tx
	uuid      string
	nid, pid  int64
	ppid      int64
	strings   map[string]int64
	threads   map[uint64]bool
	queues    map[uint64]bool
	streams   map[uint64]bool
	events    int64 // rows of rocpd_event (and rocpd_kernel_dispatch) so far
	stmts     struct{ str, thread, queue, stream *sql.Stmt }
	ev, kd    *batch
	pmc       *batch
	catEvent  int64 // string id of KERNEL_DISPATCH
	empty     int64 // string id of ""
	done      bool  // Close moved the file to its name
}

// Create starts the database of one process at path (an existing file there is replaced when Close
// succeeds, as rocprofv3 replaces its own).
func Create(path string, p Process) (*Writer, error) {
	w := &Writer{path: path, tmp: path + ".tmp", pid: p.PID, ppid: p.PPID, strings: map[string]int64{},
		threads: map[uint64]bool{}, queues: map[uint64]bool{}, streams: map[uint64]bool{}}
	if err := w.open(); err != nil {
		w.Abort()
		return nil, fmt.Errorf("rocpd database %s: %w", path, err)
	}
	if err := w.begin(p); err != nil {
		w.Abort()
		return nil, fmt.Errorf("rocpd database %s: %w", path, err)
	}
	return w, nil
}

func (w *Writer) open() error {
	if err := os.Remove(w.tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// No journal and no syncs: the file is private until Close renames it, so a crash can only
	// leave a .tmp file, never a damaged database under the real name.
	db, err := sql.Open("sqlite", "file:"+w.tmp+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	w.db = db
	if w.tx, err = db.Begin(); err != nil {
		return err
	}
	return nil
}

// begin creates the schema and writes the metadata, node and process rows.
func (w *Writer) begin(p Process) error {
	guid := guidOf(p)
	w.uuid = uuidOf(guid)
	for _, s := range schemaStatements(w.uuid, guid) {
		if _, err := w.tx.Exec(s); err != nil {
			return fmt.Errorf("creating the schema: %w", err)
		}
	}
	if err := w.prepare(); err != nil {
		return err
	}
	for _, tv := range [][2]string{{"schema_version", SchemaVersion}, {"schema_version_major", schemaVersionMajor},
		{"schema_version_minor", schemaVersionMinor}, {"schema_version_patch", schemaVersionPatch},
		{"uuid", w.uuid}, {"guid", guid}} {
		if err := w.exec("metadata", "INSERT INTO `"+w.table("metadata")+"` (tag, value) VALUES (?, ?)", tv[0], tv[1]); err != nil {
			return err
		}
	}
	machine := p.machineID()
	hash := nodeHash(machine)
	w.nid = nodeID(hash)
	if err := w.exec("info_node", "INSERT INTO `"+w.table("info_node")+"` (id, hash, machine_id, hostname) VALUES (?, ?, ?, ?)",
		w.nid, hash, machine, p.Hostname); err != nil {
		return err
	}
	var fini any
	if p.Fini != 0 {
		fini = p.Fini
	}
	if err := w.exec("info_process", "INSERT INTO `"+w.table("info_process")+
		"` (id, nid, ppid, pid, init, fini, start, end, command, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		p.PID, w.nid, p.PPID, p.PID, p.Init, fini, p.Init, fini, strings.Join(p.Command, " "), jsonText(p.Extdata)); err != nil {
		return err
	}
	var err error
	if w.empty, err = w.str(""); err != nil {
		return err
	}
	w.catEvent, err = w.str("KERNEL_DISPATCH")
	return err
}

func (w *Writer) table(name string) string { return physical(name, w.uuid) }

func (w *Writer) exec(table, query string, args ...any) error {
	if _, err := w.tx.Exec(query, args...); err != nil {
		return fmt.Errorf("inserting into %s: %w", w.table(table), err)
	}
	return nil
}

func (w *Writer) prepare() error {
	var err error
	prep := func(s **sql.Stmt, query string) {
		if err == nil {
			*s, err = w.tx.Prepare(query)
		}
	}
	prep(&w.stmts.str, "INSERT INTO `"+w.table("string")+"` (id, string) VALUES (?, ?)")
	prep(&w.stmts.thread, "INSERT INTO `"+w.table("info_thread")+"` (id, nid, ppid, pid, tid) VALUES (?, ?, ?, ?, ?)")
	prep(&w.stmts.queue, "INSERT INTO `"+w.table("info_queue")+"` (id, nid, pid, name) VALUES (?, ?, ?, ?)")
	prep(&w.stmts.stream, "INSERT INTO `"+w.table("info_stream")+"` (id, nid, pid, name) VALUES (?, ?, ?, ?)")
	if err != nil {
		return fmt.Errorf("preparing inserts: %w", err)
	}
	if w.ev, err = newBatch(w.tx, w.table("event"), "id", "category_id", "stack_id", "parent_stack_id", "correlation_id", "extdata"); err != nil {
		return err
	}
	if w.kd, err = newBatch(w.tx, w.table("kernel_dispatch"), "id", "nid", "pid", "tid", "agent_id", "kernel_id",
		"dispatch_id", "queue_id", "stream_id", "start", "end", "private_segment_size", "group_segment_size",
		"workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y", "grid_size_z",
		"region_name_id", "event_id", "extdata"); err != nil {
		return err
	}
	w.pmc, err = newBatch(w.tx, w.table("pmc_event"), "event_id", "pmc_id", "value")
	return err
}

// str returns the id of s in the string table, adding it the first time.
func (w *Writer) str(s string) (int64, error) {
	if id, ok := w.strings[s]; ok {
		return id, nil
	}
	id := int64(len(w.strings) + 1)
	if _, err := w.stmts.str.Exec(id, s); err != nil {
		return 0, fmt.Errorf("inserting into %s: %w", w.table("string"), err)
	}
	w.strings[s] = id
	return id, nil
}

func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	return string(raw)
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Agent adds one agent.
func (w *Writer) Agent(a Agent) error {
	for _, s := range []string{a.Name, a.ProductName} {
		if _, err := w.str(s); err != nil {
			return err
		}
	}
	typ := strings.ToUpper(a.Type)
	if typ != "CPU" {
		typ = "GPU"
	}
	return w.exec("info_agent", "INSERT INTO `"+w.table("info_agent")+"` (id, nid, pid, type, absolute_index, logical_index, "+
		"type_index, uuid, name, model_name, vendor_name, product_name, user_name, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		int64(a.ID), w.nid, w.pid, typ, int64(a.ID), a.LogicalIndex, a.TypeIndex, a.UUID, a.Name, a.ModelName,
		a.VendorName, a.ProductName, a.ProductName, jsonText(a.Extdata))
}

// Counter adds one counter of an agent.
func (w *Writer) Counter(c Counter) error {
	if _, err := w.str(c.Name); err != nil {
		return err
	}
	return w.exec("info_pmc", "INSERT INTO `"+w.table("info_pmc")+"` (id, nid, pid, agent_id, target_arch, name, symbol, "+
		"description, component, value_type, block, expression, is_constant, is_derived) VALUES (?, ?, ?, ?, 'GPU', ?, ?, ?, ?, 'ABS', ?, ?, 0, ?)",
		int64(c.ID), w.nid, w.pid, int64(c.AgentID), c.Name, c.Name, c.Description, nullIfEmpty(c.Component),
		c.Block, c.Expression, boolInt(c.Derived))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Kernel adds one kernel symbol. Its code_object_id is 0: gorocprof's records carry no code objects,
// so rocpd_info_code_object stays empty (no view joins kernels to it).
func (w *Writer) Kernel(k Kernel) error {
	for _, s := range []string{k.Name, k.DisplayName} {
		if _, err := w.str(s); err != nil {
			return err
		}
	}
	return w.exec("info_kernel_symbol", "INSERT INTO `"+w.table("info_kernel_symbol")+"` (id, nid, pid, code_object_id, "+
		"kernel_name, display_name, kernarg_segment_size, group_segment_size, private_segment_size, sgpr_count, "+
		"arch_vgpr_count, accum_vgpr_count, extdata) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		int64(k.ID), w.nid, w.pid, k.Name, k.DisplayName, k.KernargSize, k.GroupSegmentSize, k.PrivateSegmentSize,
		k.SGPR, k.ArchVGPR, k.AccumVGPR, jsonText(k.Extdata))
}

// Dispatch adds one pass of a dispatch: its own event and rocpd_kernel_dispatch row (same dispatch
// id as its other passes, its own timestamps, its pass in extdata as replay_pass), and one
// rocpd_pmc_event row per counter instance, attached to that pass's event.
func (w *Writer) Dispatch(d Dispatch, counters []CounterValues) error {
	if err := w.seen(d); err != nil {
		return err
	}
	w.events++
	id := w.events
	extdata := "{}"
	if d.Replayed {
		extdata = fmt.Sprintf(`{"replay_pass":%d}`, d.Pass)
	}
	if err := w.ev.add(id, w.catEvent, int64(d.CorrelationID), int64(d.CorrelationID), int64(d.ExternalID), extdata); err != nil {
		return err
	}
	if err := w.kd.add(id, w.nid, w.pid, int64(d.ThreadID), int64(d.AgentID), int64(d.KernelID), int64(d.DispatchID),
		int64(d.QueueID), int64(d.StreamID), d.Start, d.End, d.Scratch, d.LDS,
		int64(d.Workgroup[0]), int64(d.Workgroup[1]), int64(d.Workgroup[2]),
		int64(d.Grid[0]), int64(d.Grid[1]), int64(d.Grid[2]), w.empty, id, extdata); err != nil {
		return err
	}
	for _, c := range counters {
		for _, v := range c.Values {
			if err := w.pmc.add(id, int64(c.CounterID), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// seen adds the thread, queue and stream rows of a dispatch the first time each is named, so that
// the views' joins find them.
func (w *Writer) seen(d Dispatch) error {
	if !w.threads[d.ThreadID] {
		if _, err := w.stmts.thread.Exec(int64(d.ThreadID), w.nid, w.ppid, w.pid, int64(d.ThreadID)); err != nil {
			return fmt.Errorf("inserting into %s: %w", w.table("info_thread"), err)
		}
		w.threads[d.ThreadID] = true
	}
	for _, q := range []struct {
		id   uint64
		have map[uint64]bool
		stmt *sql.Stmt
		what string
	}{{d.QueueID, w.queues, w.stmts.queue, "Queue"}, {d.StreamID, w.streams, w.stmts.stream, "Stream"}} {
		if q.have[q.id] {
			continue
		}
		name := fmt.Sprintf("%s %d", q.what, q.id)
		if q.id == 0 {
			name = "Default " + q.what
		}
		if _, err := q.stmt.Exec(int64(q.id), w.nid, w.pid, name); err != nil {
			return fmt.Errorf("inserting the %s row: %w", strings.ToLower(q.what), err)
		}
		q.have[q.id] = true
	}
	return nil
}

// Close commits the database and moves it to its name.
func (w *Writer) Close() error {
	err := w.finish()
	if err == nil {
		err = os.Rename(w.tmp, w.path)
	}
	w.done = err == nil
	if err != nil {
		w.Abort()
		return fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	return nil
}

func (w *Writer) finish() error {
	for _, b := range []*batch{w.ev, w.kd, w.pmc} {
		if err := b.flush(); err != nil {
			return err
		}
	}
	err := w.tx.Commit()
	w.tx = nil
	if err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	err = w.db.Close()
	w.db = nil
	return err
}

// Abort drops the database being written; after Close it does nothing.
func (w *Writer) Abort() {
	if w.tx != nil {
		_ = w.tx.Rollback()
		w.tx = nil
	}
	if w.db != nil {
		_ = w.db.Close()
		w.db = nil
	}
	if !w.done {
		_ = os.Remove(w.tmp)
	}
}
