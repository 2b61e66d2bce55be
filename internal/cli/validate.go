package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// The diagnostics rocprofv3 gives for kernel replay, in its words, so that scripts and users who
// know one tool recognise them in the other.
const (
	diagKernelNeedsBeta     = "--replay-mode kernel requires acknowledgement that kernel replay is a beta feature via --kernel-replay-beta-enabled"
	diagKernelNeedsCounters = "--replay-mode kernel requires counter collection (--pmc, input-file pmc, or pmc_groups)"
	diagKernelConflictFmt   = "--replay-mode kernel cannot be combined with %s. Kernel replay only varies counter groups from one pass to the next; every other service stays on for all of the passes and would report each kernel once per pass. Collect them in a separate run."
)

// Validate checks one options struct before anything is launched or created and turns it into the
// request the replay package runs. It returns every diagnostic at once, as a *ValidationError.
func Validate(o ProfileOptions) (replay.Request, error) {
	var diags []string
	add := func(format string, args ...any) { diags = append(diags, fmt.Sprintf(format, args...)) }

	kernelMode := o.ReplayMode == contract.ModeKernel
	if o.ReplayMode != "" {
		if err := checkChoice(o.ReplayMode, replayModes); err != nil {
			add("--replay-mode: %v", err)
		}
	}

	groups, groupsErr := counters.ParseGroups(o.PMC)
	if groupsErr != nil {
		add("%v", groupsErr)
	}
	// A failed parse has been reported already; do not also claim that no counters were asked for.
	hasCounters := len(groups) > 0 || groupsErr != nil

	if kernelMode {
		if !o.KernelReplayBeta {
			add(diagKernelNeedsBeta)
		}
		if !hasCounters {
			add(diagKernelNeedsCounters)
		}
		if c := conflicts(o); len(c) > 0 {
			add(diagKernelConflictFmt, strings.Join(c, " or "))
		}
	} else {
		if o.ATT {
			add("--att is not supported by gorocprof yet")
		}
		if o.PCSampling {
			add("PC sampling (--pc-sampling-*) is not supported by gorocprof yet")
		}
		if o.SPM {
			add("--spm is not supported by gorocprof yet")
		}
	}

	formats, fdiags := checkFormats(o.OutputFormats)
	diags = append(diags, fdiags...)
	for _, re := range []struct{ flag, expr string }{
		{"--" + optIncludeRegex, o.IncludeRegex},
		{"--" + optExcludeRegex, o.ExcludeRegex},
	} {
		if _, err := regexp.Compile(re.expr); err != nil {
			add("%s %q: %v", re.flag, re.expr, err)
		}
	}
	ranges, err := ParseIterationRange(o.IterationRange)
	if err != nil {
		add("--%s %q: %v", optIterationRange, o.IterationRange, err)
	}
	if err := checkChoice(o.LogLevel, logLevels); err != nil {
		add("--log-level: %v", err)
	}
	if err := checkChoice(o.CacheControl, cacheControls); err != nil {
		add("--cache-control: %v", err)
	}
	if !slices.Contains(backends, o.Backend) {
		add("--backend: unknown backend %q (valid: %s)", o.Backend, strings.Join(backends, ", "))
	}
	if o.OutputDirectory == "" {
		add("--output-directory must not be empty")
	}
	if o.OutputFile == "" {
		add("--output-file must not be empty")
	}

	if len(diags) > 0 {
		if o.Source != "" {
			for i := range diags {
				diags[i] = o.Source + ": " + diags[i]
			}
		}
		return replay.Request{}, &ValidationError{Diagnostics: diags}
	}

	nameKind := "demangled"
	if o.Truncate {
		nameKind = "truncated"
	}
	return replay.Request{
		Backend:     o.Backend,
		Groups:      groups,
		Mode:        replayMode(o, len(groups)),
		KernelTrace: o.KernelTrace,
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
		Quiet:           o.Quiet,
		LogLevel:        o.LogLevel,
		CacheControl:    o.CacheControl,
		DryRun:          o.DryRun,
		AllowDivergence: o.AllowDivergence,
		App:             o.App,
		Args:            o.Args,
	}, nil
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
			diags = append(diags, fmt.Sprintf("--output-format %s is not supported yet (gorocprof writes csv and json)", f))
		default:
			diags = append(diags, fmt.Sprintf("--output-format: unknown format %q (valid: csv, json)", f))
		}
	}
	if len(out) == 0 && len(diags) == 0 {
		diags = append(diags, "--output-format: no format given (valid: csv, json)")
	}
	return out, diags
}
