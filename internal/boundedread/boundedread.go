// Package boundedread reads files and streams that gorocprof does not control (sysfs, the query
// helpers' output, cache files, run directories) with a size limit, so that a file that never ends
// (/dev/zero planted as a sysfs file) or a runaway helper cannot take all memory.
package boundedread

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge marks input longer than its limit.
var ErrTooLarge = errors.New("longer than the limit")

// File returns the contents of path, which must hold at most limit bytes.
func File(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := Reader(f, limit)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return data, nil
}

// Reader reads r to its end, which must come within limit bytes.
func Reader(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w of %d bytes", ErrTooLarge, limit)
	}
	return data, nil
}

// Buffer is an io.Writer that keeps what is written up to Limit bytes and fails the write that goes
// beyond: given as a child's stdout, it ends the copy (and the child gets SIGPIPE) instead of
// growing without end.
type Buffer struct {
	Limit int64
	buf   []byte
	err   error
}

func (b *Buffer) Write(p []byte) (int, error) {
	if b.err == nil && int64(len(b.buf))+int64(len(p)) > b.Limit {
		b.err = fmt.Errorf("%w of %d bytes", ErrTooLarge, b.Limit)
	}
	if b.err != nil {
		return 0, b.err
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

// Err is the error of the first write that went beyond the limit (the writer's error is not always
// the one a caller sees: a child killed by SIGPIPE reports its signal), nil when all fitted.
func (b *Buffer) Err() error { return b.err }

// Bytes returns what was written.
func (b *Buffer) Bytes() []byte { return b.buf }
