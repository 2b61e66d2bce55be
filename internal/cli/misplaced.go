package cli

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// misplacedFlags names the words after the application that are gorocprof's own flags, when the
// command line has no `--`: they went to the application (everything after it is the application's),
// which is rarely what was meant when the run is refused. "" when there are none.
func misplacedFlags(flags *pflag.FlagSet, app string, args []string, sawDash bool) string {
	if sawDash || app == "" {
		return ""
	}
	var ours []string
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			if f, _ := lookupFlag(flags, a); f != nil && !f.Hidden {
				ours = append(ours, a)
			}
		}
	}
	if len(ours) == 0 {
		return ""
	}
	return fmt.Sprintf("%s after the application went to %s, not to gorocprof: gorocprof's flags go before the application, and `--` before it (gorocprof %s ... -- %s ...)",
		strings.Join(ours, " "), app, ours[0], app)
}

// swallowedApp names a word of a --pmc group that is no counter but a program (a path, or a command
// of PATH): --pmc takes every word up to the next flag, the application's name too when no `--`
// stands before it. "" when there is none.
func swallowedApp(groups []string) string {
	for _, g := range groups {
		for _, w := range splitWords(g) {
			if looksLikeProgram(w) {
				return fmt.Sprintf("--pmc took %q as a counter name: it takes every word up to the next flag, so put `--` before the application (gorocprof --pmc ... -- %s ...)", w, w)
			}
		}
	}
	return ""
}

// looksLikeProgram: counter names have no '/' and are no commands of PATH (SQ_WAVES is not).
func looksLikeProgram(w string) bool {
	if strings.ContainsRune(w, '/') {
		return true
	}
	if strings.ContainsAny(w, ":[]=") || strings.ToUpper(w) == w {
		return false
	}
	_, err := exec.LookPath(w)
	return err == nil
}

// withMisplaced adds the note on flags given after the application to a run refused before launch.
func withMisplaced(err error, note string) error {
	var verr *ValidationError
	if note == "" || !errors.As(err, &verr) {
		return err
	}
	return &ValidationError{Diagnostics: append(slices.Clone(verr.Diagnostics), note), Usage: verr.Usage}
}
