package boundedread

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFile(t *testing.T) {
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact")
	if err := os.WriteFile(exact, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		limit   int64
		want    string
		tooLong bool
	}{
		{exact, 5, "12345", false},
		{exact, 4, "", true},
		// A file that never ends (/dev/zero) is refused before any read: TestOpenRefusesWhatIsNotARegularFile.
	}
	for _, tc := range tests {
		got, err := File(tc.path, tc.limit)
		if tc.tooLong {
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("File(%s, %d) = %v, want ErrTooLarge naming the file", tc.path, tc.limit, err)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("File(%s, %d) = %q, %v; want %q", tc.path, tc.limit, got, err, tc.want)
		}
	}
	if _, err := File(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestBuffer(t *testing.T) {
	b := &Buffer{Limit: 5}
	if n, err := b.Write([]byte("123")); n != 3 || err != nil {
		t.Fatalf("first write: %d, %v", n, err)
	}
	if _, err := b.Write([]byte("456")); !errors.Is(err, ErrTooLarge) || !errors.Is(b.Err(), ErrTooLarge) {
		t.Fatalf("write past the limit: %v (Err %v), want ErrTooLarge", err, b.Err())
	}
	if string(b.Bytes()) != "123" {
		t.Fatalf("kept %q, want what fitted", b.Bytes())
	}
}
