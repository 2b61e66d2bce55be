package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/rogpeppe/go-internal/testscript"
)

// Commands of the end-to-end scripts that watch a run from outside while it goes on.

// waitfileCmd: `waitfile GLOB [TEXT]` waits (up to 30 s) until a file matching GLOB is non-empty, or
// holds TEXT.
func waitfileCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile GLOB [TEXT]")
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		matches, _ := filepath.Glob(ts.MkAbs(args[0]))
		for _, m := range matches {
			data, err := os.ReadFile(m)
			if err == nil && len(data) > 0 && (len(args) == 1 || strings.Contains(string(data), args[1])) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("no file matching %s holds what was waited for after 30 s", args[0])
}

// globCmd: `glob VAR GLOB` sets VAR to the one path GLOB matches.
func globCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: glob VAR GLOB")
	}
	matches, _ := filepath.Glob(ts.MkAbs(args[1]))
	if len(matches) != 1 {
		ts.Fatalf("%s matches %d paths, want 1: %v", args[1], len(matches), matches)
	}
	ts.Setenv(args[0], matches[0])
}

// gonePIDsCmd: `gone GLOB` takes the process ids that begin the names of the record files matching
// GLOB (records/<pid>.ndjson) and waits up to 5 s for each process to end.
func gonePIDsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gone GLOB")
	}
	matches, _ := filepath.Glob(ts.MkAbs(args[0]))
	if len(matches) == 0 {
		ts.Fatalf("no record file matches %s", args[0])
	}
	for _, m := range matches {
		// records/<pid>.ndjson, or <pid> and more after a separator.
		base := filepath.Base(m)
		digits := strings.IndexFunc(base, func(r rune) bool { return r < '0' || r > '9' })
		if digits < 0 {
			digits = len(base)
		}
		pid, err := strconv.Atoi(base[:digits])
		if err != nil {
			ts.Fatalf("record file %s is not named by a process id", m)
		}
		deadline := time.Now().Add(5 * time.Second)
		for e2etest.Running(pid) {
			if time.Now().After(deadline) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				ts.Fatalf("process %d still runs 5 s after gorocprof was killed", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
