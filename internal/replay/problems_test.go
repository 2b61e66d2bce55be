package replay

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/records"
)

func TestAppEnding(t *testing.T) {
	tests := []struct {
		code   int
		signal string
		want   string
	}{
		{0, "", ""},
		{5, "", "the application exited with status 5"},
		{134, "SIGABRT", "the application was terminated by signal SIGABRT"},
	}
	for _, tt := range tests {
		if got := AppEnding(tt.code, tt.signal); got != tt.want {
			t.Errorf("AppEnding(%d, %q) = %q, want %q", tt.code, tt.signal, got, tt.want)
		}
	}
}

// Each problem of a process is worded once; the early end of the application's own process, when a
// signal ended it, says only what it means for the output (AppEnding tells the signal).
func TestProcessProblems(t *testing.T) {
	ended := &contract.End{}
	killed := launch.Status{ExitCode: 134, Signal: syscall.SIGABRT, PID: 7}
	tests := []struct {
		name string
		st   launch.Status
		proc records.Process
		want []string
	}{
		{"complete", launch.Status{}, records.Process{Header: contract.Header{PID: 7}, End: ended}, nil},
		{"declines and fatals", launch.Status{}, records.Process{Header: contract.Header{PID: 7}, End: ended,
			Declines: []contract.Decline{{DispatchID: 1}, {DispatchID: 2}}, Fatals: []string{"boom"}},
			[]string{"process 7: 2 dispatches were not replayed (the tool's warnings say why)", "process 7: the tool reported 1 fatal error"}},
		{"truncated by a signal", killed, records.Process{Header: contract.Header{PID: 7}, Truncated: true,
			Problems: []string{"line 9: incomplete last line ignored (the process stopped in the middle of a write)"}},
			[]string{"process 7: line 9: incomplete last line ignored (the process stopped in the middle of a write)",
				"process 7: its output holds every dispatch completed before the signal"}},
		{"a child crashed", killed, records.Process{Header: contract.Header{PID: 8}},
			[]string{"process 8 ended before the tool library finished (crash or signal): its output holds every dispatch completed before that"}},
		{"the application crashed without a signal", launch.Status{ExitCode: 1, PID: 7}, records.Process{Header: contract.Header{PID: 7}},
			[]string{"process 7 ended before the tool library finished (crash or signal): its output holds every dispatch completed before that"}},
	}
	for _, tt := range tests {
		got := processProblems(contract.ModeNone, tt.st, &tt.proc)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: problems %q, want %q", tt.name, got, tt.want)
		}
		if err := incomplete(got); (err != nil) != (len(tt.want) > 0) || (err != nil && !errors.Is(err, ErrIncomplete)) {
			t.Errorf("%s: incomplete() = %v", tt.name, err)
		}
	}
}

// Twenty thousand problems make one error of a few of them and their count, not a line of a megabyte.
func TestIncompleteIsBounded(t *testing.T) {
	problems := make([]string, 20002)
	for i := range problems {
		problems[i] = fmt.Sprintf("process 1: line %d: damaged line skipped", i+1)
	}
	msg := incomplete(problems).Error()
	if len(msg) > 2000 || !strings.HasSuffix(msg, "; and 19994 more problems of the same run") {
		t.Errorf("%d bytes: %.300q", len(msg), msg)
	}
}
