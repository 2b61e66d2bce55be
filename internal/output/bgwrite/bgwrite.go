// Package bgwrite writes to a file from a goroutine of its own, so that the time the kernel takes
// to copy large outputs into the page cache overlaps with the formatting of what comes next. On the
// two-core machines gorocprof is benchmarked on, writing results.json was as costly as building it.
package bgwrite

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// ErrClosed is returned by writes after Close.
var ErrClosed = errors.New("bgwrite: write after close")

// ChunkSize is the size of the buffers handed to the background goroutine.
const ChunkSize = 1 << 20

// depth is the number of chunks per writer: one being filled, the rest queued or being written,
// which bounds the memory of a writer to depth*ChunkSize whatever is written through it.
const depth = 3

// Writer buffers writes and hands full chunks to a goroutine that writes them to the underlying
// writer in order. Close (or Flush) must be called to write the rest and learn of any error.
type Writer struct {
	*bufio.Writer
	q *queue
}

// New starts a Writer over w.
func New(w io.Writer) *Writer {
	q := &queue{w: w, work: make(chan []byte, depth), free: make(chan []byte, depth), done: make(chan struct{})}
	for i := 0; i < depth; i++ {
		q.free <- nil
	}
	go q.run()
	return &Writer{Writer: bufio.NewWriterSize(q, ChunkSize), q: q}
}

// Close writes what is buffered, waits for every chunk to reach the underlying writer and
// returns the first error. It does not close the underlying writer.
func (w *Writer) Close() error {
	err := w.Writer.Flush()
	if qerr := w.q.close(); err == nil {
		err = qerr
	}
	return err
}

// Sync writes what is buffered and waits until the underlying writer has it all, so that it can
// be read back or seeked; the Writer stays usable.
func (w *Writer) Sync() error {
	if err := w.Writer.Flush(); err != nil {
		return err
	}
	return w.q.sync()
}

type queue struct {
	w      io.Writer
	work   chan []byte
	free   chan []byte
	done   chan struct{}
	mu     sync.Mutex
	err    error
	closed bool
	wg     sync.WaitGroup // chunks handed over and not yet written
}

func (q *queue) run() {
	defer close(q.done)
	for buf := range q.work {
		if q.error() == nil {
			if _, err := q.w.Write(buf); err != nil {
				q.mu.Lock()
				q.err = err
				q.mu.Unlock()
			}
		}
		q.free <- buf[:0]
		q.wg.Done()
	}
}

func (q *queue) error() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Write copies p into a free chunk and queues it; bufio calls it with whole chunks.
func (q *queue) Write(p []byte) (int, error) {
	if err := q.error(); err != nil {
		return 0, err
	}
	if q.closed {
		return 0, ErrClosed
	}
	n := len(p)
	for len(p) > 0 {
		buf := <-q.free
		if buf == nil {
			buf = make([]byte, 0, ChunkSize)
		}
		k := min(len(p), ChunkSize)
		buf = append(buf, p[:k]...)
		p = p[k:]
		q.wg.Add(1)
		q.work <- buf
	}
	return n, nil
}

func (q *queue) sync() error {
	q.wg.Wait()
	return q.error()
}

func (q *queue) close() error {
	if !q.closed {
		q.closed = true
		close(q.work)
		<-q.done
	}
	return q.error()
}
