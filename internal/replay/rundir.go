package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gorocprof/gorocprof/internal/boundedread"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/records"
	"github.com/gorocprof/gorocprof/internal/stats"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// RunInfoFile is the file of a run directory that says what its records are for: the request, the
// command line, where and when the run started and the agents it planned on. It is written at launch,
// so that a run whose gorocprof was stopped before it wrote the outputs can be written later
// (Process, `gorocprof process`); docs/record-format.md describes it.
const RunInfoFile = "run.json"

// RunInfoVersion is the version of run.json this gorocprof writes and reads.
const RunInfoVersion = 1

// runInfoLimit bounds what is read of a run.json: agents, a plan and a command line.
const runInfoLimit = 16 << 20

// RunInfo is the content of run.json.
type RunInfo struct {
	Version int    `json:"version"`
	Backend string `json:"backend"`
	// ROCmRoot is --rocm-root as given: the rocm backend's catalogs come from the SDK there.
	ROCmRoot string   `json:"rocm_root"`
	App      string   `json:"app"`
	Args     []string `json:"args"`
	// CWD is gorocprof's working directory at launch: a relative -d is under it, and %cwd% is it.
	CWD      string    `json:"cwd"`
	Launched time.Time `json:"launched"`
	PMC      []string  `json:"pmc"` // the --pmc groups as ParseGroups reads them
	// ExtraCounters is the text of the -E file the run's catalogs had, so that Process plans with
	// the same counters; empty without one.
	ExtraCounters string `json:"extra_counters,omitempty"`
	Mode          string `json:"replay_mode"`
	// GroupInterval is pmc_group_interval under rotation (absent otherwise), which results.json's
	// metadata states.
	GroupInterval int `json:"pmc_group_interval,omitempty"`
	// ApplicationPass is the pass an application replay run collected (0-based), -1 for the merged
	// records of all passes and for other modes; ApplicationPasses is how many runs the replay takes.
	ApplicationPass   int  `json:"application_pass"`
	ApplicationPasses int  `json:"application_passes"`
	KernelTrace       bool `json:"kernel_trace"`
	// Tracing is the tracing flags the run asked for, TraceDomains the domains they traced on its
	// backend (the request's: under application replay only the first run's plan has them).
	Tracing         tracing.Selection `json:"trace_flags,omitempty"`
	TraceDomains    []string          `json:"trace_domains,omitempty"`
	Stats           bool              `json:"stats"`
	Filters         contract.Filters  `json:"filters"`
	OutputDir       string            `json:"output_directory"`
	OutputFile      string            `json:"output_file"`
	Formats         []string          `json:"output_format"`
	Mangled         bool              `json:"mangled_kernels"`
	AgentIndex      string            `json:"agent_index,omitempty"`
	Truncate        bool              `json:"truncate_kernels"`
	Quiet           bool              `json:"quiet"`
	LogLevel        string            `json:"log_level"`
	AllowDivergence bool              `json:"allow_divergence"`
	// MPIRankVariable and MPISizeVariable are --mpi-world-rank-variable and --mpi-world-size-variable.
	MPIRankVariable string `json:"mpi_world_rank_variable,omitempty"`
	MPISizeVariable string `json:"mpi_world_size_variable,omitempty"`
	// PathEnv holds the environment variables the output path placeholders read at launch (rank,
	// size, job, %env{NAME}%), "" for those unset, so that the outputs get the names they would have.
	PathEnv map[string]string `json:"path_env"`
	Agents  []contract.Agent  `json:"agents"`
	// Plan is the plan as results.json carries it; Process plans the groups again and checks that
	// the catalogs still give this plan.
	Plan json.RawMessage `json:"plan"`

	// Summary and SummaryTo are the request's; absent when no summary was asked for.
	Summary   *stats.SummaryOptions `json:"summary,omitempty"`
	SummaryTo string                `json:"summary_output_file,omitempty"`
}

// newRunInfo describes a run of req launched now; pass and passes as in RunInfo.
func newRunInfo(req Request, sess *Session, plan *counters.Plan, launched time.Time, pass, passes int) (RunInfo, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return RunInfo{}, fmt.Errorf("the working directory: %w", err)
	}
	planJSON, err := json.Marshal(plan.Agents)
	if err != nil {
		return RunInfo{}, fmt.Errorf("encoding the plan: %w", err)
	}
	pmc := make([]string, len(req.Groups))
	for i, g := range req.Groups {
		refs := make([]string, len(g.Counters))
		for k, r := range g.Counters {
			refs[k] = r.String()
		}
		pmc[i] = strings.Join(refs, " ")
	}
	env := map[string]string{}
	record := func(name string) string {
		v := os.Getenv(name)
		env[name] = v
		return v
	}
	vars := output.PathVars{Getenv: record}
	vars.FromEnv(record, req.RankVariables)
	for _, pattern := range []string{req.OutputDir, req.OutputFile} {
		_, _ = output.ExpandPath(pattern, vars) // validated before launch; only the names asked matter
	}
	return RunInfo{
		Version: RunInfoVersion, Backend: sess.Backend.Name(), ROCmRoot: req.ROCmRoot, App: req.App, Args: nonNil(req.Args),
		CWD: cwd, Launched: launched, PMC: pmc, ExtraCounters: extraText(req.Extra), Mode: modeOrNone(req.Mode),
		GroupInterval:   rotationInterval(req),
		ApplicationPass: pass, ApplicationPasses: passes, KernelTrace: req.KernelTrace, Stats: req.Stats, Filters: req.Filters,
		Tracing: req.Tracing, TraceDomains: req.TraceDomains,
		OutputDir: req.OutputDir, OutputFile: req.OutputFile, Formats: nonNil(req.Formats),
		Mangled: req.Mangled, Truncate: req.Truncate, AgentIndex: req.AgentIndex, Quiet: req.Quiet, LogLevel: req.LogLevel,
		AllowDivergence: req.AllowDivergence, MPIRankVariable: req.RankVariables.Rank, MPISizeVariable: req.RankVariables.Size,
		PathEnv: env, Agents: sess.Agents, Plan: planJSON,
		Summary: req.Summary, SummaryTo: req.SummaryTo,
	}, nil
}

func writeRunInfo(runDir string, info RunInfo) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", RunInfoFile, err)
	}
	path := filepath.Join(runDir, RunInfoFile)
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ReadRunInfo reads the run.json of a run directory.
func ReadRunInfo(runDir string) (RunInfo, error) {
	path := filepath.Join(runDir, RunInfoFile)
	data, err := boundedread.File(path, runInfoLimit)
	if err != nil {
		return RunInfo{}, fmt.Errorf("%s is not a run directory that gorocprof can write outputs from: %w", runDir, err)
	}
	var info RunInfo
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&info); err != nil {
		return RunInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return RunInfo{}, fmt.Errorf("%s: text after the JSON object", path)
	}
	if info.Version != RunInfoVersion {
		return RunInfo{}, fmt.Errorf("%s: version %d, this gorocprof reads version %d", path, info.Version, RunInfoVersion)
	}
	if len(info.Agents) == 0 || (len(info.PMC) == 0 && !info.KernelTrace && len(info.TraceDomains) == 0) {
		return RunInfo{}, fmt.Errorf("%s: no agents or nothing to collect: not written by gorocprof", path)
	}
	return info, nil
}

// savedRun is what a request processed from a run directory takes from its run.json instead of from
// this process: the launch's working directory and its path variables.
type savedRun struct {
	cwd     string
	env     map[string]string
	baseDir string // a relative output directory is under this one; "" for gorocprof's own
}

// pathVars is the placeholder values of one process's output paths.
func (req Request) pathVars(p *records.Process, launched time.Time) output.PathVars {
	getenv := os.Getenv
	cwd, _ := os.Getwd()
	if s := req.saved; s != nil {
		cwd = s.cwd
		getenv = func(name string) string {
			if v, ok := s.env[name]; ok {
				return v
			}
			return os.Getenv(name)
		}
	}
	vars := output.PathVars{Hostname: p.Header.Hostname, PID: p.Header.PID, PPID: p.Header.PPID, CWD: cwd,
		Launch: launched, Args: p.Header.Cmdline, Getenv: getenv}
	vars.FromEnv(getenv, req.RankVariables)
	return vars
}

// outputDir is the expanded output directory as a path: a relative one processed from a run
// directory is under the run's working directory.
func (req Request) outputDir(expanded string) string {
	if req.saved == nil || req.saved.baseDir == "" || filepath.IsAbs(expanded) {
		return expanded
	}
	return filepath.Join(req.saved.baseDir, expanded)
}

// RunLockFile is the lock (output.Lock) a running gorocprof holds in its run directory while the
// application runs and its records are read: `gorocprof process` refuses a directory whose lock is
// held, as its records are not all written yet.
const RunLockFile = "gorocprof.lock"

var (
	runLocksMu sync.Mutex
	runLocks   = map[string]*output.Lock{}
)

// lockRunDir takes the run directory's lock; releaseRunDir drops it (before the directory is
// removed, or when it is kept).
func lockRunDir(runDir string) error {
	l, err := output.LockFile(filepath.Join(runDir, RunLockFile))
	if err != nil {
		return fmt.Errorf("run directory %s: %w", runDir, err)
	}
	runLocksMu.Lock()
	runLocks[runDir] = l
	runLocksMu.Unlock()
	return nil
}

func releaseRunDir(runDir string) {
	runLocksMu.Lock()
	l := runLocks[runDir]
	delete(runLocks, runDir)
	runLocksMu.Unlock()
	l.Release()
}

// checkRunEnded refuses a run directory whose run is still going (its lock is held); the lock it
// takes to know is dropped at once.
func checkRunEnded(runDir string) error {
	l, err := output.LockFile(filepath.Join(runDir, RunLockFile))
	if errors.Is(err, output.ErrLocked) {
		return fmt.Errorf("%s: its run is still going (%v): `gorocprof process` writes a run's output once its run has ended", runDir, err)
	}
	if err != nil {
		return err
	}
	l.Release()
	return nil
}

// lockOutput takes the lock of the run's output prefix when every process of the run names the
// same one (no %pid%): a second gorocprof with the same -d and -o is refused before it launches,
// instead of leaving one run's results.json beside another's CSV. Nil when the prefix is per process.
func lockOutput(req Request) (*output.Lock, error) {
	sample := output.SampleVars(req.App, req.Args, os.Getenv, req.RankVariables)
	dir, file, fixed := output.FixedPrefix(req.OutputDir, req.OutputFile, sample)
	if !fixed {
		return nil, nil
	}
	return output.LockPrefix(req.outputDir(dir), file)
}

// spoolDir is where the dispatch spools may go when TMPDIR has no room for them: the output
// directory when every process shares it, else the working directory (where a relative -d is).
func spoolDir(req Request) string {
	sample := output.SampleVars(req.App, req.Args, os.Getenv, req.RankVariables)
	if dir, _, fixed := output.FixedPrefix(req.OutputDir, req.OutputFile, sample); fixed {
		return req.outputDir(dir)
	}
	return req.outputDir(".")
}

// keptRecords says on stderr where records that were not turned into output are, and how to.
func keptRecords(stderr io.Writer, what string, dirs ...string) {
	fmt.Fprintf(stderr, "gorocprof: %s kept in %s (`gorocprof process %s` writes the output from them)\n", what, strings.Join(dirs, " "), strings.Join(dirs, " "))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func modeOrNone(mode string) string {
	if mode == "" {
		return contract.ModeNone
	}
	return mode
}

// extraText is run.json's extra_counters: the -E file as it was read.
func extraText(e *counters.Extra) string {
	if e == nil {
		return ""
	}
	return string(e.Text())
}

// rotationInterval is run.json's pmc_group_interval: the interval under rotation, 0 (absent) otherwise.
func rotationInterval(req Request) int {
	if req.Mode != contract.ModeRotation {
		return 0
	}
	return groupInterval(req)
}
