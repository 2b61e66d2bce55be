package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/e2etest"
	"github.com/gorocprof/gorocprof/internal/golden"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/replay"
	"github.com/gorocprof/gorocprof/internal/tracing"
	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the testscript files run gorocprof as a command:
//   - gorocprof: the program exactly as cmd/gorocprof builds it;
//   - gorocprof-request: the same command line with a runner that prints the validated request as
//     JSON instead of launching, to check what the command line hands the replay package.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gorocprof": func() {
			if launch.IsWatchdog() {
				os.Exit(launch.Watchdog())
			}
			launch.EnableWatchdog()
			f := NewFactory()
			os.Exit(mainLike(f))
		},
		"gorocprof-request": func() {
			f := NewFactory()
			f.Prepare, f.Runner = nil, printRequest
			os.Exit(mainLike(f))
		},
		// gorocprof-fake: runs and comparisons without an application (fake_test.go).
		"gorocprof-fake": func() {
			f := NewFactory()
			f.Prepare, f.Runner, f.Comparer = fakePrepare, fakeRun, fakeCompare
			os.Exit(mainLike(f))
		},
	})
}

// mainLike is cmd/gorocprof's main without the os.Exit.
func mainLike(f *Factory) int {
	err := Execute(context.Background(), NewRootCmd(f), os.Args[1:])
	PrintError(f.IO.ErrOut, err)
	return ExitCode(err)
}

func printRequest(_ context.Context, req replay.Request) (replay.Result, error) {
	groups := [][]string{}
	for _, g := range req.Groups {
		groups = append(groups, g.Names())
	}
	view := struct {
		Backend     string            `json:"backend"`
		Groups      [][]string        `json:"groups"`
		Mode        string            `json:"mode"`
		Interval    int               `json:"group_interval,omitempty"`
		KernelTrace bool              `json:"kernel_trace"`
		Tracing     tracing.Selection `json:"tracing,omitempty"`
		Filters     contract.Filters  `json:"filters"`
		OutputDir   string            `json:"output_dir"`
		OutputFile  string            `json:"output_file"`
		Formats     []string          `json:"formats"`
		Mangled     bool              `json:"mangled"`
		Truncate    bool              `json:"truncate"`
		Quiet       bool              `json:"quiet"`
		LogLevel    string            `json:"log_level"`
		DryRun      bool              `json:"dry_run"`
		AllowDiv    bool              `json:"allow_divergence,omitempty"`
		Summary     *summaryOpts      `json:"summary,omitempty"`
		SummaryTo   string            `json:"summary_output_file,omitempty"`
		RankVar     string            `json:"mpi_world_rank_variable,omitempty"`
		SizeVar     string            `json:"mpi_world_size_variable,omitempty"`
		Unprofiled  bool              `json:"unprofiled,omitempty"`
		Rank        string            `json:"rank,omitempty"`
		App         string            `json:"app"`
		Args        []string          `json:"args"`
	}{req.Backend, groups, req.Mode, req.GroupInterval, req.KernelTrace, req.Tracing, req.Filters, req.OutputDir, req.OutputFile, req.Formats,
		req.Mangled, req.Truncate, req.Quiet, req.LogLevel, req.DryRun, req.AllowDivergence, req.Summary, req.SummaryTo,
		req.RankVariables.Rank, req.RankVariables.Size, req.Unprofiled, req.Rank, req.App, req.Args}
	enc := json.NewEncoder(req.Stdout)
	enc.SetIndent("", "  ")
	return replay.Result{}, enc.Encode(view)
}

// TestScript runs testdata/script/*.txtar: the command-line contract as a user sees it. testscript
// starts each script with a minimal environment, so GOROCPROF_* settings of the developer do not leak.
// `exits N cmd args...` runs a command and checks its exact exit status, which `! exec` cannot.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "../../testdata/script",
		UpdateScripts: golden.Updating(),
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exitsCmd,
		},
	})
}

func exitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exits: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// TestScriptE2E runs testdata/script-e2e/*.txtar: the real program against the simulated agents'
// tool library and example apps that `make` builds into lib/gorocprof and bin. Without that build it
// skips, unless GOROCPROF_REQUIRE_E2E is set (make test), where a missing build is a failure.
func TestScriptE2E(t *testing.T) {
	testscript.Run(t, e2eParams(t, "../../testdata/script-e2e"))
}

// e2eParams are the end-to-end scripts' settings for the scripts in dir: the built tool library and
// apps, and the commands that read what a run wrote.
func e2eParams(t *testing.T, dir string) testscript.Params {
	root := e2etest.Require(t, "sim-crash", "sim-signal", "sim-exit", "sim-trace")
	lib, bin := os.Getenv("GOROCPROF_LIB_DIR"), filepath.Join(root, "bin")
	return testscript.Params{
		Dir: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("GOROCPROF_LIB_DIR", lib)
			env.Setenv("BIN", bin)
			env.Setenv("KFD_FIXTURES", filepath.Join(root, "internal", "backend", "rocm", "testdata", "kfd"))
			env.Setenv("ROCM_EMULATOR", filepath.Join(lib, "rocm-emulator"))
			return nil
		},
		Condition: scriptCondition(lib),
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":             exitsCmd,
			"waitfile":          waitfileCmd,
			"glob":              globCmd,
			"gone":              gonePIDsCmd,
			"pftrace":           pftraceCmd,
			"pftrace-vs-csv":    pftraceVsCSVCmd,
			"rocpd":             rocpdQueryCmd,
			"rocpd-matches-csv": rocpdMatchesCSVCmd,
			"rocpd-vs-pftrace":  rocpdVsPftraceCmd,
			"samerecords":       sameRecordsCmd,
			"summary-stats":     summaryMatchesStatsCmd,
		},
	}
}
