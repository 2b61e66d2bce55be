package launch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func TestResolveErrors(t *testing.T) {
	dir := t.TempDir()
	noexec := filepath.Join(dir, "noexec")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		app, want string
	}{
		{"", "no application given"},
		{filepath.Join(dir, "missing"), "not found"},
		{"gorocprof-no-such-command-xyz", "not found"},
		{noexec, "not executable"},
		{dir, "is a directory, not an executable"},
	}
	for _, tc := range tests {
		_, err := Resolve(tc.app)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%q) = %v, want error containing %q", tc.app, err, tc.want)
		}
	}
	if _, err := Resolve("sh"); err != nil {
		t.Errorf("Resolve(sh): %v", err)
	}
}

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		script   string
		code     int
		signal   syscall.Signal
		describe string
	}{
		{"exit 0", 0, 0, "exited with status 0"},
		{"exit 3", 3, 0, "exited with status 3"},
		{"kill -TERM $$", 128 + 15, syscall.SIGTERM, "killed by signal 15 (SIGTERM)"},
		{"kill -SEGV $$", 128 + 11, syscall.SIGSEGV, "killed by signal 11 (SIGSEGV)"},
	}
	for _, tc := range tests {
		st, err := Run(context.Background(), Spec{App: "sh", Args: []string{"-c", tc.script}, Env: os.Environ()})
		if err != nil {
			t.Fatalf("%s: %v", tc.script, err)
		}
		if st.ExitCode != tc.code || st.Signal != tc.signal || st.String() != tc.describe {
			t.Errorf("%s: got %+v (%s), want code %d signal %d (%s)", tc.script, st, st, tc.code, tc.signal, tc.describe)
		}
	}
}

// readyWriter collects the child's output and closes ready once a "ready" line has arrived.
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	once  sync.Once
	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte("ready\n")) {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

func (w *readyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestRunForwardsSIGTERM(t *testing.T) {
	// The signal goes out only once the child says its trap is set: a fixed delay could fire before
	// that on a loaded machine, and the shell would then die of the signal instead of handling it.
	// Run registers for signals before it starts the child, so a running child means forwarding is on.
	out := &readyWriter{ready: make(chan struct{})}
	finished := make(chan struct{})
	go func() {
		select {
		case <-out.ready:
			_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
		case <-finished:
		}
	}()
	st, err := Run(context.Background(), Spec{
		App:    "sh",
		Args:   []string{"-c", `trap 'echo got-term; exit 7' TERM; echo ready; i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; exit 1`},
		Env:    os.Environ(),
		Stdout: out,
	})
	close(finished)
	if err != nil {
		t.Fatal(err)
	}
	if st.ExitCode != 7 || !strings.Contains(out.String(), "got-term") {
		t.Fatalf("signal not forwarded: status %+v, output %q", st, out.String())
	}
}

// The child gets the parent's environment without the variables the run sets, then the run's own.
func TestEnviron(t *testing.T) {
	for _, tc := range []struct {
		base, drop, add, want []string
	}{
		{[]string{"PATH=/bin", "GOROCPROF_PLAN=stale", "HOME=/h"}, []string{"GOROCPROF_PLAN", "CUDA_INJECTION64_PATH"},
			[]string{"GOROCPROF_PLAN=/run/plan.json"}, []string{"PATH=/bin", "HOME=/h", "GOROCPROF_PLAN=/run/plan.json"}},
		{[]string{"A=1", "AB=2"}, []string{"A"}, nil, []string{"AB=2"}},
		{nil, nil, []string{"X=1"}, []string{"X=1"}},
	} {
		if got := Environ(tc.base, tc.drop, tc.add); !slices.Equal(got, tc.want) {
			t.Errorf("Environ(%q, %q, %q) = %q, want %q", tc.base, tc.drop, tc.add, got, tc.want)
		}
	}
}
