package cli

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/gorocprof/gorocprof/internal/replay"
)

// TestExitCodeOfInterruptedOutput: gorocprof stopped by a signal while writing the output exits
// 128+n, as it would had the signal ended it, whatever the application's own status was.
func TestExitCodeOfInterruptedOutput(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{&replay.InterruptedError{Signal: syscall.SIGINT}, 130},
		{fmt.Errorf("application replay pass 1 of 2: %w", &replay.InterruptedError{Signal: syscall.SIGTERM}), 143},
		{&AppExitError{Code: 3, Err: &replay.InterruptedError{Signal: syscall.SIGINT}}, 130},
		{&replay.PassesInterruptedError{Signal: syscall.SIGINT, Pass: 1, Passes: 3}, 130},
		{errors.New("writing the output: no space left on device"), ExitFatal},
	}
	for _, tc := range tests {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
