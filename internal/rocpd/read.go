package rocpd

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Reader reads back a database this package wrote (`gorocprof merge`): its processes, and per
// process the rows the Writer was given, with each id as the Writer was given it.
type Reader struct {
	db   *sql.DB
	path string
}

// Open opens the database at path read-only and checks it is a rocpd database of the schema version
// this package writes.
func Open(path string) (*Reader, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	r := &Reader{db: db, path: path}
	var version string
	err = db.QueryRow(`SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'`).Scan(&version)
	if err != nil {
		db.Close()
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("%s: not a rocpd database: its rocpd_metadata has no schema_version", path)
		}
		return nil, fmt.Errorf("%s: not a rocpd database (no rocpd_metadata table): %w", path, err)
	}
	if version != SchemaVersion {
		db.Close()
		if version == "3.0.0" {
			return nil, fmt.Errorf("%s: a rocpd database of an older gorocprof (schema tag 3.0.0, a dispatch row per replay pass), which this one does not read: merge the results.json of its run", path)
		}
		return nil, fmt.Errorf("%s: rocpd schema version %s, expected %s", path, version, SchemaVersion)
	}
	var own int
	if err := db.QueryRow(`SELECT COUNT(*) FROM sqlite_master WHERE type = 'view' AND name = 'gorocprof_pass'`).Scan(&own); err != nil || own == 0 {
		db.Close()
		return nil, fmt.Errorf("%s: a rocpd database that gorocprof did not write (it has no gorocprof_pass table): merge reads back only its own", path)
	}
	return r, nil
}

// Close closes the database.
func (r *Reader) Close() error { return r.db.Close() }

// ReadProcess is one process row: its GUID keys every other row of it.
type ReadProcess struct {
	GUID     string
	NID, PID int64
	Extdata  json.RawMessage
}

// own is a query of the process's own tables: each "{u}" becomes its tables' suffix, so that
// reading one process of a database of many scans its rows only, not the union of all.
func (p ReadProcess) own(query string) string {
	return strings.ReplaceAll(query, "{u}", uuidOf(p.GUID))
}

// ReadRow is a row of the agent, counter or kernel table: its row id, what the views show of it
// and its extdata.
type ReadRow struct {
	Row       int64
	AgentRow  int64 // counters: their agent's row
	TypeIndex int64 // agents: type_index
	Name      string
	Extdata   json.RawMessage
	Counter   Counter // counters: the columns
}

// ReadDispatch is one pass of a dispatch with its counter rows. AgentRow and KernelRow are row ids
// (ReadRow.Row); Extdata is the dispatch row's.
type ReadDispatch struct {
	DispatchID, CorrelationID, ExternalID, ThreadID uint64
	Pass                                            int
	AgentRow, KernelRow                             int64
	QueueID, StreamID                               uint64
	Grid, Workgroup                                 [3]uint32
	LDS, Scratch, Start, End                        int64
	Extdata                                         json.RawMessage
	Counters                                        []ReadValue
}

// ReadValue is one counter row of a pass: the counter's row, the value and its extdata.
type ReadValue struct {
	PMCRow  int64
	Value   float64
	Extdata json.RawMessage
}

// Processes lists the database's processes by node, pid and start.
func (r *Reader) Processes() ([]ReadProcess, error) {
	var out []ReadProcess
	err := r.query(`SELECT guid, nid, pid, extdata FROM rocpd_info_process ORDER BY nid, pid, init, guid`, nil, func(rs *sql.Rows) error {
		var p ReadProcess
		var ext string
		if err := rs.Scan(&p.GUID, &p.NID, &p.PID, &ext); err != nil {
			return err
		}
		p.Extdata = json.RawMessage(ext)
		out = append(out, p)
		return nil
	})
	return out, err
}

// Agents, Counters and Kernels list the rows of one process by row id.
func (r *Reader) Agents(p ReadProcess) ([]ReadRow, error) {
	return r.rows(`SELECT id, 0, type_index, name, extdata FROM rocpd_info_agent{u} WHERE guid = ? ORDER BY id`, p, nil)
}

// Counters lists the counter rows of one process.
func (r *Reader) Counters(p ReadProcess) ([]ReadRow, error) {
	return r.rows(`SELECT id, agent_id, 0, name, extdata, description, block, expression, is_derived
		FROM rocpd_info_pmc{u} WHERE guid = ? ORDER BY id`, p, func(row *ReadRow) []any {
		return []any{&row.Counter.Description, &row.Counter.Block, &row.Counter.Expression, &row.Counter.Derived}
	})
}

// Kernels lists the kernel symbol rows of one process.
func (r *Reader) Kernels(p ReadProcess) ([]ReadRow, error) {
	return r.rows(`SELECT id, 0, 0, kernel_name, extdata FROM rocpd_info_kernel_symbol{u} WHERE guid = ? ORDER BY id`, p, nil)
}

func (r *Reader) rows(q string, p ReadProcess, more func(*ReadRow) []any) ([]ReadRow, error) {
	var out []ReadRow
	err := r.query(p.own(q), []any{p.GUID}, func(rs *sql.Rows) error {
		var row ReadRow
		var ext sql.NullString
		dest := []any{&row.Row, &row.AgentRow, &row.TypeIndex, &row.Name, &ext}
		if more != nil {
			dest = append(dest, more(&row)...)
		}
		if err := rs.Scan(dest...); err != nil {
			return err
		}
		row.Extdata = json.RawMessage(ext.String)
		out = append(out, row)
		return nil
	})
	return out, err
}

// passRows are the passes of one process (?1 its guid), each followed by its counters, in dispatch
// and pass order: a dispatch that ran once is its own pass 0; a replayed one has its passes in
// gorocprof_pass, and its counters in rocpd_pmc_event (tagged with their pass) and, measured again
// by a later pass, in gorocprof_pass_pmc. Column 3 tells a pass row (0) from a counter row.
const passRows = `
SELECT K.id, 0, 0, E.stack_id, E.correlation_id, K.tid, K.queue_id, K.stream_id, K.start, K.end, ` + dispatchCols + `,
	0, 0.0, '', 0
FROM rocpd_kernel_dispatch{u} K JOIN rocpd_event{u} E ON E.id = K.event_id AND E.guid = K.guid
WHERE K.guid = ?1 AND json_extract(K.extdata, '$.replay_passes') IS NULL
UNION ALL
SELECT P.dispatch_id, P.pass, 0, P.stack_id, P.correlation_id, P.tid, P.queue_id, P.stream_id, P.start, P.end, ` + dispatchCols + `,
	0, 0.0, '', P.id
FROM gorocprof_pass{u} P JOIN rocpd_kernel_dispatch{u} K ON K.id = P.dispatch_id AND K.guid = P.guid
WHERE P.guid = ?1
UNION ALL
SELECT K.id, COALESCE(json_extract(PE.extdata, '$.replay_pass'), 0), 1, 0, 0, 0, 0, 0, 0, 0, ` + noDispatchCols + `,
	PE.pmc_id, PE.value, PE.extdata, PE.id
FROM rocpd_pmc_event{u} PE JOIN rocpd_kernel_dispatch{u} K ON K.event_id = PE.event_id AND K.guid = PE.guid
WHERE PE.guid = ?1
UNION ALL
SELECT P.dispatch_id, P.pass, 2, 0, 0, 0, 0, 0, 0, 0, ` + noDispatchCols + `, PP.pmc_id, PP.value, PP.extdata, PP.id
FROM gorocprof_pass_pmc{u} PP JOIN gorocprof_pass{u} P ON P.id = PP.pass_id AND P.guid = PP.guid
WHERE PP.guid = ?1
ORDER BY 1, 2, 3, 25`

// dispatchCols are the columns a dispatch's passes share; noDispatchCols stand in for them on a
// counter row.
const (
	dispatchCols = `K.agent_id, K.kernel_id, K.grid_size_x, K.grid_size_y, K.grid_size_z, K.workgroup_size_x,
	K.workgroup_size_y, K.workgroup_size_z, K.group_segment_size, K.private_segment_size, K.extdata`
	noDispatchCols = `0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ''`
)

// Dispatches hands every pass of every dispatch of one process to fn in dispatch and pass order,
// each with its counter rows; d is reused from one call to the next.
func (r *Reader) Dispatches(p ReadProcess, fn func(d *ReadDispatch) error) error {
	var d ReadDispatch
	open := false
	err := r.query(p.own(passRows), []any{p.GUID}, func(rs *sql.Rows) error {
		var n next
		var kind int
		var ext, pext string
		var pmc, order int64
		var value float64
		if err := rs.Scan(&n.dispatch, &n.pass, &kind, &n.corr, &n.ext, &n.tid, &n.queue, &n.stream, &n.start, &n.end,
			&n.agent, &n.kernel, &n.grid[0], &n.grid[1], &n.grid[2], &n.wg[0], &n.wg[1], &n.wg[2], &n.lds, &n.scratch,
			&ext, &pmc, &value, &pext, &order); err != nil {
			return err
		}
		if kind == 0 {
			if open {
				if err := fn(&d); err != nil {
					return err
				}
			}
			counters := d.Counters[:0]
			d = n.toDispatch(ext)
			d.Counters, open = counters, true
			return nil
		}
		if !open || d.DispatchID != uint64(n.dispatch) || d.Pass != n.pass {
			return fmt.Errorf("counter row %d names pass %d of dispatch %d, which has no pass row", order, n.pass, n.dispatch)
		}
		d.Counters = append(d.Counters, ReadValue{PMCRow: pmc, Value: value, Extdata: json.RawMessage(pext)})
		return nil
	})
	if err == nil && open {
		err = fn(&d)
	}
	return err
}

// next is the columns of one pass row.
type next struct {
	dispatch, corr, ext, tid int64
	pass                     int
	queue, stream            int64
	agent, kernel            int64
	grid, wg                 [3]int64
	lds, scratch, start, end int64
}

func (n next) toDispatch(ext string) ReadDispatch {
	d := ReadDispatch{DispatchID: uint64(n.dispatch), Pass: n.pass, CorrelationID: uint64(n.corr), ExternalID: uint64(n.ext),
		ThreadID: uint64(n.tid), AgentRow: n.agent, KernelRow: n.kernel, QueueID: uint64(n.queue), StreamID: uint64(n.stream),
		LDS: n.lds, Scratch: n.scratch, Start: n.start, End: n.end, Extdata: json.RawMessage(ext)}
	for i := range 3 {
		d.Grid[i], d.Workgroup[i] = uint32(n.grid[i]), uint32(n.wg[i])
	}
	return d
}

func (r *Reader) query(q string, args []any, each func(*sql.Rows) error) error {
	rs, err := r.db.Query(q, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", r.path, err)
	}
	defer rs.Close()
	for rs.Next() {
		if err := each(rs); err != nil {
			return fmt.Errorf("%s: %w", r.path, err)
		}
	}
	if err := rs.Err(); err != nil {
		return fmt.Errorf("%s: %w", r.path, err)
	}
	return nil
}
