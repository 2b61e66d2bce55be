package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Only regular files are read: a FIFO (no writer ever comes), /dev/zero (never ends) and a
// directory are refused at once, named, instead of hanging or growing without end.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, kind string }{{fifo, "a FIFO"}, {zero, "a character device"}, {dir, "a directory"}} {
		done := make(chan error, 1)
		go func() {
			_, err := File(tt.path, 1<<20)
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.kind) {
				t.Errorf("%s: %v, want it refused as %s", tt.path, err, tt.kind)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", tt.path)
		}
	}
	if data, err := File(plain, 10); err != nil || string(data) != "ok\n" {
		t.Errorf("a regular file: %q, %v", data, err)
	}
}
