package cli

import (
	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// ProfileOptions is one profiling run as the user asked for it, after flags, GOROCPROF_* environment,
// the input-file job and the defaults have been layered (in that order of precedence). Validate turns
// it into a replay.Request or into every diagnostic that stops it.
type ProfileOptions struct {
	PMC []string // raw counter groups, one per --pmc occurrence (or input-file `pmc`)
	// PMCGroups are an input file's pmc_groups: groups rotated over the dispatches of each agent in
	// one run, GroupInterval dispatches each (pmc_group_interval; 0 when not given), as rocprofv3.
	PMCGroups     []string
	GroupInterval int
	// ExtraCounters is -E: a YAML file of extra (derived) counter definitions, rocprofv3's format.
	ExtraCounters    string
	ReplayMode       string // "" (rocprofv3's default behaviour), "kernel" or "application"
	KernelReplayBeta bool
	KernelTrace      bool
	// Trace holds rocprofv3's tracing flags the user gave (tracing.Options), by name, from any layer;
	// Tracing is what they ask for once the shorthands are expanded (resolveJob), and --sys-trace or
	// --runtime-trace also turned KernelTrace on unless --kernel-trace was given.
	Trace           map[string]bool
	Tracing         tracing.Selection
	Stats           bool // --stats: the statistics of the traced domains
	OutputDirectory string
	OutputFile      string
	OutputFormats   []string
	IncludeRegex    string
	ExcludeRegex    string
	IterationRange  string
	Truncate        bool
	Mangled         bool
	AgentIndex      string // --agent-index: how the CSV files and the trace number agents
	LogLevel        string
	CacheControl    string // CUDA: all (flush caches before every pass, as ncu) or none
	GraphProfiling  string // CUDA: node (each kernel node of a graph launch a dispatch, as ncu) or graph
	Backend         string
	ROCmRoot        string // rocm: the ROCm installation whose rocprofiler-sdk profiles
	Quiet           bool
	DryRun          bool
	AllowDivergence bool // application replay: keep a merged result whose runs diverged, exit 0
	// MPI: the ranks that are profiled ("0-3,8"; "" for all) and the variables that hold the rank
	// and the world size ("" for the launchers' own, found as rocprofv3 finds them).
	ProfileMPIRanks string
	MPIRankVariable string
	MPISizeVariable string

	Summary SummaryOptions // -S, -D, --summary-groups, --summary-output-file, -u

	// Recognised so that their combination with kernel replay is diagnosed in rocprofv3's words;
	// gorocprof does not implement them yet.
	ATT        bool
	PCSampling bool
	SPM        bool

	App  string
	Args []string

	// Source names where a job came from ("job 2 of sweep.yaml") for diagnostics; empty for the
	// command line alone.
	Source string
}

// Option names, shared by the flags, the GOROCPROF_* environment (upper case, '-' as '_') and the
// input file keys ('-' as '_').
const (
	optPMC            = "pmc"
	optPMCGroups      = "pmc-groups"         // input file only: groups rotated over the dispatches
	optGroupInterval  = "pmc-group-interval" // input file only: dispatches per rotated group
	optExtraCounters  = "extra-counters"
	optReplayMode     = "replay-mode"
	optReplayBeta     = "kernel-replay-beta-enabled"
	optKernelTrace    = "kernel-trace"
	optStats          = "stats"
	optOutputDir      = "output-directory"
	optOutputFile     = "output-file"
	optOutputFormat   = "output-format"
	optIncludeRegex   = "kernel-include-regex"
	optExcludeRegex   = "kernel-exclude-regex"
	optIterationRange = "kernel-iteration-range"
	optTruncate       = "truncate-kernels"
	optMangled        = "mangled-kernels"
	optAgentIndex     = "agent-index"
	optLogLevel       = "log-level"
	optCacheControl   = "cache-control"
	optGraphProfiling = "graph-profiling"
	optBackend        = "backend"
	optROCmRoot       = "rocm-root"
	optQuiet          = "quiet"
	optDryRun         = "dry-run"
	optAllowDiverge   = "allow-divergence"
	optMPIRanks       = "profile-mpi-ranks"
	optMPIRankVar     = "mpi-world-rank-variable"
	optMPISizeVar     = "mpi-world-size-variable"
	optFailFast       = "fail-fast" // command line and environment only: it is about the sweep, not a job
	optInput          = "input"
	optListAvail      = "list-avail"
	optATT            = "att"
	optSPM            = "spm"
	optPCBeta         = "pc-sampling-beta-enabled"
	optPCUnit         = "pc-sampling-unit"
	optPCMethod       = "pc-sampling-method"
	optPCInterval     = "pc-sampling-interval"
)

// Defaults, where rocprofv3's differ gorocprof says why.
const (
	defaultOutputDir  = "."
	defaultOutputFile = "%hostname%/%pid%"
	defaultLogLevel   = "warning"
	defaultBackend    = backend.Auto
	// ncu's default: caches flushed before every pass, so cache-sensitive counters match it.
	defaultCacheControl = "all"
	// ncu's default: every kernel node of a graph launch is a dispatch of its own.
	defaultGraphProfiling = backend.GraphProfilingNode
)

// defaultFormats: rocprofv3 defaults to rocpd, gorocprof to results.json and the CSV files. The
// rocpd tools rebuild rocprofv3's own views over a database, whose counters_collection adds up the
// passes of a replayed dispatch, so a default database would read k times too high through them;
// gorocprof's scripts and checkers also read results.json. -f rocpd writes the database.
var defaultFormats = []string{"json", "csv"}

var (
	replayModes   = []string{"kernel", "application"}
	logLevels     = []string{"error", "warning", "info", "trace"}
	agentIndexes  = output.AgentIndexes
	cacheControls = []string{"all", "none"}
	graphModes    = backend.GraphProfilingModes
	backends      = backend.Names
	knownFormats  = []string{"csv", "json", "pftrace", "otf2", "rocpd"}
	writtenFormat = map[string]bool{"csv": true, "json": true, "pftrace": true, "rocpd": true}
)

// Formats gorocprof writes, as messages list them.
const (
	validFormats = "csv, json, pftrace, rocpd"
	writesWhat   = "gorocprof writes csv, json, pftrace and rocpd"
)
