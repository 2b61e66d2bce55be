package cli

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// The diagnostics rocprofv3 gives for kernel replay, in its words, so that scripts and users who
// know one tool recognise them in the other.
const (
	diagKernelNeedsBeta     = "--replay-mode kernel requires acknowledgement that kernel replay is a beta feature via --kernel-replay-beta-enabled"
	diagKernelNeedsCounters = "--replay-mode kernel requires counter collection (--pmc, input-file pmc, or pmc_groups)"
	diagKernelConflictFmt   = "--replay-mode kernel cannot be combined with %s. Kernel replay only varies counter groups from one pass to the next; every other service stays on for all of the passes and would report each kernel once per pass. Collect them in a separate run."
)

// What gorocprof says when a run would collect nothing.
const (
	diagEmptyPMC         = "--pmc (or pmc in the input file) names no counter: give at least one, e.g. --pmc SQ_WAVES"
	diagNothingToCollect = "nothing to collect: give counters with --pmc, or ask for a trace with --kernel-trace, --sys-trace or another tracing flag"
	// rocprofv3's --stats summarises the domains it traces.
	diagStatsNeedsTrace = "--stats summarises traced domains: add --kernel-trace or another tracing flag"
)

// checkOutputLocation finds, before anything is launched, what would stop the output from being
// written: a placeholder without its end, a file name that expands to nothing or is too long, a
// directory that is a file or cannot be created. Placeholders known only per process (%pid%) are
// expanded with the widest values they can take. A dry run writes nothing, so only it is not probed.
// usage says that a placeholder does not parse.
func checkOutputLocation(o ProfileOptions, rankVars output.RankVariables) (diags []string, usage bool) {
	if o.OutputDirectory == "" {
		return []string{"--output-directory must not be empty"}, false
	}
	if o.OutputFile == "" {
		return []string{"--output-file must not be empty"}, false
	}
	vars := output.SampleVars(o.App, o.Args, os.Getenv, rankVars)
	dir, derr := output.ExpandPath(o.OutputDirectory, vars)
	file, ferr := output.ExpandPath(o.OutputFile, vars)
	if derr != nil {
		diags = append(diags, fmt.Sprintf("--%s: %v", optOutputDir, derr))
	}
	if ferr != nil {
		diags = append(diags, fmt.Sprintf("--%s: %v", optOutputFile, ferr))
	}
	diags = append(diags, unknownPlaceholders(optOutputDir, o.OutputDirectory)...)
	diags = append(diags, unknownPlaceholders(optOutputFile, o.OutputFile)...)
	if len(diags) > 0 {
		return diags, true
	}
	if err := output.CheckLocation(dir, file, !o.DryRun); err != nil {
		return []string{fmt.Sprintf("-d %q -o %q: %v", o.OutputDirectory, o.OutputFile, err)}, false
	}
	return nil, false
}

// Validate checks one options struct before anything is launched or created and turns it into the
// request the replay package runs. It returns every diagnostic at once, as a *ValidationError.
func Validate(o ProfileOptions) (replay.Request, error) {
	var diags []string
	add := func(format string, args ...any) { diags = append(diags, fmt.Sprintf(format, args...)) }
	usage := false // a value its flag cannot take: see ValidationError
	o.OutputDirectory = expandHome(o.OutputDirectory)

	if o.ReplayMode != "" {
		if err := checkChoice(o.ReplayMode, replayModes); err != nil {
			add("--replay-mode: %v", err)
			usage = true
		}
	}

	// The rank variables expand -o and the summary file's name; their diagnostics keep their place.
	mpi, mdiags := checkMPIRanks(o, os.Getenv)
	c, cdiags := collection(o)
	diags = append(diags, cdiags...)
	diags = append(diags, checkSummary(o, mpi.vars)...)

	formats, fdiags := checkFormats(o.OutputFormats)
	diags = append(diags, fdiags...)
	for _, re := range []struct{ flag, expr string }{
		{"--" + optIncludeRegex, o.IncludeRegex},
		{"--" + optExcludeRegex, o.ExcludeRegex},
	} {
		if _, err := regexp.Compile(re.expr); err != nil {
			add("%s %q: %v", re.flag, re.expr, err)
			usage = true
		}
	}
	ranges, err := ParseIterationRange(o.IterationRange)
	if err != nil {
		add("--%s %q: %v", optIterationRange, o.IterationRange, err)
		usage = true
	}
	sdiags, susage := checkSettings(o)
	usage = usage || susage
	diags = append(diags, sdiags...)
	diags = append(diags, mdiags...)
	ldiags, lusage := checkOutputLocation(o, mpi.vars)
	usage = usage || lusage
	diags = append(diags, ldiags...)

	if len(diags) > 0 {
		if o.Source != "" {
			for i := range diags {
				diags[i] = o.Source + ": " + diags[i]
			}
		}
		return replay.Request{}, &ValidationError{Diagnostics: diags, Usage: usage}
	}

	nameKind := filterNameKind(o.Mangled, o.Truncate)
	return replay.Request{
		Backend:       o.Backend,
		ROCmRoot:      o.ROCmRoot,
		Groups:        c.groups,
		Extra:         c.extra,
		Mode:          c.mode,
		GroupInterval: o.GroupInterval,
		KernelTrace:   o.KernelTrace,
		Tracing:       o.Tracing,
		Stats:         o.Stats,
		Summary:       summaryRequest(o.Summary),
		SummaryTo:     o.Summary.OutputFile,
		Filters: contract.Filters{
			IncludeRegex:    o.IncludeRegex,
			ExcludeRegex:    o.ExcludeRegex,
			NameKind:        nameKind,
			IterationRanges: ranges,
		},
		OutputDir:       o.OutputDirectory,
		OutputFile:      o.OutputFile,
		Formats:         formats,
		Mangled:         o.Mangled,
		Truncate:        o.Truncate,
		AgentIndex:      o.AgentIndex,
		Quiet:           o.Quiet,
		LogLevel:        o.LogLevel,
		CacheControl:    o.CacheControl,
		GraphProfiling:  o.GraphProfiling,
		DryRun:          o.DryRun,
		AllowDivergence: o.AllowDivergence,
		RankVariables:   mpi.vars,
		Unprofiled:      mpi.unprofiled,
		Rank:            mpi.rank,
		App:             o.App,
		Args:            o.Args,
	}, nil
}

// collected is what a run collects: its counter groups, the mode they are collected in, and the
// extra counter definitions its catalogs get.
type collected struct {
	groups []counters.Group
	mode   string
	extra  *counters.Extra
}

// collection reads what the run collects (the --pmc groups, or an input file's rotated
// pmc_groups, and -E) and says what is wrong with it.
func collection(o ProfileOptions) (collected, []string) {
	var diags []string
	groups, groupsErr := counters.ParseGroups(o.PMC)
	if groupsErr != nil {
		diags = append(diags, groupsErr.Error())
	}
	rotated, rdiags := parseRotatedGroups(o.PMCGroups)
	diags = append(diags, rdiags...)
	// A failed parse has been reported already; do not also claim that no counters were asked for.
	hasCounters := len(groups) > 0 || groupsErr != nil || len(o.PMCGroups) > 0
	diags = append(diags, checkCollection(o, hasCounters)...)
	diags = append(diags, checkRotation(o)...)
	extra, err := readExtraSetting(o.ExtraCounters)
	if err != nil {
		diags = append(diags, err.Error())
	}
	c := collected{groups: groups, mode: replayMode(o, len(groups)), extra: extra}
	if len(rotated) > 0 {
		c.groups, c.mode = rotated, contract.ModeRotation
	}
	return c, diags
}

// checkSettings checks the settings that name one of a few choices (the log level, the cache control,
// the backend) and the ROCm root; usage says a choice is none of its words.
func checkSettings(o ProfileOptions) (diags []string, usage bool) {
	add := func(format string, args ...any) { diags = append(diags, fmt.Sprintf(format, args...)) }
	if err := checkChoice(o.LogLevel, logLevels); err != nil {
		add("--log-level: %v", err)
	}
	if o.AgentIndex != "" { // relative
		if err := checkChoice(o.AgentIndex, agentIndexes); err != nil {
			add("--agent-index: %v", err)
		}
	}
	if err := checkChoice(o.CacheControl, cacheControls); err != nil {
		add("--cache-control: %v", err)
	}
	if err := checkChoice(o.GraphProfiling, graphModes); err != nil {
		add("--graph-profiling: %v", err)
	}
	if !slices.Contains(backends, o.Backend) {
		add("--backend: unknown backend %q (valid: %s)", o.Backend, strings.Join(backends, ", "))
	}
	usage = len(diags) > 0
	if o.ROCmRoot == "" {
		add("--%s: empty: name the ROCm installation (default $%s, else /opt/rocm)", optROCmRoot, backend.EnvROCmPath)
	}
	return diags, usage
}

// checkCollection says what is wrong with what the run collects: nothing at all, kernel replay's
// conditions in rocprofv3's words, services gorocprof does not have yet.
func checkCollection(o ProfileOptions, hasCounters bool) []string {
	var diags []string
	add := func(format string, args ...any) { diags = append(diags, fmt.Sprintf(format, args...)) }
	if o.Stats && !traces(o) {
		add(diagStatsNeedsTrace)
	}
	if o.ReplayMode == contract.ModeKernel {
		if !o.KernelReplayBeta {
			add(diagKernelNeedsBeta)
		}
		if !hasCounters {
			add(diagKernelNeedsCounters)
		}
		if c := conflicts(o); len(c) > 0 {
			add(diagKernelConflictFmt, strings.Join(c, " or "))
		}
		return diags
	}
	switch {
	case hasCounters || traces(o) || o.ATT || o.SPM || o.PCSampling: // the last three are refused below
	case len(o.PMC) > 0:
		add(diagEmptyPMC)
	default:
		add(diagNothingToCollect)
	}
	if o.ATT {
		add("--att is not supported by gorocprof yet")
	}
	if o.PCSampling {
		add("PC sampling (--pc-sampling-*) is not supported by gorocprof yet")
	}
	if o.SPM {
		add("--spm is not supported by gorocprof yet")
	}
	return diags
}

// traces reports whether the run traces anything: the kernel dispatches or a domain.
func traces(o ProfileOptions) bool { return o.KernelTrace || len(o.Tracing) > 0 }

// diagPMCAndGroups is rocprofv3's refusal of both at once.
const diagPMCAndGroups = "Cannot specify both --pmc and (input file) pmc_groups"

// checkRotation says what cannot go with an input file's pmc_groups: --pmc (rocprofv3 refuses it
// too), a replay mode (rotation is one run without replay: each dispatch collects one group), and a
// pmc_group_interval without groups to rotate.
func checkRotation(o ProfileOptions) []string {
	var diags []string
	if len(o.PMCGroups) == 0 {
		if o.GroupInterval != 0 {
			diags = append(diags, "pmc_group_interval needs pmc_groups: it says how many dispatches of an agent collect one of them")
		}
		return diags
	}
	if len(o.PMC) > 0 {
		diags = append(diags, diagPMCAndGroups)
	}
	if o.ReplayMode != "" {
		diags = append(diags, fmt.Sprintf("pmc_groups cannot be combined with --replay-mode %s: the groups rotate over the dispatches of one run "+
			"without replay, each dispatch collecting one group (give the groups as pmc, or --pmc, to replay them)", o.ReplayMode))
	}
	return diags
}

// parseRotatedGroups parses pmc_groups, numbering each group in messages as the file lists it.
func parseRotatedGroups(raw []string) ([]counters.Group, []string) {
	var groups []counters.Group
	var diags []string
	for i, g := range raw {
		parsed, err := counters.ParseGroups([]string{g})
		switch {
		case err != nil:
			if inner := errors.Unwrap(err); inner != nil {
				err = inner // drop ParseGroups' "--pmc flag 1:", which names no flag here
			}
			diags = append(diags, fmt.Sprintf("pmc_groups group %d: %v", i+1, err))
		case len(parsed) == 0:
			diags = append(diags, fmt.Sprintf("pmc_groups group %d is empty: each group needs at least one counter", i+1))
		default:
			groups = append(groups, parsed[0])
		}
	}
	if len(diags) > 0 {
		return nil, diags
	}
	return groups, nil
}

// conflicts lists the services kernel replay cannot run beside, in rocprofv3's order.
func conflicts(o ProfileOptions) []string {
	var c []string
	if o.ATT {
		c = append(c, "--att")
	}
	if o.PCSampling {
		c = append(c, "PC sampling")
	}
	if o.SPM {
		c = append(c, "--spm")
	}
	return c
}

// replayMode: without kernel replay, several groups mean application replay (one run per pass), as
// with rocprofv3.
func replayMode(o ProfileOptions, groups int) string {
	switch {
	case o.ReplayMode == contract.ModeKernel:
		return contract.ModeKernel
	case o.ReplayMode == contract.ModeApplication, groups > 1:
		return contract.ModeApplication
	default:
		return contract.ModeNone
	}
}

// checkFormats de-duplicates the formats (first mention wins the order) and rejects those gorocprof
// cannot write, naming each.
func checkFormats(in []string) ([]string, []string) {
	var out, diags []string
	for _, f := range in {
		f = strings.ToLower(f)
		switch {
		case slices.Contains(out, f):
		case writtenFormat[f]:
			out = append(out, f)
		case slices.Contains(knownFormats, f):
			diags = append(diags, fmt.Sprintf("--output-format %s is not supported yet (%s)", f, writesWhat))
		default:
			diags = append(diags, fmt.Sprintf("--output-format: unknown format %q (valid: %s)", f, validFormats))
		}
	}
	if len(out) == 0 && len(diags) == 0 {
		diags = append(diags, "--output-format: no format given (valid: "+validFormats+")")
	}
	return out, diags
}

// filterNameKind is the name flavour the kernel filters see: the one output displays (-M wins over
// -T, as output.KernelName has it), as rocprofv3 filters on the displayed name.
func filterNameKind(mangled, truncate bool) string {
	switch {
	case mangled:
		return "mangled"
	case truncate:
		return "truncated"
	}
	return "demangled"
}
