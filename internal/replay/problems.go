package replay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/records"
)

// This file is the one place that words how a run ended and what its records lack: the
// application's exit status or signal, a process that ended before the tool library finished (crash
// or signal), a truncated record file, declined replays, fatal records, reading problems and missing
// passes. Each is told once: the application's end by the caller of Run (AppEnding, in the error
// gorocprof exits with), the rest in Run's error (ErrIncomplete), never also as a warning line. The
// tool printed its own warnings, declines and fatal errors when they happened, so those are counted
// here, not repeated.

// ErrIncomplete marks a run whose measurements are incomplete (a declined replay, a fatal record, a
// process that ended early): gorocprof must not exit 0.
var ErrIncomplete = errors.New("profiling incomplete")

// AppEnding words how the application ended; "" when it exited with status 0.
func AppEnding(exitCode int, signal string) string {
	switch {
	case signal != "":
		return "the application was terminated by signal " + signal
	case exitCode != 0:
		return fmt.Sprintf("the application exited with status %d", exitCode)
	}
	return ""
}

// incomplete is the error of a run whose records lack something; nil when nothing is lacking.
func incomplete(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	// A few problems say what is wrong; twenty thousand of them (a file damaged throughout) say
	// no more and make a line no terminal shows.
	const shown = 8
	if len(problems) > shown {
		return fmt.Errorf("%w: %s; and %d more problems of the same run", ErrIncomplete,
			strings.Join(problems[:shown], "; "), len(problems)-shown)
	}
	return fmt.Errorf("%w: %s", ErrIncomplete, strings.Join(problems, "; "))
}

// processProblems lists what makes one process's measurements incomplete. st is how the launched
// application ended: when a signal ended it, its own process's early end is that signal, which
// AppEnding already tells, so only what it means for the output is said.
func processProblems(mode string, st launch.Status, p *records.Process) []string {
	who := fmt.Sprintf("process %d", p.Header.PID)
	var out []string
	if n := len(p.Declines); n > 0 {
		out = append(out, fmt.Sprintf("%s: %s not replayed (the tool's warnings say why)", who, plural(n, "dispatch was", "dispatches were")))
	}
	if n := len(p.Fatals); n > 0 {
		out = append(out, fmt.Sprintf("%s: the tool reported %s", who, plural(n, "fatal error", "fatal errors")))
	}
	for _, pr := range p.Problems {
		out = append(out, fmt.Sprintf("%s: %s", who, pr))
	}
	if mode == contract.ModeKernel {
		for _, m := range p.MissingPasses() {
			out = append(out, fmt.Sprintf("%s: %s", who, m))
		}
	}
	switch {
	case p.Ended(), p.Stopped != "": // a stopped stream is among p.Problems, with its reason
	case st.Signaled() && int64(st.PID) == p.Header.PID:
		out = append(out, fmt.Sprintf("%s: its output holds every dispatch completed before the signal", who))
	default:
		out = append(out, fmt.Sprintf("%s ended before the tool library finished (crash or signal): its output holds every dispatch completed before that", who))
	}
	return out
}

// passEnded is the error of application replay pass i of n whose application failed; the failure
// itself is AppEnding's to tell.
func passEnded(i, n int) string {
	return fmt.Sprintf("application replay pass %d of %d: the remaining passes were not run and the output of the passes run so far is kept", i+1, n)
}

// The merged records of an application replay carry each later pass's warnings, fatal errors,
// declines and truncated file as warning or fatal records of the merged process, with their pass.

func passMessage(pass int, msg string) contract.Message {
	return contract.Message{Message: fmt.Sprintf("application replay pass %d: %s", pass, msg)}
}

func passDecline(pass int, d *contract.Decline) contract.Message {
	return passMessage(pass, fmt.Sprintf("dispatch %d: %s", d.DispatchID, d.Reason))
}

// passTruncated words a later pass's truncated record file as the reader words a truncated file
// (records.Process.Problems).
func passTruncated(pass int) contract.Message {
	return passMessage(pass, "incomplete last line ignored (the process stopped in the middle of a write)")
}
