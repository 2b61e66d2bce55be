package helper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLibDirOverride(t *testing.T) {
	t.Setenv(EnvLibDir, "/opt/gorocprof/lib")
	d, err := LibDir()
	if err != nil || d != "/opt/gorocprof/lib" {
		t.Fatalf("LibDir = %q, %v", d, err)
	}
}

func TestRequire(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Require(dir, "hint", "a"); err != nil || len(got) != 1 || got[0] != filepath.Join(dir, "a") {
		t.Errorf("Require(a) = %q, %v", got, err)
	}
	want := "tool file " + filepath.Join(dir, "b") + " is missing (hint, or point GOROCPROF_LIB_DIR at the directory holding it)"
	if _, err := Require(dir, "hint", "a", "b"); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Require(a, b) = %v, want %q", err, want)
	}
}
