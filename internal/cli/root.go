// Package cli is gorocprof's command line: cobra commands, the layering of flags, GOROCPROF_*
// environment, input files and defaults into one options struct per command, and its validation
// before anything is launched.
package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/launch"
	"github.com/gorocprof/gorocprof/internal/replay"
	"github.com/gorocprof/gorocprof/internal/stats"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	// Refuses an open-file limit too low for a run before the packages that need descriptors
	// initialise (fdlimit says why there).
	_ "github.com/gorocprof/gorocprof/internal/fdlimit"
)

// version is set at link time: -X github.com/gorocprof/gorocprof/internal/cli.version=...
var version = "dev"

const rootLong = `gorocprof runs an application with a GPU profiling tool injected and writes
hardware counters and kernel traces in rocprofv3's layout (results.json, CSV).

Everything after "--" is the application and its arguments.

Settings come from, in order of precedence: command-line flags, GOROCPROF_* environment
variables (GOROCPROF_OUTPUT_DIRECTORY for --output-directory, GOROCPROF_PMC with groups
separated by ';', ...), the -i input file's job, and the defaults.`

const rootExample = `  gorocprof --pmc SQ_WAVES SQ_INSTS_VALU --pmc SQ_WAVES SQ_INSTS_SALU \
      --replay-mode kernel --kernel-replay-beta-enabled -d out -- ./app
  gorocprof --kernel-trace -f csv -- ./app -n 10
  gorocprof avail --agent 0`

// Execute runs gorocprof's command line with args (without the program name).
func Execute(ctx context.Context, root *cobra.Command, args []string) error {
	addCompletionErrors(root)
	normalized, err := normalizeArgs(root, args)
	if err != nil {
		return err
	}
	root.SetArgs(normalized)
	return root.ExecuteContext(ctx)
}

// NewRootCmd builds the profiling command with its subcommands.
func NewRootCmd(f *Factory) *cobra.Command {
	opts := &ProfileOptions{}
	var input string
	var listAvail, failFast bool

	cmd := &cobra.Command{
		Use:           "gorocprof [flags] -- <app> [args...]",
		Short:         "Profile GPU kernels with counter collection and kernel replay",
		Long:          rootLong,
		Example:       rootExample,
		Version:       version,
		Args:          cobra.ArbitraryArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		// A first word this close to a subcommand's name is a mistyped subcommand (runProfile).
		SuggestionsMinimumDistance: 2,
		RunE: func(cmd *cobra.Command, args []string) error {
			if listAvail {
				// The words after -L are patterns, as avail's (`-L SQ_WAVES`).
				return runAvail(cmd.Context(), f, &AvailOptions{Backend: backendSetting(cmd.Flags()), ROCmRoot: rocmRootSetting(cmd.Flags()),
					ExtraCounters: extraSetting(cmd.Flags()), Patterns: args})
			}
			if len(args) == 0 && cmd.Flags().NFlag() == 0 {
				return cmd.Help()
			}
			if len(args) > 0 {
				opts.App, opts.Args = args[0], args[1:]
			}
			ff, err := failFastSetting(cmd.Flags(), failFast)
			if err != nil {
				return err
			}
			err = runProfile(cmd.Context(), f, cmd.Flags(), *opts, inputSetting(cmd.Flags(), input), ff, cmd.SuggestionsFor)
			return withMisplaced(err, misplacedFlags(flagsOf(cmd), opts.App, opts.Args, cmd.ArgsLenAtDash() >= 0))
		},
	}
	// The template's text is fixed when the command is built: versionText reads nothing that changes.
	cmd.SetVersionTemplate(strings.ReplaceAll(versionText(), "{{", "{{`{{`}}"))
	cmd.SetOut(f.IO.Out)
	cmd.SetErr(f.IO.ErrOut)
	cmd.SetIn(f.IO.In)
	cmd.SetFlagErrorFunc(flagError)
	cmd.PersistentPreRunE = checkEnvironment

	addProfileFlags(cmd, opts, &input, &listAvail)
	_ = cmd.RegisterFlagCompletionFunc(optPMC, counterCompletion(f))
	optFlag := cmd.Flags().VarPF(optBool{&failFast}, optFailFast, "", "in a sweep (-i with several jobs), stop at the first job that fails")
	optFlag.NoOptDefVal = "true"
	cmd.Flags().SetInterspersed(false)

	cmd.AddCommand(newAvailCmd(f), newPlanCmd(f), newCompareCmd(f), newProcessCmd(f), newMergeCmd(f), newVersionCmd(f))
	return cmd
}

func addProfileFlags(cmd *cobra.Command, o *ProfileOptions, input *string, listAvail *bool) {
	fs := cmd.Flags()
	nargs := func(name string) {
		_ = fs.SetAnnotation(name, annotationNargs, []string{"true"})
	}
	optional := func(p *bool, name, short, usage string) {
		fl := fs.VarPF(optBool{p}, name, short, usage)
		fl.NoOptDefVal = "true"
	}

	fs.Var(groupsValue{&o.PMC}, optPMC, "counters to collect, one group per --pmc (\"--pmc A B --pmc C\" is two groups)")
	nargs(optPMC)
	fs.StringVarP(&o.ExtraCounters, optExtraCounters, "E", "", "YAML file of extra derived counters (rocprofv3's counter definition format), usable in --pmc")
	fs.Var(choiceValue{&o.ReplayMode, replayModes}, optReplayMode, "how several counter groups are collected: kernel or application")
	optional(&o.KernelReplayBeta, optReplayBeta, "", "acknowledge that kernel replay is a beta feature")
	optional(&o.KernelTrace, optKernelTrace, "", "trace every kernel dispatch")
	addTraceFlags(fs, &o.Trace)
	optional(&o.Stats, optStats, "", "write the statistics of the traced domains (kernel_stats.csv, domain_stats.csv, ...; with a trace)")
	addSummaryFlags(fs, &o.Summary, optional)
	fs.StringVarP(&o.OutputDirectory, optOutputDir, "d", defaultOutputDir, "directory for the output files")
	fs.StringVarP(&o.OutputFile, optOutputFile, "o", defaultOutputFile, "output file name prefix; placeholders such as %hostname% %pid% %ppid% %rank% %env{NAME}%")
	addFormatsFlag(fs, &o.OutputFormats, "output formats: csv, json, pftrace, rocpd (default \"json csv\")")
	fs.StringVar(&o.IncludeRegex, optIncludeRegex, "", "profile only kernels whose name matches this regular expression")
	fs.StringVar(&o.ExcludeRegex, optExcludeRegex, "", "skip kernels whose name matches this regular expression (applied after include)")
	fs.StringVar(&o.IterationRange, optIterationRange, "", "iterations of each kernel (on each agent, as rocprofv3) to profile, counted from 1, e.g. \"[1, 3, [5-8]]\"")
	optional(&o.Truncate, optTruncate, "T", "truncate kernel names (drop template and argument lists)")
	optional(&o.Mangled, optMangled, "M", "keep kernel names mangled")
	fs.VarP(choiceValue{&o.AgentIndex, agentIndexes}, optAgentIndex, "A", "how the CSV files and the trace number agents: absolute (node id), relative (logical node id) or type-relative (GPU 0, GPU 1) (default \"relative\")")
	fs.Var(choiceValue{&o.LogLevel, logLevels}, optLogLevel, "what the tool prints: error, warning, info or trace (default \"warning\")")
	fs.Var(choiceValue{&o.CacheControl, cacheControls}, optCacheControl, "CUDA: flush the L2 before every replay pass, as ncu does (all), or not (none) (default \"all\")")
	fs.Var(choiceValue{&o.GraphProfiling, graphModes}, optGraphProfiling, "CUDA: profile each kernel node of a graph launch as a dispatch (node), or each graph launch as one (graph) (default \"node\")")
	fs.StringVarP(input, optInput, "i", "", "input file: .json or .yaml {\"jobs\": [...]}, or .txt with \"pmc:\" lines; each job is one run")
	optional(&o.Quiet, optQuiet, "", "do not print the counter summary table (-S is rocprofv3's summary, apart from it)")
	optional(&o.DryRun, optDryRun, "", "plan and print the passes, launch nothing")
	optional(&o.AllowDivergence, optAllowDiverge, "", "application replay: accept a merged result although the runs dispatched different kernels (the divergences are still reported)")
	fs.StringVar(&o.ProfileMPIRanks, optMPIRanks, "", "MPI: profile only these ranks (\"0-3,8\"); the others run the application without the tool and write nothing")
	fs.StringVar(&o.MPIRankVariable, optMPIRankVar, "", "MPI: the environment variable holding this process's rank (with --"+optMPISizeVar+")")
	fs.StringVar(&o.MPISizeVariable, optMPISizeVar, "", "MPI: the environment variable holding the number of ranks (with --"+optMPIRankVar+")")
	fs.BoolVarP(listAvail, optListAvail, "L", false, "list the agents and their counters (same as the avail command; words after it are avail's patterns)")

	// Recognised but not implemented: here only so that their combination with kernel replay gets
	// rocprofv3's diagnostic.
	optional(&o.ATT, optATT, "", "advanced thread trace (not supported yet)")
	optional(&o.SPM, optSPM, "", "streaming performance monitor (not supported yet)")
	optional(&o.PCSampling, optPCBeta, "", "PC sampling (not supported yet)")
	var pcUnit, pcMethod, pcInterval string
	fs.StringVar(&pcUnit, optPCUnit, "", "PC sampling unit (not supported yet)")
	fs.StringVar(&pcMethod, optPCMethod, "", "PC sampling method (not supported yet)")
	fs.StringVar(&pcInterval, optPCInterval, "", "PC sampling interval (not supported yet)")
	for _, name := range []string{optATT, optSPM, optPCBeta, optPCUnit, optPCMethod, optPCInterval} {
		_ = fs.MarkHidden(name)
	}

	// --backend is shared with avail and plan.
	cmd.PersistentFlags().Var(choiceValue{&o.Backend, backends}, optBackend, "backend: auto, sim, cuda or rocm (default \"auto\")")
	cmd.PersistentFlags().StringVar(&o.ROCmRoot, optROCmRoot, "", "rocm: the ROCm installation whose rocprofiler-sdk profiles (default $ROCM_PATH, else /opt/rocm)")
	_ = cmd.MarkPersistentFlagDirname(optROCmRoot)

	for name, words := range map[string][]string{
		optBackend: backends, optReplayMode: replayModes, optLogLevel: logLevels, optOutputFormat: strings.Split(validFormats, ", "),
		optSummaryUnits: stats.Units,
	} {
		_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp))
	}
	_ = cmd.MarkFlagFilename(optInput, "json", "yaml", "yml", "txt")
	_ = cmd.MarkFlagFilename(optExtraCounters, "yaml", "yml")
	_ = cmd.MarkFlagDirname(optOutputDir)
}

// runProfile layers the settings of every job, validates them all, prepares them all (counters on
// the agents' catalogs, the application), then runs the jobs in order. Nothing is created or
// launched unless every job is valid. Several jobs are a sweep (sweep.go). subcommands suggests
// the subcommands a mistyped word may have meant.
func runProfile(ctx context.Context, f *Factory, flags *pflag.FlagSet, flagOpts ProfileOptions, input string, failFast bool, subcommands func(string) []string) error {
	if err := checkSubcommandTypo(flagOpts.App, subcommands); err != nil {
		return err
	}
	jobs := []Job{{}}
	if input != "" {
		var err error
		if jobs, err = readInputFile(input); err != nil {
			if !flags.Changed(optInput) {
				return fmt.Errorf("environment variable %s: %w", envName(optInput), err)
			}
			return err
		}
	}
	var diags []string
	usage := false
	reqs := make([]runJob, 0, len(jobs))
	for _, job := range jobs {
		o, rdiags := resolveJob(flags, flagOpts, job)
		for _, w := range outputPathWarnings(o) {
			fmt.Fprintf(f.IO.ErrOut, "gorocprof: warning: %s%s\n", sourcePrefix(o.Source), w)
		}
		if o.App == "" && !o.DryRun {
			if why := swallowedApp(o.PMC); why != "" {
				return usageErrorf("no application given after --: %s", why)
			}
			return usageErrorf("no application given after --")
		}
		diags = append(diags, rdiags...)
		req, err := Validate(o)
		var verr *ValidationError
		if errors.As(err, &verr) {
			diags = append(diags, verr.Diagnostics...)
			usage = usage || verr.Usage
			continue
		}
		reqs = append(reqs, runJob{source: job.Source, req: req})
	}
	if len(diags) > 0 {
		return &ValidationError{Diagnostics: diags, Usage: usage}
	}
	if f.Runner == nil {
		return errors.New("internal error: no runner wired into the command line")
	}
	if err := prepareJobs(ctx, f, reqs); err != nil {
		return err
	}
	if len(reqs) > 1 {
		return runSweep(ctx, f, reqs, failFast)
	}
	j := reqs[0]
	j.req.Stdout, j.req.Stderr = f.IO.Out, f.IO.ErrOut
	res, err := f.Runner(ctx, j.req)
	if err != nil && j.source != "" {
		err = fmt.Errorf("%s: %w", j.source, err)
	}
	if res.ExitCode != 0 || res.Signal != "" {
		// The app's own status wins over gorocprof's.
		return &AppExitError{Code: res.ExitCode, Signal: res.Signal, Err: err}
	}
	return err
}

// prepareJobs prepares every job before any runs, so that an unknown counter in the last job of a
// sweep stops it before the first is launched. An application that cannot be run is the same for
// every job and reported once; other problems are reported for each job that has them.
func prepareJobs(ctx context.Context, f *Factory, jobs []runJob) error {
	if f.Prepare == nil {
		return nil
	}
	var diags []string
	for i := range jobs {
		req, err := f.Prepare(ctx, jobs[i].req)
		switch {
		case err == nil:
			jobs[i].req = req
		case len(jobs) == 1 && jobs[i].source == "", errors.Is(err, launch.ErrApp):
			return err
		case jobs[i].source != "":
			diags = append(diags, fmt.Sprintf("%s: %v", jobs[i].source, err))
		default:
			diags = append(diags, err.Error())
		}
	}
	if len(diags) > 0 {
		return &ValidationError{Diagnostics: diags}
	}
	return nil
}

// checkSubcommandTypo: a first word that is no command of PATH but close to a subcommand's name
// was most likely meant as that subcommand (`gorocprof plna --pmc A`), a usage error, not an
// application to profile.
func checkSubcommandTypo(app string, subcommands func(string) []string) error {
	if app == "" || strings.ContainsRune(app, '/') || subcommands == nil {
		return nil
	}
	if _, err := exec.LookPath(app); err == nil {
		return nil
	}
	if s := subcommands(app); len(s) > 0 {
		return usageErrorf("application %q: not found, and gorocprof has no subcommand %q (did you mean %q?)", app, app, strings.Join(s, `" or "`))
	}
	return nil
}

type runJob struct {
	source string
	req    replay.Request
}

// inputSetting: -i wins over GOROCPROF_INPUT.
func inputSetting(flags *pflag.FlagSet, flagValue string) string {
	if flags.Changed(optInput) {
		return flagValue
	}
	return os.Getenv(envName(optInput))
}

// failFastSetting: --fail-fast wins over GOROCPROF_FAIL_FAST.
func failFastSetting(flags *pflag.FlagSet, flagValue bool) (bool, error) {
	env := os.Getenv(envName(optFailFast))
	if flags.Changed(optFailFast) || env == "" {
		return flagValue, nil
	}
	v, err := parseBoolWord(env)
	if err != nil {
		return false, &ValidationError{Diagnostics: []string{fmt.Sprintf("environment variable %s: %v", envName(optFailFast), err)}}
	}
	return v, nil
}

// rocmRootSetting: --rocm-root wins over GOROCPROF_ROCM_ROOT, then $ROCM_PATH, then /opt/rocm.
func rocmRootSetting(flags *pflag.FlagSet) string {
	if f := flags.Lookup(optROCmRoot); f != nil && f.Changed {
		return f.Value.String()
	}
	if v := os.Getenv(envName(optROCmRoot)); v != "" {
		return v
	}
	return backend.DefaultROCmRoot()
}

// backendSetting: --backend wins over GOROCPROF_BACKEND, then "auto".
func backendSetting(flags *pflag.FlagSet) string {
	if f := flags.Lookup(optBackend); f != nil && f.Changed {
		return f.Value.String()
	}
	if v := os.Getenv(envName(optBackend)); v != "" {
		return v
	}
	return defaultBackend
}

func envName(option string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(option, "-", "_"))
}

func sourcePrefix(source string) string {
	if source == "" {
		return ""
	}
	return source + ": "
}

// counterCompletion completes --pmc's words with the counter names of the backend's agents (the
// backend --backend names, else auto), every agent's once, in order; none when they cannot be listed.
func counterCompletion(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if f.AvailData == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		agents, err := f.AvailData(cmd.Context(), backend.Choice{Name: backendSetting(cmd.Flags()), ROCmRoot: rocmRootSetting(cmd.Flags())}, nil)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		// A group's earlier words are kept: `--pmc SQ_WAVES,SQ_IN<tab>`.
		prefix, word := "", toComplete
		if i := strings.LastIndexAny(toComplete, ", "); i >= 0 {
			prefix, word = toComplete[:i+1], toComplete[i+1:]
		}
		seen := map[string]bool{}
		var out []string
		for _, a := range agents {
			for _, c := range a.Counters {
				if !seen[c.Name] && strings.HasPrefix(strings.ToUpper(c.Name), strings.ToUpper(word)) {
					seen[c.Name] = true
					out = append(out, prefix+c.Name)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
