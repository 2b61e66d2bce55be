package replay

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/records"
)

// TestOutputTargets: processes whose names expand the same share one target, in the order they
// came; a header value that would leave the output directory is made one file name, and said.
func TestOutputTargets(t *testing.T) {
	proc := func(pid int64, host string) *records.Process {
		return &records.Process{Header: contract.Header{PID: pid, Hostname: host}}
	}
	tests := []struct {
		name     string
		dir, out string
		procs    []*records.Process
		want     []string // dir/file: pids
		warns    []string
	}{
		{"a file per process", "out", "%hostname%/%pid%", []*records.Process{proc(7, "h"), proc(5, "h")},
			[]string{"out/h/7: 7", "out/h/5: 5"}, nil},
		{"a fixed -o", "out", "fixed", []*records.Process{proc(7, "h"), proc(5, "h"), proc(6, "g")},
			[]string{"out/fixed: 7 5 6"}, nil},
		{"by host", "out", "%h", []*records.Process{proc(7, "h"), proc(5, "g"), proc(6, "h")},
			[]string{"out/h: 7 6", "out/g: 5"}, nil},
		{"a hostname climbing out", "out", "%hostname%/%pid%", []*records.Process{proc(7, "../../x")},
			[]string{"out/.._.._x/7: 7"}, []string{`process 7: %hostname% "../../x" is not a file name`}},
		{"a hostname in -d", "out/%hostname%", "%pid%", []*records.Process{proc(7, "..")},
			[]string{"out/__/7: 7"}, []string{`process 7: %hostname% ".." is not a file name`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr bytes.Buffer
			targets, err := outputTargets(Request{OutputDir: tc.dir, OutputFile: tc.out}, tc.procs, time.Now(), &stderr)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range targets {
				var pids []string
				for _, p := range tg.procs {
					pids = append(pids, strings.TrimPrefix(pidList([]*records.Process{p}), "process "))
				}
				got = append(got, filepath.Join(tg.dir, tg.file)+": "+strings.Join(pids, " "))
			}
			if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
				t.Errorf("targets = %q, want %q", got, tc.want)
			}
			for _, w := range tc.warns {
				if !strings.Contains(stderr.String(), "gorocprof: warning: "+w) {
					t.Errorf("stderr = %q, want a warning %q", stderr.String(), w)
				}
			}
			if tc.warns == nil && stderr.Len() > 0 {
				t.Errorf("stderr = %q, want nothing", stderr.String())
			}
		})
	}
}

// TestInterruptStopsOutputPhase: once the application has ended, SIGINT or SIGTERM sent to
// gorocprof cancels the output phase with an *InterruptedError instead of ending gorocprof (which
// would end this test binary).
func TestInterruptStopsOutputPhase(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		intr := catchInterrupts()
		ctx, release := intr.outputPhase(context.Background())
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("%v did not stop the output phase", sig)
		}
		var ie *InterruptedError
		if !errors.As(context.Cause(ctx), &ie) || ie.Signal != sig {
			t.Errorf("cause = %v, want an InterruptedError for %v", context.Cause(ctx), sig)
		}
		release()
		intr.stop()
	}
}

// TestFailedTargetKeepsOthers: a process whose files cannot be written does not cost the others
// theirs; the error names it.
func TestFailedTargetKeepsOthers(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil { // where host a's directory goes
		t.Fatal(err)
	}
	procs := []*records.Process{
		{Header: contract.Header{PID: 7, Hostname: "a"}, Kernels: map[uint64]contract.Kernel{}},
		{Header: contract.Header{PID: 8, Hostname: "b"}, Kernels: map[uint64]contract.Kernel{}},
	}
	req := Request{OutputDir: dir, OutputFile: "%hostname%/x", Formats: []string{"csv"}}
	files, err := writeOutputs(context.Background(), req, procs, &counters.Plan{}, time.Now(), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "writing the output of process 7: ") || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("err = %v, want process 7's failure", err)
	}
	if want := []string{filepath.Join(dir, "b", "x_agent_info.csv"), filepath.Join(dir, "b", "x_counter_collection.csv")}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want process 8's %v", files, want)
	}
}
