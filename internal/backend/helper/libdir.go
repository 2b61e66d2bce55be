package helper

import (
	"fmt"
	"os"
	"path/filepath"
)

// EnvLibDir names the directory holding the tool libraries and query helpers, overriding the default.
const EnvLibDir = "GOROCPROF_LIB_DIR"

// LibDir finds the tool library directory: $GOROCPROF_LIB_DIR, else ../lib/gorocprof next to the
// gorocprof binary (the layout `make` installs).
func LibDir() (string, error) {
	if d := os.Getenv(EnvLibDir); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvLibDir, d, err)
		}
		return abs, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the gorocprof binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Join(filepath.Dir(filepath.Dir(exe)), "lib", "gorocprof"), nil
}

// Require returns the paths of the named files in libDir, or an error naming the first that is
// missing, with hint saying how it is built.
func Require(libDir, hint string, names ...string) ([]string, error) {
	paths := make([]string, len(names))
	for i, n := range names {
		paths[i] = filepath.Join(libDir, n)
		if _, err := os.Stat(paths[i]); err != nil {
			return nil, fmt.Errorf("tool file %s is missing (%s, or point %s at the directory holding it)", paths[i], hint, EnvLibDir)
		}
	}
	return paths, nil
}
