package cli

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// TestFlagOrder: every order of the same flags gives the same validated request, for the profiling
// command, plan and compare. The flags are "atoms" (a flag with its words); the orders are every
// permutation of the first few atoms and a fixed random sample of permutations of all of them.
// --pmc atoms keep their relative order, because the order of groups is the order of passes.
func TestFlagOrder(t *testing.T) {
	clearEnv(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	app := []string{"--", "./app", "-d", "x", "--pmc", "y"}
	tests := []struct {
		name   string
		before []string   // words before the atoms: the subcommand
		atoms  [][]string // flags in any order
		after  []string   // the application
		want   []string   // lines the canonical order's output must contain
	}{
		{"profile", nil, [][]string{
			{"--backend", "sim"}, {"--pmc", "SQ_WAVES", "SQ_INSTS_VALU"}, {"--pmc", "GRBM_COUNT"}, {"-f", "json", "csv"},
			{"--quiet", "false"}, {"-d", out}, {"-TM"}, {"--output-file=x"}, {"--kernel-trace"}, {"--log-level", "info"},
			{"--kernel-include-regex", "axpy"}, {"--kernel-iteration-range", "[1-2]"},
		}, app, profileWant(out)},
		// The same request with other spellings of the same settings.
		{"profile, other spellings", nil, [][]string{
			{"--backend=sim"}, {"--pmc", "SQ_WAVES,SQ_INSTS_VALU"}, {"--pmc=GRBM_COUNT"}, {"--output-format", "json", "csv"},
			{"--quiet=no"}, {"-d" + out}, {"-T", "yes"}, {"-M"}, {"-o", "x"}, {"--kernel-trace", "on"}, {"--log-level=info"},
			{"--kernel-include-regex=axpy"}, {"--kernel-iteration-range=[1-2]"},
		}, app, profileWant(out)},
		{"plan", []string{"plan"}, [][]string{
			{"--backend", "sim"}, {"--pmc", "SQ_WAVES", "SQ_INSTS_VALU"}, {"--pmc", "GRBM_COUNT"}, {"--json"},
		}, nil, []string{"plan: backend sim, groups [[SQ_INSTS_VALU SQ_WAVES] [GRBM_COUNT]]", "[]"}},
		{"compare", []string{"compare"}, [][]string{
			{"--backend", "sim"}, {"--pmc", "SQ_WAVES", "SQ_INSTS_VALU"}, {"--pmc", "GRBM_COUNT"}, {"-TM"}, {"--rtol", "0.5"},
			{"--log-level", "info"}, {"-o", filepath.Join(dir, "compare.json")}, {"--kernel-include-regex", "axpy"},
			{"--kernel-iteration-range", "[1-2]"},
		}, app, []string{`  "backend": "sim",`, `  "log_level": "info",`, `  "app": "./app",`, `  "truncate": true,`, `  "mangled": true,`,
			`    "include_regex": "axpy",`, "compare: rtol 0.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			canonical := orderedArgs(tt.before, tt.atoms, tt.after)
			want, code := requestOf(t, canonical)
			if code != 0 {
				t.Fatalf("%q: exit %d:\n%s", canonical, code, want)
			}
			for _, line := range tt.want {
				if !slices.Contains(strings.Split(want, "\n"), line) {
					t.Fatalf("%q: output lacks the line %q:\n%s", canonical, line, want)
				}
			}
			failures := 0
			for _, atoms := range orders(tt.atoms) {
				args := orderedArgs(tt.before, atoms, tt.after)
				if got, code := requestOf(t, args); code != 0 || got != want {
					t.Errorf("%q: exit %d, request differs from the one of %q:\n%s", args, code, canonical, got)
					if failures++; failures == 5 {
						t.Fatal("stopping after 5 orders")
					}
				}
			}
			// A persistent flag may also stand before the subcommand's name.
			if len(tt.before) > 0 {
				args := append(append([]string{"--backend", "sim"}, tt.before...), orderedArgs(nil, tt.atoms[1:], tt.after)...)
				if got, code := requestOf(t, args); code != 0 || got != want {
					t.Errorf("%q: exit %d, request differs:\n%s", args, code, got)
				}
			}
		})
	}
}

func profileWant(out string) []string {
	return []string{`  "backend": "sim",`, `  "mode": "application",`, `  "kernel_trace": true,`, `  "output_dir": "` + out + `",`,
		`  "output_file": "x",`, `  "log_level": "info",`, `  "quiet": false,`, `  "truncate": true,`, `  "mangled": true,`,
		`    "include_regex": "axpy",`, `  "app": "./app",`,
		// The groups, in the order given: SQ_INSTS_VALU and SQ_WAVES, then GRBM_COUNT.
		`      "SQ_INSTS_VALU",`, `      "GRBM_COUNT"`}
}

// orders returns every permutation of the first five atoms (the rest in place) and 400 permutations
// of all of them drawn with a fixed seed, each with the --pmc atoms put back in their given order.
func orders(atoms [][]string) [][][]string {
	var out [][][]string
	k := min(5, len(atoms))
	var permute func(p []int, n int)
	permute = func(p []int, n int) {
		if n == 1 {
			out = append(out, arrange(atoms, append(slices.Clone(p), seq(k, len(atoms))...)))
			return
		}
		for i := 0; i < n; i++ {
			permute(p, n-1)
			if n%2 == 0 {
				p[i], p[n-1] = p[n-1], p[i]
			} else {
				p[0], p[n-1] = p[n-1], p[0]
			}
		}
	}
	permute(seq(0, k), k)
	rng := rand.New(rand.NewPCG(15, 1))
	for range 400 {
		p := seq(0, len(atoms))
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		out = append(out, arrange(atoms, p))
	}
	return out
}

// arrange orders the atoms by p, then puts the --pmc atoms back in their original order in the
// places the --pmc atoms took.
func arrange(atoms [][]string, p []int) [][]string {
	var pmc [][]string
	for _, a := range atoms {
		if isPMCAtom(a) {
			pmc = append(pmc, a)
		}
	}
	out := make([][]string, 0, len(p))
	for _, i := range p {
		a := atoms[i]
		if isPMCAtom(a) {
			a, pmc = pmc[0], pmc[1:]
		}
		out = append(out, a)
	}
	return out
}

func isPMCAtom(a []string) bool { return a[0] == "--pmc" || strings.HasPrefix(a[0], "--pmc=") }

func seq(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func orderedArgs(before []string, atoms [][]string, after []string) []string {
	args := slices.Clone(before)
	for _, a := range atoms {
		args = append(args, a...)
	}
	return append(args, after...)
}

// requestOf runs a command line and returns what reached the command's work, printed: the
// profiling request as printRequest shows it, compare's request likewise with its tolerance, and
// plan's backend and groups. Nothing is launched.
func requestOf(t *testing.T, args []string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	f := &Factory{IO: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Runner: printRequest}
	f.Comparer = func(ctx context.Context, req replay.CompareRequest) (replay.CompareReport, error) {
		if _, err := printRequest(ctx, req.Request); err != nil {
			return replay.CompareReport{}, err
		}
		fmt.Fprintf(req.Stdout, "compare: rtol %v\n", req.RTol)
		return replay.CompareReport{}, nil
	}
	f.PlanData = func(_ context.Context, c backend.Choice, _ *counters.Extra, groups []counters.Group) ([]contract.PlanAgent, error) {
		names := make([][]string, 0, len(groups))
		for _, g := range groups {
			names = append(names, g.Names())
		}
		fmt.Fprintf(&out, "plan: backend %s, groups %v\n", c.Name, names)
		return []contract.PlanAgent{}, nil
	}
	err := Execute(context.Background(), NewRootCmd(f), args)
	PrintError(&errOut, err)
	return out.String() + errOut.String(), ExitCode(err)
}
