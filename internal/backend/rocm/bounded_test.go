package rocm

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiscoverKFDBoundedAndInRange plants damaged files in a copy of a real topology: each must be an
// error naming what is wrong, never an endless read, a value read as 0 or a GPU taken for a CPU.
func TestDiscoverKFDBoundedAndInRange(t *testing.T) {
	node := filepath.Join(kfdNodes, "1")
	tests := []struct {
		name    string
		file    string // under the node
		replace bool   // plant replaces the file (else it changes it)
		plant   func(path string) error
		want    string
	}{
		{"a name file that never ends", "name", true, func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (it is a character device)"},
		{"a name file that is a FIFO", "name", true, func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (it is a FIFO)"},
		{"a name file far longer than a name", "name", true, func(p string) error {
			return os.WriteFile(p, []byte(strings.Repeat("x", 1<<20)), 0o644)
		}, "longer than the limit"},
		{"properties that never end", "properties", true, func(p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (it is a character device)"},
		{"properties that are a FIFO", "properties", true, func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file (it is a FIFO)"},
		{"a property beyond int64", "properties", false, func(p string) error {
			return appendLine(p, "simd_count 18446744073709551615")
		}, "simd_count value 18446744073709551615 is out of range"},
		{"a property beyond uint64", "properties", false, func(p string) error {
			return appendLine(p, "max_waves_per_simd 99999999999999999999")
		}, "is not an unsigned integer"},
		{"a gpu_id beyond int64", "gpu_id", true, func(p string) error {
			return os.WriteFile(p, []byte("99999999999999999999\n"), 0o644)
		}, "gpu_id \"99999999999999999999\" is not an integer of 64 bits"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.CopyFS(root, os.DirFS(filepath.Join("testdata", "kfd", "mi210"))); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(root, node, tc.file)
			if tc.replace {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			}
			if err := tc.plant(path); err != nil {
				t.Fatal(err)
			}
			agents, err := DiscoverKFD(root)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("DiscoverKFD = %d agents, %v; want an error containing %q", len(agents), err, tc.want)
			}
		})
	}
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, fs.ModePerm)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(line + "\n")
	return errors.Join(werr, f.Close())
}
