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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/jsonnum"
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

// Dispatch is one executed pass of one dispatch.
type Dispatch struct {
	DispatchID uint64
	Pass       int  // 0-based replay pass
	Replayed   bool // the dispatch has several passes: its rows carry replay_pass
	// Rotated: the run rotated its groups (pmc_groups); its rows carry the Group the dispatch
	// collected as pmc_group.
	Rotated       bool
	Group         int
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
	c         *conn
	inTx      bool
	uuid      string
	nid, pid  int64
	ppid      int64
	strings   map[string]int64
	threads   map[uint64]bool
	queues    map[int64]bool // by row id
	streams   map[int64]bool
	nodes     map[int64]bool
	procs     map[int64]bool
	rows      map[rowKey]int64 // the current process's ids -> row ids
	maxRow    map[string]int64 // the largest row id of each kind so far
	later     bool             // the current process is not the database's first
	events    int64            // rows of rocpd_event (and rocpd_kernel_dispatch) so far
	stmts     struct{ str, thread, queue, stream *stmt }
	ev, kd    *batch
	pmc       *batch
	catEvent  int64 // string id of KERNEL_DISPATCH
	empty     int64 // string id of ""
	done      bool  // Close moved the file to its name
	inPlace   bool  // CreateInto: the caller owns tmp and moves it
	ext       []byte
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
	w.strings, w.threads = map[string]int64{}, map[uint64]bool{}
	w.queues, w.streams, w.nodes, w.procs = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
	w.rows, w.maxRow = map[rowKey]int64{}, map[string]int64{}
	if err := w.open(); err != nil {
		w.Abort()
		return nil, fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	if err := w.begin(p); err != nil {
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

// begin creates the schema and writes the metadata, node and process rows.
func (w *Writer) begin(p Process) error {
	guid := guidOf(p)
	w.uuid = uuidOf(guid)
	for _, s := range schemaStatements(w.uuid, guid) {
		if err := w.c.exec("", s); err != nil {
			return fmt.Errorf("creating the schema: %w", err)
		}
	}
	if err := w.prepareSmall(); err != nil {
		return err
	}
	for _, tv := range [][2]string{{"schema_version", SchemaVersion}, {"schema_version_major", schemaVersionMajor},
		{"schema_version_minor", schemaVersionMinor}, {"schema_version_patch", schemaVersionPatch},
		{"uuid", w.uuid}, {"guid", guid}} {
		if err := w.exec("metadata", "INSERT INTO `"+w.table("metadata")+"` (tag, value) VALUES (?, ?)", tv[0], tv[1]); err != nil {
			return err
		}
	}
	var err error
	if w.empty, err = w.str(""); err != nil {
		return err
	}
	if w.catEvent, err = w.str("KERNEL_DISPATCH"); err != nil {
		return err
	}
	return w.startProcess(p)
}

func (w *Writer) table(name string) string { return physical(name, w.uuid) }

func (w *Writer) exec(table, query string, args ...any) error {
	return w.c.exec(w.table(table), query, args...)
}

// prepareSmall prepares the inserts of rows added once per string, thread, queue and stream.
func (w *Writer) prepareSmall() error {
	var err error
	prep := func(s **stmt, table, cols string) {
		if err == nil {
			*s, err = w.c.prepare(w.table(table), "INSERT INTO `"+w.table(table)+"` ("+cols+") VALUES ("+
				strings.TrimSuffix(strings.Repeat("?, ", strings.Count(cols, ",")+1), ", ")+")")
		}
	}
	prep(&w.stmts.str, "string", "id, string")
	prep(&w.stmts.thread, "info_thread", "id, nid, ppid, pid, tid")
	prep(&w.stmts.queue, "info_queue", "id, nid, pid, name")
	prep(&w.stmts.stream, "info_stream", "id, nid, pid, name")
	return err
}

// prepareBatches prepares the inserts of the rows every pass adds.
func (w *Writer) prepareBatches() error {
	var err error
	// The same on every row, and so written into the statements: node, process, the event category
	// and the empty region name. The event's stack_id and parent_stack_id are both its correlation id.
	k := func(v int64) string { return strconv.FormatInt(v, 10) }
	if w.ev, err = newBatch(w.c, w.table("event"), []string{"id", "category_id", "stack_id", "parent_stack_id",
		"correlation_id", "extdata"}, "(?, "+k(w.catEvent)+", ?, ?, ?, ?)"); err != nil {
		return err
	}
	if w.kd, err = newBatch(w.c, w.table("kernel_dispatch"), []string{"id", "event_id", "nid", "pid", "region_name_id",
		"tid", "agent_id", "kernel_id", "dispatch_id", "queue_id", "stream_id", "start", "end", "private_segment_size",
		"group_segment_size", "workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y",
		"grid_size_z", "extdata"},
		"(?, ?, "+k(w.nid)+", "+k(w.pid)+", "+k(w.empty)+", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"); err != nil {
		return err
	}
	w.pmc, err = newBatch(w.c, w.table("pmc_event"), []string{"event_id", "pmc_id", "value", "extdata"}, "(?, ?, ?, ?)")
	return err
}

// str returns the id of s in the string table, adding it the first time.
func (w *Writer) str(s string) (int64, error) {
	if id, ok := w.strings[s]; ok {
		return id, nil
	}
	id := int64(len(w.strings) + 1)
	if err := w.stmts.str.exec(id, s); err != nil {
		return 0, err
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
		w.row("agent", a.ID), w.nid, w.pid, typ, int64(a.ID), a.LogicalIndex, a.TypeIndex, a.UUID, a.Name, a.ModelName,
		a.VendorName, a.ProductName, a.ProductName, jsonText(a.Extdata))
}

// Counter adds one counter of an agent.
func (w *Writer) Counter(c Counter) error {
	if _, err := w.str(c.Name); err != nil {
		return err
	}
	return w.exec("info_pmc", "INSERT INTO `"+w.table("info_pmc")+"` (id, nid, pid, agent_id, target_arch, name, symbol, "+
		"description, component, value_type, block, expression, is_constant, is_derived, extdata) VALUES (?, ?, ?, ?, 'GPU', ?, ?, ?, ?, 'ABS', ?, ?, 0, ?, ?)",
		w.row("pmc", c.ID), w.nid, w.pid, w.row("agent", c.AgentID), c.Name, c.Name, c.Description, nullIfEmpty(c.Component),
		c.Block, c.Expression, boolInt(c.Derived), jsonText(c.Extdata))
}

func boolInt(b bool) int64 {
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
		w.row("kernel", k.ID), w.nid, w.pid, k.Name, k.DisplayName, k.KernargSize, k.GroupSegmentSize, k.PrivateSegmentSize,
		k.SGPR, k.ArchVGPR, k.AccumVGPR, jsonText(k.Extdata))
}

// Dispatch adds one pass of a dispatch: its own event and rocpd_kernel_dispatch row (same dispatch
// id as its other passes, its own timestamps, its pass in extdata as replay_pass), and one
// rocpd_pmc_event row per counter, attached to that pass's event. The row's value is the sum over
// the counter's hardware instances, what counters_collection reports, and its extdata lists the
// instance values in order; rocprofv3 writes a row per instance (without its position), which gives
// the same sums from many times the rows, the bulk of a database's size and writing time.
func (w *Writer) Dispatch(d Dispatch, counters []CounterValues) error {
	if err := w.seen(d); err != nil {
		return err
	}
	w.events++
	id := w.events
	extdata := "{}"
	switch {
	case d.Replayed:
		extdata = fmt.Sprintf(`{"replay_pass":%d}`, d.Pass)
	case d.Rotated:
		extdata = fmt.Sprintf(`{"pmc_group":%d}`, d.Group)
	}
	if err := w.ev.add(id, int64(d.CorrelationID), int64(d.CorrelationID), int64(d.ExternalID), extdata); err != nil {
		return err
	}
	if err := w.kd.add(id, id, int64(d.ThreadID), w.row("agent", d.AgentID), w.row("kernel", d.KernelID), int64(d.DispatchID),
		w.row("queue", d.QueueID), w.row("stream", d.StreamID), d.Start, d.End, d.Scratch, d.LDS,
		int64(d.Workgroup[0]), int64(d.Workgroup[1]), int64(d.Workgroup[2]),
		int64(d.Grid[0]), int64(d.Grid[1]), int64(d.Grid[2]), extdata); err != nil {
		return err
	}
	for _, c := range counters {
		if err := w.pmc.add(id, w.row("pmc", c.CounterID), sum(c.Values), w.instances(c.Values)); err != nil {
			return err
		}
	}
	return nil
}

// instances is the extdata of a counter row: {"instances":[...]}, its values per hardware instance
// in the order the hardware reports them.
func (w *Writer) instances(vals []float64) string {
	b := append(w.ext[:0], `{"instances":[`...)
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonnum.Append(b, v)
	}
	w.ext = append(b, "]}"...)
	return string(w.ext)
}

func sum(vals []float64) float64 {
	var s float64
	for _, v := range vals {
		s += v
	}
	return s
}

// seen adds the thread, queue and stream rows of a dispatch the first time each is named, so that
// the views' joins find them.
func (w *Writer) seen(d Dispatch) error {
	if !w.threads[d.ThreadID] {
		if err := w.stmts.thread.exec(int64(d.ThreadID), w.nid, w.ppid, w.pid, int64(d.ThreadID)); err != nil {
			return err
		}
		w.threads[d.ThreadID] = true
	}
	for _, q := range []struct {
		id   uint64
		kind string
		have map[int64]bool
		stmt *stmt
		what string
	}{{d.QueueID, "queue", w.queues, w.stmts.queue, "Queue"}, {d.StreamID, "stream", w.streams, w.stmts.stream, "Stream"}} {
		row := w.row(q.kind, q.id)
		if q.have[row] {
			continue
		}
		name := fmt.Sprintf("%s %d", q.what, q.id)
		if q.id == 0 {
			name = "Default " + q.what
		}
		if err := q.stmt.exec(row, w.nid, w.pid, name); err != nil {
			return err
		}
		q.have[row] = true
	}
	return nil
}

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

func (w *Writer) flushBatches() error {
	for _, b := range []*batch{w.ev, w.kd, w.pmc} {
		if b == nil {
			return errors.New("an earlier failure closed the per-pass inserts")
		}
		if err := b.flush(); err != nil {
			return err
		}
	}
	return nil
}

// closeBatches finalizes the per-pass inserts (their statements hold the process's constants).
func (w *Writer) closeBatches() error {
	var err error
	for _, b := range []*batch{w.ev, w.kd, w.pmc} {
		if b != nil {
			err = errors.Join(err, b.full.close())
		}
	}
	w.ev, w.kd, w.pmc = nil, nil, nil
	return err
}

func (w *Writer) finish() error {
	if err := w.flushBatches(); err != nil {
		return err
	}
	if err := w.c.wait(); err != nil {
		return err
	}
	err := w.c.exec("", "COMMIT")
	w.inTx = false
	if err != nil {
		return fmt.Errorf("committing: %w", err)
	}
	err = w.closeConn()
	return err
}

// closeConn finalizes the statements, which SQLite needs before it lets the file go, and closes the
// connection.
func (w *Writer) closeConn() error {
	var err error
	for _, s := range []*stmt{w.stmts.str, w.stmts.thread, w.stmts.queue, w.stmts.stream} {
		err = errors.Join(err, s.close())
	}
	err = errors.Join(err, w.closeBatches(), w.c.close())
	w.c = nil
	return err
}

// Abort drops the database being written; after Close it does nothing.
func (w *Writer) Abort() {
	if w.c != nil {
		_ = w.c.wait()
		if w.inTx {
			_ = w.c.exec("", "ROLLBACK")
			w.inTx = false
		}
		_ = w.closeConn()
	}
	if !w.done && !w.inPlace {
		_ = os.Remove(w.tmp)
	}
}
