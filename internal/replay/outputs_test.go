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
// would end this test binary), but for the copy of the signal that ended the application that
// comes in just after it (a Ctrl-C reaches the whole process group).
func TestInterruptStopsOutputPhase(t *testing.T) {
	tests := []struct {
		name      string
		sig       syscall.Signal
		ended     syscall.Signal // how the application ended
		grace     time.Duration
		wantCause bool
	}{
		{"SIGINT after an exit", syscall.SIGINT, 0, time.Hour, true},
		{"SIGTERM after an exit", syscall.SIGTERM, 0, time.Hour, true},
		{"SIGTERM after a SIGINT", syscall.SIGTERM, syscall.SIGINT, time.Hour, true},
		{"the SIGINT that ended it", syscall.SIGINT, syscall.SIGINT, time.Hour, false},
		{"SIGINT again, past the grace", syscall.SIGINT, syscall.SIGINT, 0, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			intr := catchInterrupts(nil)
			defer intr.stop()
			intr.grace = tc.grace
			ctx, release := intr.outputPhase(context.Background(), tc.ended)
			defer release()
			if err := syscall.Kill(os.Getpid(), tc.sig); err != nil {
				t.Fatal(err)
			}
			wait := 10 * time.Second
			if !tc.wantCause {
				wait = 300 * time.Millisecond
			}
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
			var ie *InterruptedError
			got := errors.As(context.Cause(ctx), &ie) && ie.Signal == tc.sig
			if got != tc.wantCause {
				t.Errorf("cause = %v, want an InterruptedError for %v: %v", context.Cause(ctx), tc.sig, tc.wantCause)
			}
		})
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
	files, err := writeOutputs(context.Background(), req, procs, &counters.Plan{}, time.Now(), nil, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "writing the output of process 7: ") || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("err = %v, want process 7's failure", err)
	}
	if want := []string{filepath.Join(dir, "b", "x_agent_info.csv"), filepath.Join(dir, "b", "x_counter_collection.csv")}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want process 8's %v", files, want)
	}
}

func TestSharedNote(t *testing.T) {
	proc := func(pid int64) *records.Process { return &records.Process{Header: contract.Header{PID: pid}} }
	tests := []struct {
		procs []*records.Process
		want  string
	}{
		{[]*records.Process{proc(7)}, ""},
		{[]*records.Process{proc(7), proc(8)}, "processes 7, 8 share the output name out/x: results.json holds one element per process " +
			"and the CSV files the rows of all; put %pid% in -o for files of their own"},
		{[]*records.Process{proc(7), proc(7)}, "the 2 process images of process 7 (exec) share the output name out/x: " +
			"results.json holds one element per image and the CSV files the rows of all"},
	}
	for _, tc := range tests {
		if got := (&target{dir: "out", file: "x", procs: tc.procs}).sharedNote(); got != tc.want {
			t.Errorf("sharedNote(%d processes) = %q, want %q", len(tc.procs), got, tc.want)
		}
	}
}
