package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/replay"
)

// CompareOptions is the compare command: the same counters under kernel replay and under
// application replay.
type CompareOptions struct {
	PMC            []string
	RTol           float64 // read only when RTolSet; otherwise the defaults (exact for base counters, replay.DefaultDerivedRTol for derived ones)
	RTolSet        bool
	Output         string // JSON report file; empty for none
	IncludeRegex   string
	ExcludeRegex   string
	IterationRange string
	Truncate       bool
	Mangled        bool
	LogLevel       string
	Backend        string
	ROCmRoot       string
	App            string
	Args           []string
}

const compareLong = `compare runs the application twice: once under kernel replay (every --pmc group
collected in one run, each dispatch replayed once per pass) and once under application replay (the
application run once per pass, the runs merged). For every kernel and counter it prints the mean
over the kernel's dispatches in each mode, their difference and whether they agree, and the wall
time of each mode.

Values agree when |a - b| <= rtol * max(|a|, |b|) and both modes saw the same number of dispatches
of the kernel. Without --rtol, base counters (integer counts) must be equal and derived counters
agree within a relative 1e-6; --rtol sets one tolerance for every counter. Runs of the application
that dispatched different kernels count as differences too.

Exit status: 0 when everything agrees, 3 when something differs, the application's status when
it failed, 1 for any other error.`

func newCompareCmd(f *Factory) *cobra.Command {
	o := &CompareOptions{}
	cmd := &cobra.Command{
		Use:     "compare --pmc A B --pmc C [flags] -- <app> [args...]",
		Short:   "Compare kernel replay with application replay on the same application and counters",
		Long:    compareLong,
		Example: "  gorocprof compare --pmc SQ_WAVES SQ_INSTS_VALU --pmc SQ_INSTS_SALU -o compare.json -- ./app",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("compare: no application given after --")
			}
			o.App, o.Args = args[0], args[1:]
			o.Backend, o.ROCmRoot = backendSetting(cmd.Flags()), rocmRootSetting(cmd.Flags())
			o.RTolSet = cmd.Flags().Changed("rtol")
			if !cmd.Flags().Changed(optPMC) {
				if env := strings.TrimSpace(os.Getenv(envName(optPMC))); env != "" {
					o.PMC = strings.Split(env, ";")
				}
			}
			return runCompare(cmd.Context(), f, o)
		},
	}
	fs := cmd.Flags()
	fs.Var(groupsValue{&o.PMC}, optPMC, "counters to collect, one group per --pmc")
	_ = fs.SetAnnotation(optPMC, annotationNargs, []string{"true"})
	// 0 as the flag's default so that the help gives the defaults of the usage alone; RTolSet says whether it counts.
	fs.Float64Var(&o.RTol, "rtol", 0, "relative tolerance for every counter (default: exact for base counters, 1e-6 for derived counters)")
	fs.StringVarP(&o.Output, "output", "o", "", "also write the report as JSON to this file")
	fs.StringVar(&o.IncludeRegex, optIncludeRegex, "", "compare only kernels whose name matches this regular expression")
	fs.StringVar(&o.ExcludeRegex, optExcludeRegex, "", "skip kernels whose name matches this regular expression")
	fs.StringVar(&o.IterationRange, optIterationRange, "", "iterations of each kernel to profile, e.g. \"[1, 3, [5-8]]\"")
	fs.VarPF(optBool{&o.Truncate}, optTruncate, "T", "truncate kernel names").NoOptDefVal = "true"
	fs.VarPF(optBool{&o.Mangled}, optMangled, "M", "keep kernel names mangled").NoOptDefVal = "true"
	o.LogLevel = defaultLogLevel
	fs.Var(choiceValue{&o.LogLevel, logLevels}, optLogLevel, "what the tool prints: error, warning, info or trace")
	fs.SetInterspersed(false)
	return cmd
}

// validateCompare checks the options and returns every diagnostic at once.
func validateCompare(o *CompareOptions) (replay.CompareRequest, error) {
	var diags []string
	add := func(format string, args ...any) { diags = append(diags, fmt.Sprintf(format, args...)) }
	groups, err := counters.ParseGroups(o.PMC)
	if err != nil {
		add("%v", err)
	} else if len(groups) == 0 {
		add("compare needs counters: give at least one --pmc group")
	}
	if o.RTolSet && (o.RTol < 0 || math.IsNaN(o.RTol) || math.IsInf(o.RTol, 0)) {
		add("--rtol %v: want a finite number >= 0", o.RTol)
	}
	for _, re := range []struct{ flag, expr string }{{"--" + optIncludeRegex, o.IncludeRegex}, {"--" + optExcludeRegex, o.ExcludeRegex}} {
		if _, err := regexp.Compile(re.expr); err != nil {
			add("%s %q: %v", re.flag, re.expr, err)
		}
	}
	ranges, err := ParseIterationRange(o.IterationRange)
	if err != nil {
		add("--%s %q: %v", optIterationRange, o.IterationRange, err)
	}
	if !slices.Contains(backends, o.Backend) {
		add("--backend: unknown backend %q (valid: %s)", o.Backend, strings.Join(backends, ", "))
	}
	if o.Output != "" {
		// The report is written after both modes ran: a place it cannot go is found now.
		if err := output.CheckFile(o.Output); err != nil {
			add("-o %q: %v", o.Output, err)
		}
	}
	if len(diags) > 0 {
		return replay.CompareRequest{}, &ValidationError{Diagnostics: diags}
	}
	nameKind := filterNameKind(o.Mangled, o.Truncate)
	rtol := -1.0
	if o.RTolSet {
		rtol = o.RTol
	}
	return replay.CompareRequest{RTol: rtol, Request: replay.Request{
		Backend: o.Backend, ROCmRoot: o.ROCmRoot, Groups: groups,
		Filters: contract.Filters{IncludeRegex: o.IncludeRegex, ExcludeRegex: o.ExcludeRegex, NameKind: nameKind, IterationRanges: ranges},
		Mangled: o.Mangled, Truncate: o.Truncate, LogLevel: o.LogLevel, App: o.App, Args: o.Args,
	}}, nil
}

func runCompare(ctx context.Context, f *Factory, o *CompareOptions) error {
	req, err := validateCompare(o)
	if err != nil {
		return err
	}
	if f.Comparer == nil {
		return errors.New("internal error: no comparer wired into the command line")
	}
	req.Stdout, req.Stderr = f.IO.Out, f.IO.ErrOut
	rep, err := f.Comparer(ctx, req)
	if err != nil {
		for _, m := range []replay.ModeRun{rep.Kernel, rep.Application} {
			if m.ExitCode != 0 || m.Signal != "" {
				return &AppExitError{Code: m.ExitCode, Signal: m.Signal, Err: err}
			}
		}
		return err
	}
	if err := writeCompareTable(f.IO.Out, rep); err != nil {
		return err
	}
	if o.Output != "" {
		if err := writeCompareJSON(o.Output, rep); err != nil {
			return err
		}
	}
	if rep.Differences > 0 {
		return &DifferencesError{Count: rep.Differences, What: differenceSummary(rep)}
	}
	return nil
}

func writeCompareJSON(path string, rep replay.CompareReport) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the compare report: %w", err)
	}
	if err := output.WriteFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("writing the compare report: %w", err)
	}
	return nil
}

func writeCompareTable(w io.Writer, rep replay.CompareReport) error {
	fmt.Fprintln(w, "GOROCPROF COMPARE: kernel replay vs application replay")
	align := []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft}
	t := output.NewTable(w, align)
	t.Header([]string{"KERNEL", "AGENT", "COUNTER", "CALLS K/A", "KERNEL REPLAY", "APPLICATION REPLAY", "DIFFERENCE", "RTOL", "AGREE"})
	for _, r := range rep.Rows {
		verdict := "yes"
		if !r.Agree {
			verdict = "NO"
		}
		cells := []string{r.Kernel, strconv.FormatInt(r.AgentNumber, 10), r.Counter,
			fmt.Sprintf("%d/%d", r.KernelDispatches, r.ApplicationDispatches),
			formatValue(r.KernelValue), formatValue(r.ApplicationValue), formatValue(r.Difference),
			strconv.FormatFloat(r.RTol, 'g', -1, 64), verdict}
		if err := t.Append(cells); err != nil {
			return fmt.Errorf("writing the compare table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("writing the compare table: %w", err)
	}
	ratio := "-"
	if rep.WallRatio > 0 {
		ratio = strconv.FormatFloat(rep.WallRatio, 'f', 2, 64)
	}
	fmt.Fprintf(w, "wall time: kernel replay %.3fs, application replay %.3fs, ratio %s\n",
		rep.Kernel.WallSeconds, rep.Application.WallSeconds, ratio)
	if len(rep.Divergences) > 0 {
		fmt.Fprintln(w, "the application replay runs diverged:")
		replay.PrintDivergences(w, "  ", rep.Divergences)
	}
	fmt.Fprintln(w, differenceSummary(rep))
	return nil
}

// differenceSummary is the comparison's verdict as one sentence: the last line of the report and,
// when something differs, the error on stderr, so that both count the same things.
func differenceSummary(rep replay.CompareReport) string {
	disagree := rep.Differences - len(rep.Divergences)
	if rep.Differences == 0 {
		return fmt.Sprintf("all %d values agree", len(rep.Rows))
	}
	var parts []string
	if disagree > 0 {
		verb := "differ"
		if disagree == 1 {
			verb = "differs"
		}
		parts = append(parts, fmt.Sprintf("%d of %d values %s", disagree, len(rep.Rows), verb)+disagreementKinds(rep.Rows))
	}
	if n := len(rep.Divergences); n == 1 {
		parts = append(parts, "the application replay runs diverged in 1 way (listed above)")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("the application replay runs diverged in %d ways (listed above)", n))
	}
	return strings.Join(parts, "; ")
}

// disagreementKinds says why rows disagree, when not all for their values: the two modes measured
// a different number of calls (a nondeterministic application; the means may still agree), or one
// mode has no value. "" when every disagreeing row differs in its value alone.
func disagreementKinds(rows []replay.CompareRow) string {
	var values, calls, missing int
	for _, r := range rows {
		switch {
		case r.Agree:
		case r.KernelValue == nil || r.ApplicationValue == nil:
			missing++
		case r.KernelDispatches != r.ApplicationDispatches:
			calls++
		default:
			values++
		}
	}
	if calls == 0 && missing == 0 {
		return ""
	}
	var why []string
	if values > 0 {
		why = append(why, fmt.Sprintf("%d in value", values))
	}
	if calls > 0 {
		why = append(why, fmt.Sprintf("%d in the number of calls measured (CALLS K/A; the application ran differently)", calls))
	}
	if missing > 0 {
		why = append(why, fmt.Sprintf("%d measured in one mode only", missing))
	}
	return ": " + strings.Join(why, ", ")
}

// formatValue prints whole numbers as integers and others with six significant digits; "-" for
// a value a mode does not have.
func formatValue(v *float64) string {
	switch {
	case v == nil:
		return "-"
	case *v == math.Trunc(*v) && math.Abs(*v) < 1e15:
		return strconv.FormatInt(int64(*v), 10)
	}
	return strconv.FormatFloat(*v, 'g', 6, 64)
}
