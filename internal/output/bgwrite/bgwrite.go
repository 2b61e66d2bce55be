// Package bgwrite writes to a file from a goroutine of its own, so that the time the kernel takes
// to copy large outputs into the page cache overlaps with the formatting of what comes next. On the
// two-core machines gorocprof is benchmarked on, writing results.json was as costly as building it.
package bgwrite

import (
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
// writer in order. The chunk being filled is the buffer itself, handed over whole: every byte is
// copied once on its way to the underlying writer, which matters when that is most of what a
// large output costs. Close (or Sync) must be called to write the rest and learn of any error.
type Writer struct {
	chunk []byte // the chunk being filled; nil until a write needs one
	q     *queue
}

// New starts a Writer over w.
func New(w io.Writer) *Writer {
	q := &queue{w: w, work: make(chan []byte, depth), free: make(chan []byte, depth), done: make(chan struct{})}
	for i := 0; i < depth; i++ {
		q.free <- nil
	}
	go q.run()
	return &Writer{q: q}
}

// Write copies p into chunks, handing each one over as it fills.
func (w *Writer) Write(p []byte) (int, error) { return write(w, p) }

// WriteString is Write of a string.
func (w *Writer) WriteString(s string) (int, error) { return write(w, s) }

// WriteByte is Write of one byte.
func (w *Writer) WriteByte(c byte) error {
	if w.chunk == nil || w.q.closed {
		_, err := write(w, []byte{c})
		return err
	}
	w.chunk = append(w.chunk, c)
	if len(w.chunk) == cap(w.chunk) {
		w.handOver()
	}
	return nil
}

// write fills chunks from p. The goroutine's error is looked at once per chunk taken, as often as
// it can change what a write does.
func write[T string | []byte](w *Writer, p T) (int, error) {
	if w.q.closed {
		return 0, ErrClosed
	}
	n := len(p)
	for len(p) > 0 {
		if w.chunk == nil {
			if err := w.q.error(); err != nil {
				return n - len(p), err
			}
			w.chunk = w.q.take()
		}
		k := copy(w.chunk[len(w.chunk):cap(w.chunk)], p)
		w.chunk = w.chunk[:len(w.chunk)+k]
		p = p[k:]
		if len(w.chunk) == cap(w.chunk) {
			w.handOver()
		}
	}
	return n, nil
}

// handOver queues the chunk being filled, if it holds anything.
func (w *Writer) handOver() {
	if len(w.chunk) > 0 {
		w.q.hand(w.chunk)
		w.chunk = nil
	}
}

// Close writes what is buffered, waits for every chunk to reach the underlying writer and
// returns the first error. It does not close the underlying writer.
func (w *Writer) Close() error {
	if !w.q.closed {
		w.handOver()
	}
	return w.q.close()
}

// Sync writes what is buffered and waits until the underlying writer has it all, so that it can
// be read back or seeked; the Writer stays usable.
func (w *Writer) Sync() error {
	if w.q.closed {
		return ErrClosed
	}
	w.handOver()
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

// take waits for a free chunk: one the goroutine has written, or a new one while fewer than depth
// exist.
func (q *queue) take() []byte {
	buf := <-q.free
	if buf == nil {
		buf = make([]byte, 0, ChunkSize)
	}
	return buf
}

// hand queues a chunk for the goroutine, which gives it back to free once written.
func (q *queue) hand(buf []byte) {
	q.wg.Add(1)
	q.work <- buf
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
