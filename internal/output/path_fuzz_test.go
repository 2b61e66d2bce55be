package output

import (
	"strings"
	"testing"
	"time"
)

// FuzzExpandPath: expanding output path placeholders never panics, gives the same answer twice, and
// never adds a directory level: values taken from the command line, the host or the environment
// (none of which holds a '/' here except the arguments, which must be flattened) cannot make a
// path reach outside the directories its pattern names.
func FuzzExpandPath(f *testing.F) {
	for _, seed := range [][2]string{
		{"%hostname%/%pid%", "x"},
		{"%h_%p_%r_%s_%j_%nid%", "a/b"},
		{"out/%argv%-%argt%-%args%-%tag%", "../../etc/passwd"},
		{"%env{HOME}%/$ENV{USER}/$env{X}", "y"},
		{"%env{UNCLOSED", ""},
		{"$ENV{", ""},
		{"%launch_date%_%launch_time%_%cwd%", "z"},
		{"100%_%%pid%%", "w"},
	} {
		f.Add(seed[0], seed[1])
	}
	vars := func(arg string) PathVars {
		return PathVars{Hostname: "host", PID: 42, PPID: 1, CWD: "work", Launch: time.Unix(1700000000, 0).UTC(),
			Args: []string{"./bin/app", arg}, Getenv: func(name string) string { return "env_" + strings.ReplaceAll(name, "/", "") }}
	}
	f.Fuzz(func(t *testing.T, pattern, arg string) {
		once, err := ExpandPath(pattern, vars(arg))
		twice, err2 := ExpandPath(pattern, vars(arg))
		if once != twice || (err == nil) != (err2 == nil) {
			t.Fatalf("ExpandPath(%q) is not deterministic: %q, %v then %q, %v", pattern, once, err, twice, err2)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "output path") {
				t.Fatalf("ExpandPath(%q): error %q does not name the output path", pattern, err)
			}
			return
		}
		if got, limit := strings.Count(once, "/"), strings.Count(pattern, "/"); got > limit {
			t.Fatalf("ExpandPath(%q) with argument %q = %q: %d directory separators, the pattern has %d", pattern, arg, once, got, limit)
		}
	})
}
