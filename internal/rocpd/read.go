package rocpd

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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
		return nil, fmt.Errorf("%s: rocpd schema version %s, expected %s", path, version, SchemaVersion)
	}
	return r, nil
}

// Close closes the database.
func (r *Reader) Close() error { return r.db.Close() }

// ReadProcess is one process row: its node and pid key every other row of it.
type ReadProcess struct {
	NID, PID int64
	Extdata  json.RawMessage
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

// ReadDispatch is one dispatch pass row with its event and counter rows. AgentRow and KernelRow
// are row ids (ReadRow.Row); QueueID and StreamID the handles the Writer was given.
type ReadDispatch struct {
	DispatchID, CorrelationID, ExternalID, ThreadID uint64
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

// Processes lists the database's processes by node and pid.
func (r *Reader) Processes() ([]ReadProcess, error) {
	var out []ReadProcess
	err := r.query(`SELECT nid, pid, extdata FROM rocpd_info_process ORDER BY nid, pid`, nil, func(rs *sql.Rows) error {
		var p ReadProcess
		var ext string
		if err := rs.Scan(&p.NID, &p.PID, &ext); err != nil {
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
	return r.rows(`SELECT id, 0, type_index, name, extdata FROM rocpd_info_agent WHERE nid = ? AND pid = ? ORDER BY id`, p, nil)
}

// Counters lists the counter rows of one process.
func (r *Reader) Counters(p ReadProcess) ([]ReadRow, error) {
	return r.rows(`SELECT id, agent_id, 0, name, extdata, description, block, expression, is_derived
		FROM rocpd_info_pmc WHERE nid = ? AND pid = ? ORDER BY id`, p, func(row *ReadRow) []any {
		return []any{&row.Counter.Description, &row.Counter.Block, &row.Counter.Expression, &row.Counter.Derived}
	})
}

// Kernels lists the kernel symbol rows of one process.
func (r *Reader) Kernels(p ReadProcess) ([]ReadRow, error) {
	return r.rows(`SELECT id, 0, 0, kernel_name, extdata FROM rocpd_info_kernel_symbol WHERE nid = ? AND pid = ? ORDER BY id`, p, nil)
}

func (r *Reader) rows(q string, p ReadProcess, more func(*ReadRow) []any) ([]ReadRow, error) {
	var out []ReadRow
	err := r.query(q, []any{p.NID, p.PID}, func(rs *sql.Rows) error {
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

// Dispatches hands every dispatch pass of one process to fn in the order they were written, each
// with its counter rows; d is reused from one call to the next.
func (r *Reader) Dispatches(p ReadProcess, fn func(d *ReadDispatch) error) error {
	var d ReadDispatch
	row := int64(-1)
	err := r.query(`SELECT D.id, D.dispatch_id, E.stack_id, E.correlation_id, D.tid, D.agent_id, D.kernel_id, Q.name, S.name,
			D.grid_size_x, D.grid_size_y, D.grid_size_z, D.workgroup_size_x, D.workgroup_size_y, D.workgroup_size_z,
			D.group_segment_size, D.private_segment_size, D.start, D.end, D.extdata, P.pmc_id, P.value, P.extdata
		FROM rocpd_kernel_dispatch D JOIN rocpd_event E ON E.id = D.event_id
		LEFT JOIN rocpd_info_queue Q ON Q.id = D.queue_id LEFT JOIN rocpd_info_stream S ON S.id = D.stream_id
		LEFT JOIN rocpd_pmc_event P ON P.event_id = D.event_id
		WHERE D.nid = ? AND D.pid = ? ORDER BY D.id, P.id`, []any{p.NID, p.PID}, func(rs *sql.Rows) error {
		var id int64
		var n next
		var queue, stream, ext, pext sql.NullString
		var pmc sql.NullInt64
		var value sql.NullFloat64
		if err := rs.Scan(&id, &n.dispatch, &n.corr, &n.ext, &n.tid, &n.agent, &n.kernel, &queue, &stream,
			&n.grid[0], &n.grid[1], &n.grid[2], &n.wg[0], &n.wg[1], &n.wg[2], &n.lds, &n.scratch, &n.start, &n.end,
			&ext, &pmc, &value, &pext); err != nil {
			return err
		}
		if id != row {
			if row >= 0 {
				if err := fn(&d); err != nil {
					return err
				}
			}
			row = id
			var err error
			if d, err = n.toDispatch(queue.String, stream.String, ext.String); err != nil {
				return fmt.Errorf("dispatch row %d: %w", id, err)
			}
			d.Counters = d.Counters[:0]
		}
		if pmc.Valid {
			d.Counters = append(d.Counters, ReadValue{PMCRow: pmc.Int64, Value: value.Float64, Extdata: json.RawMessage(pext.String)})
		}
		return nil
	})
	if err == nil && row >= 0 {
		err = fn(&d)
	}
	return err
}

// next is the dispatch columns of one row.
type next struct {
	dispatch, corr, ext, tid int64
	agent, kernel            int64
	grid, wg                 [3]int64
	lds, scratch, start, end int64
}

func (n next) toDispatch(queue, stream, ext string) (ReadDispatch, error) {
	q, err := handleOf(queue, "Queue")
	if err != nil {
		return ReadDispatch{}, err
	}
	s, err := handleOf(stream, "Stream")
	if err != nil {
		return ReadDispatch{}, err
	}
	d := ReadDispatch{DispatchID: uint64(n.dispatch), CorrelationID: uint64(n.corr), ExternalID: uint64(n.ext),
		ThreadID: uint64(n.tid), AgentRow: n.agent, KernelRow: n.kernel, QueueID: q, StreamID: s,
		LDS: n.lds, Scratch: n.scratch, Start: n.start, End: n.end, Extdata: json.RawMessage(ext)}
	for i := range 3 {
		d.Grid[i], d.Workgroup[i] = uint32(n.grid[i]), uint32(n.wg[i])
	}
	return d, nil
}

// handleOf reads back the handle a queue or stream row is named by (Writer.seen): "Default Queue"
// is 0, "Queue 7" is 7.
func handleOf(name, what string) (uint64, error) {
	if name == "" || name == "Default "+what {
		return 0, nil
	}
	num, ok := strings.CutPrefix(name, what+" ")
	if !ok {
		return 0, fmt.Errorf("%s name %q is not %q or %q", strings.ToLower(what), name, "Default "+what, what+" N")
	}
	v, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s name %q: %w", strings.ToLower(what), name, err)
	}
	return v, nil
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
