package bgwrite

import (
	"bytes"
	"errors"
	"testing"
)

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
		if i == 100000 {
			// A write larger than a chunk goes through bufio directly.
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
