package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/stats"
	"github.com/spf13/pflag"
)

// rocprofv3's summary options; the input-file keys and GOROCPROF_* variables are these with '_'.
const (
	optSummary          = "summary"
	optSummaryPerDomain = "summary-per-domain"
	optSummaryGroups    = "summary-groups"
	optSummaryOutput    = "summary-output-file"
	optSummaryUnits     = "summary-units"
)

// SummaryOptions is what the summary flags say, before validation.
type SummaryOptions struct {
	Whole      bool     // -S/--summary
	PerDomain  bool     // -D/--summary-per-domain
	Groups     []string // --summary-groups: regular expressions over domain names
	OutputFile string   // --summary-output-file: stdout, stderr or a file name ("" for stderr)
	Units      string   // -u/--summary-units ("" for nsec)
}

// addSummaryFlags declares the summary flags as rocprofv3 spells them.
func addSummaryFlags(fs *pflag.FlagSet, o *SummaryOptions, optional func(*bool, string, string, string)) {
	optional(&o.Whole, optSummary, "S", "print a summary of the traced kernels once the run is over (with --kernel-trace)")
	optional(&o.PerDomain, optSummaryPerDomain, "D", "print a summary of each traced domain (with --kernel-trace)")
	fs.Var(regexListValue{&o.Groups}, optSummaryGroups, "print a summary of the domains each regular expression matches as a whole, e.g. 'KERNEL_DISPATCH|MEMORY_COPY'")
	_ = fs.SetAnnotation(optSummaryGroups, annotationNargs, []string{"true"})
	fs.StringVar(&o.OutputFile, optSummaryOutput, "", "where the summary goes: stderr (default), stdout, or NAME for <-o>_NAME.txt beside the other files")
	fs.VarP(choiceValue{&o.Units, stats.Units}, optSummaryUnits, "u", "time unit of the summary: sec, msec, usec or nsec (default \"nsec\")")
}

// resolveSummary fills the summary options not given on the command line from the lower layers.
func (r *resolver) resolveSummary(o *SummaryOptions) {
	r.boolean(optSummary, &o.Whole)
	r.boolean(optSummaryPerDomain, &o.PerDomain)
	if v, ok := r.lower(optSummaryGroups); ok {
		switch x := v.(type) {
		case string:
			o.Groups = strings.Fields(x)
		case []any:
			o.Groups = nil
			for _, e := range x {
				s, isString := e.(string)
				if !isString {
					r.bad(optSummaryGroups, "expected a list of regular expressions, found %s", describeValue(e))
					return
				}
				o.Groups = append(o.Groups, s)
			}
		default:
			r.bad(optSummaryGroups, "expected a regular expression or a list of them, got %s", describeValue(v))
		}
	}
	r.str(optSummaryOutput, &o.OutputFile)
	r.str(optSummaryUnits, &o.Units)
}

// checkSummary returns what is wrong with the summary options: rocprofv3 summarises traced
// domains, so each needs a trace; the units, the regular expressions and the file name are
// checked as the output names are, before launch, with the rank variables -o is expanded with.
func checkSummary(o ProfileOptions, rankVars output.RankVariables) []string {
	s := o.Summary
	var diags []string
	add := func(format string, args ...any) { diags = append(diags, fmt.Sprintf(format, args...)) }
	if !traces(o) {
		for _, given := range []struct {
			name string
			set  bool
		}{{optSummary, s.Whole}, {optSummaryPerDomain, s.PerDomain}, {optSummaryGroups, len(s.Groups) > 0},
			{optSummaryOutput, s.OutputFile != ""}, {optSummaryUnits, s.Units != ""}} {
			if given.set {
				add("--%s summarises traced domains: add --kernel-trace or another tracing flag", given.name)
			}
		}
	}
	diags = append(diags, checkSummaryValues(s)...)
	if msg := checkSummaryFile(o, rankVars); msg != "" {
		add("--%s %q: %s", optSummaryOutput, s.OutputFile, msg)
	}
	return diags
}

// checkSummaryValues returns what is wrong with the summary's units and regular expressions.
func checkSummaryValues(s SummaryOptions) []string {
	var diags []string
	if s.Units != "" {
		if err := checkChoice(s.Units, stats.Units); err != nil {
			diags = append(diags, fmt.Sprintf("--%s: %v", optSummaryUnits, err))
		}
	}
	for _, expr := range s.Groups {
		if _, err := stats.GroupRegexp(expr); err != nil {
			diags = append(diags, fmt.Sprintf("--%s %q: %v", optSummaryGroups, expr, err))
		}
	}
	return diags
}

// summaryToTerminal says whether --summary-output-file names the terminal: stdout or stderr in
// any case, as rocprofv3 reads them, or nothing.
func summaryToTerminal(file string) bool {
	switch strings.ToLower(file) {
	case "", "stdout", "stderr":
		return true
	}
	return false
}

// checkSummaryFile: a summary file is <-o>_NAME.txt beside the other files, so NAME is one file
// name once its placeholders are expanded (at their widest, as -o's are).
func checkSummaryFile(o ProfileOptions, rankVars output.RankVariables) string {
	name := o.Summary.OutputFile
	if summaryToTerminal(name) {
		return ""
	}
	vars := output.SampleVars(o.App, o.Args, os.Getenv, rankVars)
	expanded, err := output.ExpandPath(name, vars)
	if err != nil {
		return err.Error()
	}
	if strings.ContainsRune(expanded, '/') {
		return "expected stdout, stderr or a file name (written as <-o>_NAME.txt beside the other output files), not a path"
	}
	prefix, err := output.ExpandPath(o.OutputFile, vars)
	if err != nil {
		return "" // -o's own diagnostic says why
	}
	return summaryFileProblem(expanded, prefix)
}

// summaryFileProblem: the summary file <prefix>_NAME.txt is one file beside the others.
func summaryFileProblem(name, prefix string) string {
	if strings.ContainsRune(name, '/') {
		return "expected stdout, stderr or a file name (written as <-o>_NAME.txt beside the other output files), not a path"
	}
	if full := filepath.Base(prefix) + "_" + name + ".txt"; len(full) > 255 {
		return fmt.Sprintf("the summary file %s would be %d bytes long, over the 255 a file name may have", full, len(full))
	}
	return ""
}

// summaryRequest is the summary part of the request: nil when no table is asked for.
func summaryRequest(s SummaryOptions) *stats.SummaryOptions {
	opts := stats.SummaryOptions{Whole: s.Whole, PerDomain: s.PerDomain, Groups: s.Groups, Units: s.Units}
	if !opts.Wanted() {
		return nil
	}
	return &opts
}

// checkSummaryGroups checks GOROCPROF_SUMMARY_GROUPS: regular expressions separated by spaces.
func checkSummaryGroups(s string) error {
	for _, expr := range strings.Fields(s) {
		if _, err := stats.GroupRegexp(expr); err != nil {
			return fmt.Errorf("%q: %w", expr, err)
		}
	}
	return nil
}

// regexListValue collects regular expressions given as several words or repeated flags.
type regexListValue struct{ p *[]string }

func (v regexListValue) Set(s string) error {
	words := strings.Fields(s)
	if len(words) == 0 {
		return fmt.Errorf("expected one or more regular expressions")
	}
	*v.p = append(*v.p, words...)
	return nil
}

func (v regexListValue) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, " ")
}

func (v regexListValue) Type() string { return "regexes" }
