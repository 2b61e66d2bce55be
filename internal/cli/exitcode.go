package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// Exit statuses. Everything that decides how gorocprof exits goes through ExitCode, so that the
// statuses scripts depend on are defined here and nowhere else.
const (
	ExitOK          = 0
	ExitFatal       = 1 // a validation diagnostic or a run that failed
	ExitUsage       = 2 // the command line could not be understood (as rocprofv3's argument errors)
	ExitDifferences = 3 // compare found values that disagree
)

// UsageError is a command line that cannot be understood: unknown flag, missing value, no app.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ValidationError carries every diagnostic found in one options struct, so that the user fixes them
// all in one go instead of one per attempt.
// Usage marks that one of them is a value its flag cannot take (a malformed iteration range, a
// regular expression or placeholder that does not parse): such a command line exits 2, as
// rocprofv3's argument errors do; the rest (settings that do not fit together, as rocprofv3's
// "Fatal error"s) exit 1.
type ValidationError struct {
	Diagnostics []string
	Usage       bool
}

func (e *ValidationError) Error() string { return strings.Join(e.Diagnostics, "\n") }

// AppExitError reports that the profiled application itself did not succeed; gorocprof exits with
// the application's status (or 128+n when a signal ended it), as a single rocprofv3 run does.
type AppExitError struct {
	Code   int    // exit status to pass through: the app's own, or 128+n when signalled
	Signal string // name of the signal that ended the app, empty when it exited
	Err    error  // what else went wrong in the same run (incomplete records), if anything
}

func (e *AppExitError) Error() string {
	msg := replay.AppEnding(e.Code, e.Signal)
	if msg == "" {
		msg = "the application failed" // status 0: a launcher bug, see ExitCode
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *AppExitError) Unwrap() error { return e.Err }

// InterruptedError reports that gorocprof itself was sent SIGINT or SIGTERM during a sweep: the
// job running got it too, no further job started, and gorocprof exits 128+n as the application
// would.
type InterruptedError struct {
	Signal syscall.Signal
	NotRun int // jobs that did not start
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted by %s: %d job(s) not run; the output of the jobs run so far is kept", launch.SignalName(e.Signal), e.NotRun)
}

// DifferencesError is returned by comparisons whose results disagree.
type DifferencesError struct {
	Count int
	What  string // what differs, in the words of the report; "<Count> values differ" when empty
}

func (e *DifferencesError) Error() string {
	if e.What != "" {
		return e.What
	}
	return fmt.Sprintf("%d values differ", e.Count)
}

// ExitCode maps an error returned by Execute to the process exit status.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var usage *UsageError
	var app *AppExitError
	var diff *DifferencesError
	var intr *InterruptedError
	var verr *ValidationError
	var outIntr *replay.InterruptedError
	var passIntr *replay.PassesInterruptedError
	switch {
	case errors.As(err, &passIntr):
		return 128 + int(passIntr.Signal)
	case errors.As(err, &intr):
		return 128 + int(intr.Signal)
	case errors.As(err, &outIntr):
		return 128 + int(outIntr.Signal)
	case errors.As(err, &usage):
		return ExitUsage
	case errors.As(err, &verr) && verr.Usage:
		return ExitUsage
	case errors.As(err, &app):
		if app.Code == 0 {
			// An app that "failed" with status 0 is a launcher bug; never report success for it.
			return ExitFatal
		}
		return app.Code
	case errors.As(err, &diff):
		return ExitDifferences
	default:
		return ExitFatal
	}
}

// PrintError writes err the way rocprofv3 users expect diagnostics: one `gorocprof: error: ` line
// per diagnostic. An app that merely exited non-zero has already spoken for itself, so nothing is
// printed for it unless a signal ended it or the run had another problem.
//
// The message is bounded whatever it holds (a value given on the command line, a line of a damaged
// file): at most maxErrorLines lines of at most maxLineBytes, a word longer than maxWordBytes cut
// with its length.
func PrintError(w io.Writer, err error) {
	if err == nil {
		return
	}
	var app *AppExitError
	if errors.As(err, &app) && app.Signal == "" && app.Err == nil && app.Code != 0 {
		return
	}
	var usage *UsageError
	for _, line := range boundedLines(err.Error()) {
		fmt.Fprintf(w, "gorocprof: error: %s\n", line)
	}
	if errors.As(err, &usage) {
		fmt.Fprintln(w, "Run 'gorocprof --help' for usage.")
	}
}

// A word of a message is at most a path (PATH_MAX, 4096 bytes) and a little: only values no file
// system holds are cut.
const (
	maxErrorLines = 12
	maxLineBytes  = 8192
	maxWordBytes  = 4200
)

// boundedLines is message as PrintError prints it: a few lines, long values cut with their length.
func boundedLines(message string) []string {
	lines := strings.Split(strings.TrimSuffix(message, "\n"), "\n")
	if len(lines) > maxErrorLines {
		more := len(lines) - maxErrorLines + 1
		lines = append(lines[:maxErrorLines-1], fmt.Sprintf("... and %d more lines", more))
	}
	for i, line := range lines {
		words := strings.Split(line, " ")
		for k, word := range words {
			if len(word) > maxWordBytes {
				words[k] = cutText(word, maxWordBytes/2) + fmt.Sprintf("...(%d bytes)", len(word))
			}
		}
		line = strings.Join(words, " ")
		if len(line) > maxLineBytes {
			line = cutText(line, maxLineBytes) + fmt.Sprintf("... (%d bytes in all)", len(line))
		}
		lines[i] = line
	}
	return lines
}

// cutText is the first n bytes of s, not splitting a UTF-8 character.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
