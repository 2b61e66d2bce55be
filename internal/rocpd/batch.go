package rocpd

import "strings"

// batch inserts rows of one table many at a time: one prepared multi-row INSERT runs for every
// `rows` rows, so the per-statement cost is paid once per batch instead of once per row. A row is
// a template such as "(?, 7, ?)": values the same on every row of the database are written into
// the statement, not bound. What is left at flush goes in one statement of its own size.
type batch struct {
	c      *conn
	table  string
	cols   []string
	row    string
	params int // '?' per row
	rows   int // rows per full statement
	full   *stmt
	args   []any
}

// batchParams bounds the parameters of one statement, well below SQLite's limit (32766).
const batchParams = 2048

func newBatch(c *conn, table string, cols []string, row string) (*batch, error) {
	b := &batch{c: c, table: table, cols: cols, row: row, params: strings.Count(row, "?")}
	b.rows = max(1, batchParams/b.params)
	full, err := c.prepare(table, b.insert(b.rows))
	if err != nil {
		return nil, err
	}
	b.full = full
	b.args = make([]any, 0, b.rows*b.params)
	return b, nil
}

// insert is the INSERT statement of n rows.
func (b *batch) insert(n int) string {
	return "INSERT INTO `" + b.table + "` (" + strings.Join(b.cols, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(b.row+",", n), ",")
}

// add queues one row, the values of its '?' in order.
func (b *batch) add(vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < b.rows*b.params {
		return nil
	}
	if b.c.jobs != nil {
		// The goroutine takes the full slice; the next rows go into another.
		full := b.args
		b.args = b.c.slice(len(full))
		return b.c.send(job{s: b.full, args: full, what: b.table})
	}
	err := b.full.exec(b.args...)
	clear(b.args)
	b.args = b.args[:0]
	return err
}

// flush inserts the queued rows.
func (b *batch) flush() error {
	if len(b.args) == 0 {
		return nil
	}
	err := b.c.exec(b.table, b.insert(len(b.args)/b.params), b.args...)
	clear(b.args)
	b.args = b.args[:0]
	return err
}
