package rocpd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// procWriter writes the rows of one process into its own tables, each row under the id it is given
// (agents by node id, queues and streams by handle, threads by tid, the process by pid), as
// rocprofv3 keys them.
type procWriter struct {
	c        *conn
	uuid     string
	nid, pid int64
	ppid     int64
	strings  map[string]int64
	threads  map[uint64]bool
	queues   map[uint64]bool
	streams  map[uint64]bool
	named    [2]int             // queues and streams other than the default one named so far
	events   int64              // rows of rocpd_event so far
	passes   int64              // rows of gorocprof_pass so far
	regions  int64              // rows of rocpd_region so far
	samples  int64              // rows of rocpd_sample so far
	copies   int64              // rows of rocpd_memory_copy so far
	tracks   map[[2]int64]int64 // rocpd_track ids by thread and category string
	stmts    struct{ str, thread, queue, stream, track *stmt }
	ev, kd   *batch
	pmc      *batch
	pass     *batch
	passPMC  *batch
	tev      *batch // the events of trace records
	region   *batch
	sample   *batch
	mcopy    *batch
	catEvent int64    // string id of KERNEL_DISPATCH
	measured []uint64 // the counters of the dispatch being written that rocpd_pmc_event has
	ext      []byte
}

// startProcess creates the tables of a process with the given GUID, writes its metadata, node and
// process rows, prepares its inserts and starts running statements behind the caller.
func startProcess(c *conn, p Process, guid string) (*procWriter, error) {
	w := &procWriter{c: c, uuid: uuidOf(guid), pid: p.PID, ppid: p.PPID, strings: map[string]int64{},
		threads: map[uint64]bool{}, queues: map[uint64]bool{}, streams: map[uint64]bool{},
		tracks: map[[2]int64]int64{}}
	for _, s := range tableStatements(w.uuid, guid) {
		if err := c.exec("", s); err != nil {
			return nil, errors.Join(fmt.Errorf("creating the tables: %w", err), w.closeStmts())
		}
	}
	if err := w.begin(p, guid); err != nil {
		return nil, errors.Join(err, w.closeStmts())
	}
	c.start()
	return w, nil
}

func (w *procWriter) begin(p Process, guid string) error {
	if err := w.prepareSmall(); err != nil {
		return err
	}
	for _, tv := range [][2]string{{"schema_version", SchemaVersion}, {"uuid", w.uuid}, {"guid", guid}} {
		if err := w.exec("rocpd_metadata", "(tag, value) VALUES (?, ?)", tv[0], tv[1]); err != nil {
			return err
		}
	}
	var err error
	// The empty string is always there, the region name of what no range encloses.
	if _, err = w.str(""); err != nil {
		return err
	}
	if w.catEvent, err = w.str("KERNEL_DISPATCH"); err != nil {
		return err
	}
	machine := p.machineID()
	hash := nodeHash(machine)
	w.nid = nodeID(hash)
	// What gorocprof does not know of the node is '', as rocprofv3 writes what the system leaves empty.
	if err := w.exec("rocpd_info_node", "(id, hash, machine_id, system_name, hostname, release, version, hardware_name, "+
		"domain_name) VALUES (?, ?, ?, '', ?, '', '', '', '')", w.nid, hash, machine, p.Hostname); err != nil {
		return err
	}
	var fini any
	if p.Fini != 0 {
		fini = p.Fini
	}
	if err := w.exec("rocpd_info_process", "(id, nid, ppid, pid, init, fini, start, end, command, extdata) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", p.PID, w.nid, p.PPID, p.PID, p.Init, fini, p.Init, fini,
		strings.Join(p.Command, " "), jsonText(p.Extdata)); err != nil {
		return err
	}
	return w.prepareBatches()
}

func (w *procWriter) table(name string) string { return physical(name, w.uuid) }

// exec inserts one row into a table: rest is the column list and VALUES clause.
func (w *procWriter) exec(table, rest string, args ...any) error {
	t := w.table(table)
	return w.c.exec(t, "INSERT INTO `"+t+"` "+rest, args...)
}

// prepareSmall prepares the inserts of rows added once per string, thread, queue and stream.
func (w *procWriter) prepareSmall() error {
	var err error
	prep := func(s **stmt, table, cols string) {
		if err == nil {
			*s, err = w.c.prepare(w.table(table), "INSERT INTO `"+w.table(table)+"` ("+cols+") VALUES ("+
				strings.TrimSuffix(strings.Repeat("?, ", strings.Count(cols, ",")+1), ", ")+")")
		}
	}
	prep(&w.stmts.str, "rocpd_string", "id, string")
	prep(&w.stmts.thread, "rocpd_info_thread", "id, nid, ppid, pid, tid")
	prep(&w.stmts.queue, "rocpd_info_queue", "id, nid, pid, name")
	prep(&w.stmts.stream, "rocpd_info_stream", "id, nid, pid, name")
	prep(&w.stmts.track, "rocpd_track", "id, nid, pid, tid, name_id")
	return err
}

// prepareBatches prepares the inserts of the rows every dispatch adds.
func (w *procWriter) prepareBatches() error {
	var err error
	// The same on every row, and so written into the statements: node, process and the event
	// category. The event's stack_id and parent_stack_id are both its correlation id.
	k := func(v int64) string { return strconv.FormatInt(v, 10) }
	nidPid := k(w.nid) + ", " + k(w.pid)
	if w.ev, err = newBatch(w.c, w.table("rocpd_event"), []string{"id", "category_id", "stack_id", "parent_stack_id",
		"correlation_id", "extdata"}, "(?, "+k(w.catEvent)+", ?, ?, ?, ?)"); err != nil {
		return err
	}
	if w.kd, err = newBatch(w.c, w.table("rocpd_kernel_dispatch"), []string{"id", "event_id", "nid", "pid", "region_name_id",
		"tid", "agent_id", "kernel_id", "dispatch_id", "queue_id", "stream_id", "start", "end", "private_segment_size",
		"group_segment_size", "workgroup_size_x", "workgroup_size_y", "workgroup_size_z", "grid_size_x", "grid_size_y",
		"grid_size_z", "extdata"},
		"(?, ?, "+nidPid+", ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"); err != nil {
		return err
	}
	if w.pmc, err = newBatch(w.c, w.table("rocpd_pmc_event"), []string{"event_id", "pmc_id", "value", "extdata"},
		"(?, ?, ?, ?)"); err != nil {
		return err
	}
	if w.pass, err = newBatch(w.c, w.table("gorocprof_pass"), []string{"id", "nid", "pid", "dispatch_id", "pass", "stack_id",
		"correlation_id", "tid", "queue_id", "stream_id", "start", "end"},
		"(?, "+nidPid+", ?, ?, ?, ?, ?, ?, ?, ?, ?)"); err != nil {
		return err
	}
	if w.passPMC, err = newBatch(w.c, w.table("gorocprof_pass_pmc"), []string{"pass_id", "pmc_id", "value", "extdata"},
		"(?, ?, ?, ?)"); err != nil {
		return err
	}
	return w.traceBatches()
}

// str returns the id of s in the string table, adding it the first time.
func (w *procWriter) str(s string) (int64, error) {
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

// batches are the per-dispatch inserts, in the order their rows must reach the file.
func (w *procWriter) batches() []*batch {
	return []*batch{w.ev, w.kd, w.pmc, w.pass, w.passPMC, w.tev, w.region, w.sample, w.mcopy}
}

// finish writes what the process has queued and waits for it, leaving the connection to run
// statements in line again.
func (w *procWriter) finish() error {
	for _, b := range w.batches() {
		if b == nil {
			return errors.Join(errors.New("an earlier failure closed the per-dispatch inserts"), w.c.wait(), w.closeStmts())
		}
		if err := b.flush(); err != nil {
			return errors.Join(err, w.c.wait(), w.closeStmts())
		}
	}
	return errors.Join(w.c.wait(), w.closeStmts())
}

// abort drops what the process has queued.
func (w *procWriter) abort() {
	_ = w.c.wait()
	_ = w.closeStmts()
}

// closeStmts finalizes the process's statements (they hold its constants), which SQLite also needs
// before it lets the file go.
func (w *procWriter) closeStmts() error {
	var err error
	for _, s := range []*stmt{w.stmts.str, w.stmts.thread, w.stmts.queue, w.stmts.stream, w.stmts.track} {
		err = errors.Join(err, s.close())
	}
	for _, b := range w.batches() {
		if b != nil {
			err = errors.Join(err, b.full.close())
		}
	}
	w.stmts.str, w.stmts.thread, w.stmts.queue, w.stmts.stream, w.stmts.track = nil, nil, nil, nil, nil
	w.ev, w.kd, w.pmc, w.pass, w.passPMC = nil, nil, nil, nil, nil
	w.tev, w.region, w.sample, w.mcopy = nil, nil, nil, nil
	return err
}
