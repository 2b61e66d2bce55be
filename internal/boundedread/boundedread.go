// Package boundedread reads files and streams that gorocprof does not control (sysfs, the query
// helpers' output, cache files, run directories) with a size limit, so that a file that never ends
// (/dev/zero planted as a sysfs file) or a runaway helper cannot take all memory.
package boundedread

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge marks input longer than its limit.
var ErrTooLarge = errors.New("longer than the limit")

// ErrNotRegular marks a path that is not a regular file: a FIFO (whose open and reads wait for a
// writer that may never come), a device such as /dev/zero (which never ends), a socket or a
// directory. gorocprof reads only regular files, so that no input can hang it or grow it without end.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading when it is a regular file, and refuses anything else without waiting
// on it (O_NONBLOCK: opening a FIFO does not wait for its writer).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w (it is %s): refusing to read it", path, ErrNotRegular, kind(info.Mode()))
	}
	return f, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a plain file"
}

// File returns the contents of path, which must be a regular file (Open) holding at most limit bytes.
func File(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
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
