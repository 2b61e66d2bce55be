package bgwrite

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// Writes of every kind come out in order, across chunk boundaries: lines, single bytes and strings
// that do not divide a chunk, and a write of several chunks at once.
func TestWritesInOrder(t *testing.T) {
	var got bytes.Buffer
	w := New(&got)
	var want bytes.Buffer
	for i := 0; i < 200000; i++ {
		line := []byte{byte(i), byte(i >> 8), byte(i >> 16), '\n'}
		want.Write(line)
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
		want.WriteByte(byte(i) | 0x80)
		if err := w.WriteByte(byte(i) | 0x80); err != nil {
			t.Fatal(err)
		}
		want.WriteString("abcdefg")
		if _, err := w.WriteString("abcdefg"); err != nil {
			t.Fatal(err)
		}
		if i == 100000 {
			// A write larger than a chunk fills several.
			big := bytes.Repeat([]byte("x"), 3*ChunkSize+17)
			want.Write(big)
			w.Write(big)
			if err := w.Sync(); err != nil || got.Len() != want.Len() {
				t.Fatalf("after Sync: %d bytes written of %d, err %v", got.Len(), want.Len(), err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatal("the bytes written differ from those given")
	}
}

type failing struct{ n int }

var errDisk = errors.New("disk full")

func (f *failing) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errDisk
	}
	f.n--
	return len(p), nil
}

func TestReportsTheFirstError(t *testing.T) {
	w := New(&failing{n: 1})
	chunk := bytes.Repeat([]byte("y"), ChunkSize)
	for i := 0; i < 10; i++ {
		w.Write(chunk)
	}
	if err := w.Close(); !errors.Is(err, errDisk) {
		t.Fatalf("Close = %v, want %v", err, errDisk)
	}
}

// A writer that is closed refuses writes, and says so.
func TestWriteAfterClose(t *testing.T) {
	var got bytes.Buffer
	w := New(&got)
	w.WriteString("kept")
	if err := w.Close(); err != nil || got.String() != "kept" {
		t.Fatalf("Close = %v with %q written, want kept", err, got.String())
	}
	if _, err := w.WriteString("x"); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteString after Close = %v, want ErrClosed", err)
	}
	if err := w.WriteByte('x'); !errors.Is(err, ErrClosed) {
		t.Errorf("WriteByte after Close = %v, want ErrClosed", err)
	}
	if err := w.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close = %v, want ErrClosed", err)
	}
	if err := w.Close(); err != nil || got.String() != "kept" {
		t.Errorf("a second Close = %v with %q written", err, got.String())
	}
}

// BenchmarkWriteLines writes results.json-sized lines through a Writer to a discarding writer:
// the Writer's own cost per byte, with nothing of the kernel's.
func BenchmarkWriteLines(b *testing.B) {
	line := bytes.Repeat([]byte("y"), 2100)
	const lines = 1 << 14
	b.SetBytes(int64(len(line) * lines))
	for b.Loop() {
		w := New(io.Discard)
		for i := 0; i < lines; i++ {
			w.Write(line)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
