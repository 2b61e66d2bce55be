package rocpd

import (
	"context"
	"database/sql/driver"
	"fmt"
	"sync/atomic"

	"modernc.org/sqlite"
)

// conn is the one SQLite connection of a Writer, used through the driver directly: database/sql
// would convert and lock around every statement, a fair share of the cost of the many small
// inserts a database is made of.
//
// After start, statements run on a goroutine of their own, in the order they were given, so that
// SQLite's work overlaps the caller's reading and evaluating of the next dispatches (as results.json
// is written by a background writer); the file is the same as when they run in line. A failure is
// returned by the next call and by wait.
type conn struct {
	c     driver.Conn
	jobs  chan job // nil before start and after wait: statements run in line
	done  chan struct{}
	spare chan []any // argument slices the goroutine has finished with
	err   atomic.Pointer[error]
}

// job is one statement to run: a prepared one, or query when s is nil.
type job struct {
	s     *stmt
	query string
	args  []any
	what  string // what the statement inserts into, for its error
}

func openConn(dsn string) (*conn, error) {
	c, err := (&sqlite.Driver{}).Open(dsn)
	if err != nil {
		return nil, err
	}
	return &conn{c: c}, nil
}

func namedValues(vals []any) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(vals))
	for i, v := range vals {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}

// exec runs one statement that inserts into what (a table; "" for others); args are int64,
// float64, string or nil.
func (c *conn) exec(what, query string, args ...any) error {
	if c.jobs != nil {
		return c.send(job{query: query, args: append([]any(nil), args...), what: what})
	}
	_, err := c.c.(driver.ExecerContext).ExecContext(context.Background(), query, namedValues(args))
	return wrapInsert(what, err)
}

func wrapInsert(what string, err error) error {
	if err == nil || what == "" {
		return err
	}
	return fmt.Errorf("inserting into %s: %w", what, err)
}

// start runs the statements given from now on in a goroutine.
func (c *conn) start() {
	c.jobs, c.done, c.spare = make(chan job, 4), make(chan struct{}), make(chan []any, 8)
	go c.run()
}

func (c *conn) run() {
	defer close(c.done)
	for j := range c.jobs {
		if c.err.Load() == nil {
			var err error
			if j.s != nil {
				err = j.s.run(j.args)
			} else {
				_, err = c.c.(driver.ExecerContext).ExecContext(context.Background(), j.query, namedValues(j.args))
			}
			if err = wrapInsert(j.what, err); err != nil {
				c.err.Store(&err)
			}
		}
		clear(j.args)
		select {
		case c.spare <- j.args[:0]:
		default:
		}
	}
}

// send hands a statement to the goroutine, which then owns j.args.
func (c *conn) send(j job) error {
	if err := c.err.Load(); err != nil {
		return *err
	}
	c.jobs <- j
	return nil
}

// slice returns an empty argument slice of at least n, one the goroutine is done with if any.
func (c *conn) slice(n int) []any {
	if c.spare != nil {
		select {
		case s := <-c.spare:
			if cap(s) >= n {
				return s
			}
		default:
		}
	}
	return make([]any, 0, n)
}

// wait runs what was given to the goroutine to its end and returns to running statements in line.
func (c *conn) wait() error {
	if c.jobs != nil {
		close(c.jobs)
		<-c.done
		c.jobs = nil
	}
	if err := c.err.Load(); err != nil {
		return *err
	}
	return nil
}

// stmt is a prepared statement with its argument slots.
type stmt struct {
	c    *conn
	s    driver.Stmt
	what string // the table it inserts into
	args []driver.NamedValue
}

func (c *conn) prepare(what, query string) (*stmt, error) {
	s, err := c.c.Prepare(query)
	if err != nil {
		return nil, fmt.Errorf("preparing the insert into %s: %w", what, err)
	}
	return &stmt{c: c, s: s, what: what}, nil
}

// exec runs the statement with vals; they are copied when it runs in the connection's goroutine.
func (s *stmt) exec(vals ...any) error {
	if s.c.jobs != nil {
		return s.c.send(job{s: s, args: append(s.c.slice(len(vals)), vals...), what: s.what})
	}
	return wrapInsert(s.what, s.run(vals))
}

func (s *stmt) run(vals []any) error {
	for len(s.args) < len(vals) {
		s.args = append(s.args, driver.NamedValue{Ordinal: len(s.args) + 1})
	}
	for i, v := range vals {
		s.args[i].Value = v
	}
	_, err := s.s.(driver.StmtExecContext).ExecContext(context.Background(), s.args[:len(vals)])
	return err
}

func (c *conn) close() error { return c.c.Close() }

func (s *stmt) close() error {
	if s == nil {
		return nil
	}
	return s.s.Close()
}
