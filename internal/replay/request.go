// Package replay runs profiling sessions as seen from outside the application: it plans the passes,
// launches the application with the tool library, reads the records and writes the output.
package replay

import (
	"io"
	"time"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/stats"
	"github.com/gorocprof/gorocprof/internal/tracing"
)

// Request is one validated profiling run, as the command line or an input-file job describes it.
type Request struct {
	Backend  string           // auto|sim|cuda|rocm
	ROCmRoot string           // --rocm-root: where rocprofiler-sdk is (rocm backend)
	Groups   []counters.Group // --pmc groups, parsed
	// Extra holds the extra counter definitions (-E), merged into every agent\'s catalog; nil: none.
	Extra *counters.Extra
	Mode  string // contract.ModeKernel | ModeApplication | ModeRotation | ModeNone
	// GroupInterval: under rotation, how many dispatches of an agent collect a group before the
	// next one takes over (pmc_group_interval).
	GroupInterval int
	KernelTrace   bool
	// Tracing is what the run asks to trace (docs/tracing.md); Prepare maps it onto the backend's
	// domains (TraceDomains).
	Tracing tracing.Selection
	// TraceDomains are the domains the run traces, sorted: what Prepare found for Tracing, or a run
	// directory's run.json's.
	TraceDomains []string
	Stats        bool // the statistics of the traced domains (with a trace)
	Filters      contract.Filters
	OutputDir    string // placeholders are expanded per process after the run
	OutputFile   string
	Formats      []string
	Mangled      bool
	AgentIndex   string // --agent-index; empty is relative
	Truncate     bool
	Quiet        bool
	LogLevel     string
	// CacheControl: CUDA, "all" (the default when empty) or "none" (contract.EnvCacheControl).
	CacheControl string
	// GraphProfiling: "node" (the default when empty) or "graph" (contract.EnvGraphProfiling); "graph"
	// only where the backend profiles whole graphs (backend.CheckGraphProfiling, checked by Prepare).
	GraphProfiling string
	DryRun         bool // plan and print, launch nothing
	// AllowDivergence keeps an application replay whose runs dispatched different kernels from
	// failing: what matched is merged either way, and the divergences are reported.
	AllowDivergence bool
	// RankVariables are --mpi-world-rank-variable and --mpi-world-size-variable: where %rank% and
	// %size% come from instead of the launchers' variables.
	RankVariables output.RankVariables
	// Unprofiled is a process outside --profile-mpi-ranks (Rank is its rank): the application runs
	// as often as a profiled run would run it, without the tool, and nothing is written.
	Unprofiled bool
	Rank       string
	App        string
	Args       []string
	Stdout     io.Writer
	Stderr     io.Writer

	// Summary is rocprofv3's summary of the traced kernels (-S, -D, --summary-groups, -u), nil for
	// none; SummaryTo is where it goes: "" or stderr, stdout (any case), or a file name pattern,
	// written as <file>_<name>.txt beside each prefix's files.
	Summary   *stats.SummaryOptions
	SummaryTo string

	// sinks see the processes of the run's result (the merged processes under application replay)
	// after the files and the summary: compare's statistics.
	sinks []output.Sink

	// prepared is what Prepare found (the session and the plan); nil until then.
	prepared *prepared

	// ownDivergences says the caller reports an application replay's divergences itself (compare's
	// report), so the run does not list them on stderr as well.
	ownDivergences bool

	// saved, when set, is the run directory's account of the launch (Process): path placeholders
	// take their values from it instead of from this process.
	saved *savedRun
}

// Result is how a run ended.
type Result struct {
	ExitCode int      // the application's status (128+n when killed by signal n)
	Signal   string   // e.g. "SIGSEGV" when a signal ended the application
	Files    []string // output files written, in order
	// Elapsed is the wall time from the first launch to the last output file: every run of an
	// application replay, the merge and the writing included.
	Elapsed time.Duration
	// Divergences lists where the runs of an application replay disagreed (empty otherwise).
	Divergences []Divergence
}
