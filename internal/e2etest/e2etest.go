// Package e2etest gives end-to-end tests the simulated agents' build: the tool library in
// lib/gorocprof and the example apps in bin, both installed by `make`.
package e2etest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// EnvRequire, when set (make test sets it), turns a missing build into a failure instead of a skip.
const EnvRequire = "GOROCPROF_REQUIRE_E2E"

// Root is the repository root.
func Root(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("e2etest: cannot locate the repository")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Require skips the test when the simulated tool library or any of the named example apps (bin/NAME)
// has not been built, or fails it when EnvRequire is set. It points GOROCPROF_LIB_DIR at the built
// library and returns the repository root.
func Require(t testing.TB, apps ...string) string {
	t.Helper()
	root := Root(t)
	lib := filepath.Join(root, "lib", "gorocprof")
	need := []string{filepath.Join(lib, "libgorocprof_tool_sim.so"), filepath.Join(lib, "gorocprof-query-sim")}
	for _, a := range append([]string{"sim-demo"}, apps...) {
		need = append(need, filepath.Join(root, "bin", a))
	}
	for _, f := range need {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv(EnvRequire) != "" {
				t.Fatalf("end-to-end test needs %s (run `make`): %v", f, err)
			}
			t.Skipf("%s not built (run `make`); set %s=1 to make this a failure", f, EnvRequire)
		}
	}
	t.Setenv("GOROCPROF_LIB_DIR", lib)
	return root
}

// Running reports whether process pid has not ended. A zombie (ended, not yet reaped by whoever
// inherited it) has ended.
func Running(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
