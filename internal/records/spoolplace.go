package records

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// EnvSpoolDir names the directory of the dispatch spools when set; otherwise the spools go to the
// first directory with room for them: TMPDIR, then the directories the caller names (the output
// directory), so that a full /tmp does not cost an output whose records were all written.
const EnvSpoolDir = "GOROCPROF_SPOOL_DIR"

// ErrSpool marks a failure to keep the dispatches in their spool (no room, no directory): the
// records themselves are intact, and can be read again with the spool elsewhere.
var ErrSpool = errors.New("spooling dispatches")

// freeBytes is how much an unprivileged user may still write in dir's file system; a test replaces it.
var freeBytes = func(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}

// spoolNeed is the room a spool of records of size bytes takes, with a margin: the spool is about
// a quarter of the lines' JSON.
func spoolNeed(size int64) int64 { return size/2 + 1<<20 }

// spoolCandidates are where spools may go, in the order they are tried.
func spoolCandidates(extra []string) []string {
	if d := os.Getenv(EnvSpoolDir); d != "" {
		return []string{d}
	}
	out := []string{os.TempDir()}
	for _, d := range extra {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		out = append(out, d)
	}
	return out
}

// chooseSpoolDir returns the first candidate with room for need bytes, else the one with the most.
func chooseSpoolDir(candidates []string, need int64) string {
	best, bestFree := candidates[0], int64(-1)
	for _, d := range candidates {
		free, err := freeBytes(d)
		if err != nil {
			continue
		}
		if free >= need {
			return d
		}
		if free > bestFree {
			best, bestFree = d, free
		}
	}
	return best
}

// spoolHint is what to say after a spool in dir failed: the `gorocprof process` command, with a
// TMPDIR that has room, that writes the output from the kept records.
func spoolHint(runDir, dir string, candidates []string, need int64) string {
	for _, d := range append(candidates, filepath.Dir(runDir)) {
		if d == dir {
			continue
		}
		if free, err := freeBytes(d); err == nil && free >= need {
			return fmt.Sprintf("the records are intact: `TMPDIR=%s gorocprof process %s` writes the output with the spool (about %d MB) there",
				d, runDir, need>>20)
		}
	}
	return fmt.Sprintf("the records are intact: `TMPDIR=DIR gorocprof process %s` writes the output, given a DIR with about %d MB free",
		runDir, need>>20)
}

// recordBytes is the size of the record files at paths together.
func recordBytes(paths []string) int64 {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			n += st.Size()
		}
	}
	return n
}
