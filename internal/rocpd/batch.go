package rocpd

import (
	"database/sql"
	"fmt"
	"strings"
)

// batch inserts rows of one table many at a time: one prepared multi-row INSERT runs for every
// batchRows rows, so the per-statement cost of database/sql and SQLite is paid once per batch
// instead of once per row. What is left at flush goes in one statement of its own size.
type batch struct {
	tx    *sql.Tx
	table string
	cols  []string
	rows  int // rows per full statement
	full  *sql.Stmt
	args  []any
}

// batchParams bounds the parameters of one statement, well below SQLite's limit (32766).
const batchParams = 2048

func newBatch(tx *sql.Tx, table string, cols ...string) (*batch, error) {
	b := &batch{tx: tx, table: table, cols: cols, rows: max(1, batchParams/len(cols))}
	stmt, err := tx.Prepare(b.insert(b.rows))
	if err != nil {
		return nil, fmt.Errorf("preparing the insert into %s: %w", table, err)
	}
	b.full = stmt
	b.args = make([]any, 0, b.rows*len(cols))
	return b, nil
}

// insert is the INSERT statement of n rows.
func (b *batch) insert(n int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(b.cols)), ",") + ")"
	return "INSERT INTO `" + b.table + "` (" + strings.Join(b.cols, ", ") + ") VALUES " +
		strings.TrimSuffix(strings.Repeat(one+",", n), ",")
}

// add queues one row, its values in the order of cols.
func (b *batch) add(vals ...any) error {
	b.args = append(b.args, vals...)
	if len(b.args) < cap(b.args) {
		return nil
	}
	_, err := b.full.Exec(b.args...)
	clear(b.args)
	b.args = b.args[:0]
	if err != nil {
		return fmt.Errorf("inserting into %s: %w", b.table, err)
	}
	return nil
}

// flush inserts the queued rows.
func (b *batch) flush() error {
	if len(b.args) == 0 {
		return nil
	}
	_, err := b.tx.Exec(b.insert(len(b.args)/len(b.cols)), b.args...)
	b.args = b.args[:0]
	if err != nil {
		return fmt.Errorf("inserting into %s: %w", b.table, err)
	}
	return nil
}
