package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// recorder is a Runner that keeps the requests it is given and launches nothing.
type recorder struct {
	reqs   []replay.Request
	result replay.Result
	err    error
}

func (r *recorder) run(_ context.Context, req replay.Request) (replay.Result, error) {
	req.Stdout, req.Stderr = nil, nil
	r.reqs = append(r.reqs, req)
	return r.result, r.err
}

// runCLI runs the command line as main does and returns what it printed and its exit status.
func runCLI(t *testing.T, rec *recorder, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Runner: rec.run}
	err := Execute(context.Background(), NewRootCmd(f), args)
	PrintError(&errOut, err)
	return out.String(), errOut.String(), ExitCode(err)
}

// clearEnv keeps the developer's own GOROCPROF_* settings out of the tests.
func clearEnv(t *testing.T) {
	t.Helper()
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, envPrefix+"_") {
			t.Setenv(name, "")
		}
	}
}

const conflictTail = ". Kernel replay only varies counter groups from one pass to the next; every other service stays on for all of the passes and would report each kernel once per pass. Collect them in a separate run."

func TestDiagnostics(t *testing.T) {
	kernel := []string{"--replay-mode", "kernel", "--kernel-replay-beta-enabled"}
	with := func(base []string, more ...string) []string { return append(append([]string{}, base...), more...) }
	tests := []struct {
		name string
		args []string
		code int
		want []string // exact stderr lines
	}{
		{"kernel without beta", []string{"--pmc", "SQ_WAVES", "--replay-mode", "kernel", "--", "./app"}, 1,
			[]string{"gorocprof: error: --replay-mode kernel requires acknowledgement that kernel replay is a beta feature via --kernel-replay-beta-enabled"}},
		{"kernel without counters", with(kernel, "--kernel-trace", "--", "./app"), 1,
			[]string{"gorocprof: error: --replay-mode kernel requires counter collection (--pmc, input-file pmc, or pmc_groups)"}},
		{"kernel with empty pmc", with(kernel, "--pmc", "", "--", "./app"), 1,
			[]string{"gorocprof: error: --replay-mode kernel requires counter collection (--pmc, input-file pmc, or pmc_groups)"}},
		{"kernel without beta nor counters", []string{"--replay-mode", "kernel", "--", "./app"}, 1,
			[]string{
				"gorocprof: error: --replay-mode kernel requires acknowledgement that kernel replay is a beta feature via --kernel-replay-beta-enabled",
				"gorocprof: error: --replay-mode kernel requires counter collection (--pmc, input-file pmc, or pmc_groups)",
			}},
		{"kernel with att", with(kernel, "--pmc", "SQ_WAVES", "--att", "--", "./app"), 1,
			[]string{"gorocprof: error: --replay-mode kernel cannot be combined with --att" + conflictTail}},
		{"kernel with all three, rocprofv3 order", with(kernel, "--spm", "--pc-sampling-unit", "cycles", "--att", "--pmc", "SQ_WAVES", "--", "./app"), 1,
			[]string{"gorocprof: error: --replay-mode kernel cannot be combined with --att or PC sampling or --spm" + conflictTail}},
		{"kernel with pc sampling", with(kernel, "--pmc", "SQ_WAVES", "--pc-sampling-beta-enabled", "--", "./app"), 1,
			[]string{"gorocprof: error: --replay-mode kernel cannot be combined with PC sampling" + conflictTail}},
		{"att alone", []string{"--att", "--", "./app"}, 1,
			[]string{"gorocprof: error: --att is not supported by gorocprof yet"}},
		{"spm alone", []string{"--spm", "--", "./app"}, 1,
			[]string{"gorocprof: error: --spm is not supported by gorocprof yet"}},
		{"empty group among several", with(kernel, "--pmc", "SQ_WAVES", "--pmc", "--pmc", "SQ_BUSY_CYCLES", "--", "./app"), 1,
			[]string{"gorocprof: error: Empty counter group in --pmc flag 2. Each --pmc must specify at least one counter."}},
		{"unsupported format", []string{"--pmc", "SQ_WAVES", "-f", "csv", "otf2", "--", "./app"}, 1,
			[]string{"gorocprof: error: --output-format otf2 is not supported yet (gorocprof writes csv, json, pftrace and rocpd)"}},
		{"bad include regex", []string{"--pmc", "SQ_WAVES", "--kernel-include-regex", "(axpy", "--", "./app"}, 2,
			[]string{"gorocprof: error: --kernel-include-regex \"(axpy\": error parsing regexp: missing closing ): `(axpy`"}},
		{"bad exclude regex", []string{"--pmc", "SQ_WAVES", "--kernel-exclude-regex", "a**", "--", "./app"}, 2,
			[]string{"gorocprof: error: --kernel-exclude-regex \"a**\": error parsing regexp: invalid nested repetition operator: `**`"}},
		{"bad iteration range", []string{"--pmc", "SQ_WAVES", "--kernel-iteration-range", "[1, x]", "--", "./app"}, 2,
			[]string{"gorocprof: error: --kernel-iteration-range \"[1, x]\": unexpected \"x\" at position 5: expected a number or '['"}},
		{"every diagnostic at once", []string{"--pmc", "SQ_WAVES", "--kernel-include-regex", "(", "--kernel-iteration-range", "0", "-f", "otf2", "--", "./app"}, 2,
			[]string{
				"gorocprof: error: --output-format otf2 is not supported yet (gorocprof writes csv, json, pftrace and rocpd)",
				"gorocprof: error: --kernel-include-regex \"(\": error parsing regexp: missing closing ): `(`",
				"gorocprof: error: --kernel-iteration-range \"0\": \"0\" at position 1: iterations are counted from 1",
			}},
		{"nothing to collect", []string{"--", "./app"}, 1,
			[]string{"gorocprof: error: " + diagNothingToCollect}},
		{"empty pmc", []string{"--pmc", "", "--", "./app"}, 1,
			[]string{"gorocprof: error: " + diagEmptyPMC}},
		{"output file expands to nothing", []string{"--pmc", "SQ_WAVES", "-o", "%env{GOROCPROF_NOT_SET}%", "--", "./app"}, 1,
			[]string{`gorocprof: warning: --output-file "%env{GOROCPROF_NOT_SET}%": environment variable GOROCPROF_NOT_SET is not set: %env{GOROCPROF_NOT_SET}% expands to nothing`,
				`gorocprof: error: -d "` + "OUT" + `" -o "%env{GOROCPROF_NOT_SET}%": the file name is empty`}},
		// Argument errors exit 2, as rocprofv3's argparse does.
		{"no application", []string{"--pmc", "SQ_WAVES"}, 2,
			[]string{"gorocprof: error: no application given after --", "Run 'gorocprof --help' for usage."}},
		{"unknown backend", []string{"--backend", "opencl", "--", "./app"}, 2,
			[]string{`gorocprof: error: invalid argument "opencl" for "--backend" flag: invalid choice "opencl" (choose from auto, sim, cuda, rocm)`, "Run 'gorocprof --help' for usage."}},
		{"unknown replay mode", []string{"--replay-mode", "range", "--", "./app"}, 2,
			[]string{`gorocprof: error: invalid argument "range" for "--replay-mode" flag: invalid choice "range" (choose from kernel, application)`, "Run 'gorocprof --help' for usage."}},
		{"unknown format", []string{"-f", "xml", "--", "./app"}, 2,
			[]string{`gorocprof: error: invalid argument "xml" for "-f, --output-format" flag: unknown output format "xml" (valid: csv, json, pftrace, rocpd)`, "Run 'gorocprof --help' for usage."}},
		{"bad boolean", []string{"--kernel-trace=maybe", "--", "./app"}, 2,
			[]string{`gorocprof: error: invalid argument "maybe" for "--kernel-trace" flag: invalid boolean "maybe" (use one of y, yes, t, true, on, 1, n, no, f, false, off, 0)`, "Run 'gorocprof --help' for usage."}},
		{"unknown flag", []string{"--kernel-trcae", "--", "./app"}, 2,
			[]string{"gorocprof: error: unknown flag: --kernel-trcae (did you mean --kernel-trace?)", "Run 'gorocprof --help' for usage."}},
		{"unknown input extension", []string{"-i", "jobs.toml", "--", "./app"}, 1,
			[]string{`gorocprof: error: input file jobs.toml: unknown extension ".toml" (expected .json, .yaml, .yml or .txt)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			rec := &recorder{}
			args := append([]string{"-d", out}, tt.args...)
			_, stderr, code := runCLI(t, rec, args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			stderr = strings.ReplaceAll(stderr, out, "OUT")
			if got := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("stderr:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(rec.reqs) != 0 {
				t.Errorf("the runner was called %d times; nothing may launch after a diagnostic", len(rec.reqs))
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output directory %s exists after a diagnostic", out)
			}
		})
	}
}

func TestAcceptedCommandLines(t *testing.T) {
	groups := func(names ...[]string) []counters.Group {
		var gs []counters.Group
		for _, g := range names {
			var grp counters.Group
			for _, n := range g {
				grp.Counters = append(grp.Counters, counters.CounterRef{Name: n})
			}
			gs = append(gs, grp)
		}
		return gs
	}
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, r replay.Request)
	}{
		{"kernel replay of two groups", []string{"--pmc", "SQ_WAVES", "SQ_INSTS_VALU", "--pmc", "SQ_WAVES,SQ_INSTS_SALU",
			"--replay-mode", "kernel", "--kernel-replay-beta-enabled", "--", "./app", "--pmc", "x"}, func(t *testing.T, r replay.Request) {
			if want := groups([]string{"SQ_INSTS_VALU", "SQ_WAVES"}, []string{"SQ_INSTS_SALU", "SQ_WAVES"}); !reflect.DeepEqual(r.Groups, want) {
				t.Errorf("groups %+v, want %+v", r.Groups, want)
			}
			if r.Mode != "kernel" || r.App != "./app" || !reflect.DeepEqual(r.Args, []string{"--pmc", "x"}) {
				t.Errorf("mode %q app %q args %q", r.Mode, r.App, r.Args)
			}
		}},
		{"beta without kernel mode is accepted", []string{"--kernel-replay-beta-enabled", "--pmc", "SQ_WAVES", "--", "./app"}, func(t *testing.T, r replay.Request) {
			if r.Mode != "none" || len(r.Groups) != 1 {
				t.Errorf("mode %q groups %d", r.Mode, len(r.Groups))
			}
		}},
		{"defaults", []string{"--pmc", "SQ_WAVES", "--", "./app"}, func(t *testing.T, r replay.Request) {
			if r.OutputDir != "." || r.OutputFile != "%hostname%/%pid%" || !reflect.DeepEqual(r.Formats, []string{"json", "csv"}) ||
				r.Backend != "auto" || r.LogLevel != "warning" || r.KernelTrace || r.Filters.NameKind != "demangled" {
				t.Errorf("defaults: %+v", r)
			}
		}},
		{"optional booleans", []string{"--pmc", "SQ_WAVES", "--kernel-trace", "off", "-T", "--mangled-kernels=yes", "--quiet", "--", "./app"}, func(t *testing.T, r replay.Request) {
			if r.KernelTrace || !r.Truncate || !r.Mangled || !r.Quiet || r.Filters.NameKind != "mangled" {
				t.Errorf("booleans: %+v", r)
			}
		}},
		{"formats and filters", []string{"--pmc", "SQ_WAVES", "-f", "csv", "--output-format=json,csv", "--kernel-include-regex", "axpy",
			"--kernel-exclude-regex", "^copy", "--kernel-iteration-range", "[1, 3, [5-8]]", "--", "./app"}, func(t *testing.T, r replay.Request) {
			if !reflect.DeepEqual(r.Formats, []string{"csv", "json"}) {
				t.Errorf("formats %q", r.Formats)
			}
			want := [][2]int64{{1, 1}, {3, 3}, {5, 8}}
			if r.Filters.IncludeRegex != "axpy" || r.Filters.ExcludeRegex != "^copy" || !reflect.DeepEqual(r.Filters.IterationRanges, want) {
				t.Errorf("filters %+v", r.Filters)
			}
		}},
		{"app without --", []string{"--pmc", "SQ_WAVES", "-d", "o", "./app", "-d", "x"}, func(t *testing.T, r replay.Request) {
			if r.OutputDir != "o" || r.App != "./app" || !reflect.DeepEqual(r.Args, []string{"-d", "x"}) {
				t.Errorf("dir %q app %q args %q", r.OutputDir, r.App, r.Args)
			}
		}},
		{"dry run needs no app", []string{"--dry-run", "--pmc", "SQ_WAVES"}, func(t *testing.T, r replay.Request) {
			if !r.DryRun || r.App != "" {
				t.Errorf("dry run %v app %q", r.DryRun, r.App)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clearEnv(t)
			rec := &recorder{}
			_, stderr, code := runCLI(t, rec, tt.args...)
			if code != 0 || len(rec.reqs) != 1 {
				t.Fatalf("exit %d, %d runs, stderr %q", code, len(rec.reqs), stderr)
			}
			tt.check(t, rec.reqs[0])
		})
	}
}

func TestNoArgumentsPrintsHelp(t *testing.T) {
	clearEnv(t)
	stdout, stderr, code := runCLI(t, &recorder{})
	if code != 0 || stderr != "" || !strings.Contains(stdout, "gorocprof [flags] -- <app> [args...]") {
		t.Errorf("exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
}

func TestAppStatusPassesThrough(t *testing.T) {
	clearEnv(t)
	incomplete := errors.New("profiling incomplete: 1 dispatch declined")
	tests := []struct {
		result replay.Result
		err    error
		code   int
		stderr string
	}{
		{replay.Result{ExitCode: 0}, nil, 0, ""},
		{replay.Result{ExitCode: 7}, nil, 7, ""},
		{replay.Result{ExitCode: 139, Signal: "SIGSEGV"}, nil, 139, "gorocprof: error: the application was terminated by signal SIGSEGV\n"},
		{replay.Result{ExitCode: 0}, incomplete, 1, "gorocprof: error: profiling incomplete: 1 dispatch declined\n"},
		{replay.Result{ExitCode: 5}, incomplete, 5, "gorocprof: error: the application exited with status 5: profiling incomplete: 1 dispatch declined\n"},
	}
	for _, tt := range tests {
		_, stderr, code := runCLI(t, &recorder{result: tt.result, err: tt.err}, "--pmc", "SQ_WAVES", "--", "./app")
		if code != tt.code || stderr != tt.stderr {
			t.Errorf("result %+v, %v: exit %d stderr %q, want %d %q", tt.result, tt.err, code, stderr, tt.code, tt.stderr)
		}
	}
}
