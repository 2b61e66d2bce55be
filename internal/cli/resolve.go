package cli

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gorocprof/gorocprof/internal/backend"
	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/gorocprof/gorocprof/internal/stats"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// envPrefix: GOROCPROF_OUTPUT_DIRECTORY sets --output-directory, and so on. GOROCPROF_PMC holds
// groups separated by ';' ("SQ_WAVES SQ_INSTS_VALU;SQ_INSTS_SALU" is two groups).
const envPrefix = "GOROCPROF"

// resolveJob layers one input-file job under the environment and the command line: a flag the user
// gave wins, then GOROCPROF_*, then the job, then the defaults. flagOpts holds what the flags parsed
// into; the flags that were not given are filled from the lower layers. Every value that cannot be
// read is a diagnostic; all of them are returned together.
func resolveJob(flags *pflag.FlagSet, flagOpts ProfileOptions, job Job) (ProfileOptions, []string) {
	v := viper.New()
	v.SetEnvPrefix(envPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	v.SetDefault(optOutputDir, defaultOutputDir)
	v.SetDefault(optOutputFile, defaultOutputFile)
	v.SetDefault(optOutputFormat, strings.Join(defaultFormats, " "))
	v.SetDefault(optLogLevel, defaultLogLevel)
	v.SetDefault(optBackend, defaultBackend)
	v.SetDefault(optCacheControl, defaultCacheControl)
	v.SetDefault(optGraphProfiling, defaultGraphProfiling)
	v.SetDefault(optROCmRoot, backend.DefaultROCmRoot())
	if err := v.MergeConfigMap(job.Values); err != nil {
		return flagOpts, []string{fmt.Sprintf("%s: %v", job.Source, err)}
	}
	r := &resolver{flags: flags, v: v, job: job}
	o := flagOpts
	o.Source = job.Source

	r.groups(&o.PMC)
	r.rotation(&o.PMCGroups, &o.GroupInterval)
	r.str(optExtraCounters, &o.ExtraCounters)
	r.str(optReplayMode, &o.ReplayMode)
	r.boolean(optReplayBeta, &o.KernelReplayBeta)
	r.boolean(optKernelTrace, &o.KernelTrace)
	r.tracing(&o)
	r.boolean(optStats, &o.Stats)
	r.resolveSummary(&o.Summary)
	r.str(optOutputDir, &o.OutputDirectory)
	r.str(optOutputFile, &o.OutputFile)
	r.list(optOutputFormat, &o.OutputFormats)
	r.str(optIncludeRegex, &o.IncludeRegex)
	r.str(optExcludeRegex, &o.ExcludeRegex)
	r.str(optIterationRange, &o.IterationRange)
	r.boolean(optTruncate, &o.Truncate)
	r.boolean(optMangled, &o.Mangled)
	r.str(optAgentIndex, &o.AgentIndex)
	r.str(optLogLevel, &o.LogLevel)
	r.str(optBackend, &o.Backend)
	r.str(optROCmRoot, &o.ROCmRoot)
	r.str(optCacheControl, &o.CacheControl)
	r.str(optGraphProfiling, &o.GraphProfiling)
	r.boolean(optQuiet, &o.Quiet)
	r.boolean(optDryRun, &o.DryRun)
	r.boolean(optAllowDiverge, &o.AllowDivergence)
	r.str(optMPIRanks, &o.ProfileMPIRanks)
	r.str(optMPIRankVar, &o.MPIRankVariable)
	r.str(optMPISizeVar, &o.MPISizeVariable)
	r.boolean(optATT, &o.ATT)
	r.boolean(optSPM, &o.SPM)
	var pcBeta bool
	var pcUnit, pcMethod, pcInterval string
	r.boolean(optPCBeta, &pcBeta)
	r.str(optPCUnit, &pcUnit)
	r.str(optPCMethod, &pcMethod)
	r.str(optPCInterval, &pcInterval)
	o.PCSampling = o.PCSampling || pcBeta || pcUnit != "" || pcMethod != "" || pcInterval != "" ||
		flags.Changed(optPCUnit) || flags.Changed(optPCMethod) || flags.Changed(optPCInterval)
	return o, r.diags
}

type resolver struct {
	flags *pflag.FlagSet
	v     *viper.Viper
	job   Job
	diags []string
}

// lower returns the value from below the command line, or false when the flag was given (its value
// is already in place) or nothing below sets the option.
func (r *resolver) lower(name string) (any, bool) {
	if f := r.flags.Lookup(name); f != nil && f.Changed {
		return nil, false
	}
	if !r.v.IsSet(name) {
		return nil, false
	}
	return r.v.Get(name), true
}

// where names the layer a value came from, for diagnostics.
func (r *resolver) where(name string) string {
	env := envName(name)
	if os.Getenv(env) != "" {
		return "environment variable " + env
	}
	if _, ok := r.job.Values[name]; ok {
		return fmt.Sprintf("%s, key %q", r.job.Source, strings.ReplaceAll(name, "-", "_"))
	}
	return "default of --" + name
}

func (r *resolver) bad(name, format string, args ...any) {
	r.diags = append(r.diags, fmt.Sprintf("%s: %s", r.where(name), fmt.Sprintf(format, args...)))
}

func (r *resolver) str(name string, dst *string) {
	v, ok := r.lower(name)
	if !ok {
		return
	}
	switch x := v.(type) {
	case string:
		*dst = x
	case fmt.Stringer: // json.Number
		*dst = x.String()
	case int, int64, float64:
		*dst = fmt.Sprint(x)
	default:
		r.bad(name, "expected a string, got %s", describeValue(v))
	}
}

func (r *resolver) boolean(name string, dst *bool) {
	v, ok := r.lower(name)
	if !ok {
		return
	}
	switch x := v.(type) {
	case bool:
		*dst = x
	case string:
		b, err := parseBoolWord(x)
		if err != nil {
			r.bad(name, "%v", err)
			return
		}
		*dst = b
	default:
		r.bad(name, "expected true or false, got %s", describeValue(v))
	}
}

// list reads several words: a string of words separated by spaces or commas, or a list of them.
func (r *resolver) list(name string, dst *[]string) {
	v, ok := r.lower(name)
	if !ok {
		return
	}
	words, err := wordsOf(v)
	if err != nil {
		r.bad(name, "%v", err)
		return
	}
	*dst = words
}

// groups reads the counter groups: GOROCPROF_PMC separates groups with ';'; an input-file job's
// `pmc` is one group.
func (r *resolver) groups(dst *[]string) {
	if f := r.flags.Lookup(optPMC); f != nil && f.Changed {
		return
	}
	var out []string
	if v, ok := r.lower(optPMC); ok {
		switch x := v.(type) {
		case string:
			if r.where(optPMC) == "environment variable "+envPrefix+"_PMC" {
				out = append(out, strings.Split(x, ";")...)
			} else {
				out = append(out, x)
			}
		default:
			words, err := wordsOf(v)
			if err != nil {
				r.bad(optPMC, "%v", err)
				return
			}
			out = append(out, strings.Join(words, " "))
		}
	}
	if out != nil {
		*dst = out
	}
}

// rotation reads an input-file job's pmc_groups (a list of groups, each a list of counters or one
// string of them) and pmc_group_interval (a positive integer).
func (r *resolver) rotation(groups *[]string, interval *int) {
	if v, ok := r.job.Values[optPMCGroups]; ok {
		list, isList := v.([]any)
		if !isList {
			r.bad(optPMCGroups, "expected a list of counter lists, got %s", describeValue(v))
		}
		for _, g := range list {
			words, err := wordsOf(g)
			if err != nil {
				r.bad(optPMCGroups, "%v", err)
				return
			}
			*groups = append(*groups, strings.Join(words, " "))
		}
	}
	if v, ok := r.job.Values[optGroupInterval]; ok {
		n, err := strconv.ParseInt(fmt.Sprint(v), 10, 64)
		if err != nil || n < 1 || n > math.MaxInt32 {
			r.bad(optGroupInterval, "expected a positive integer (dispatches per group), got %s", describeValue(v))
			return
		}
		*interval = int(n)
	}
}

func wordsOf(v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		return splitWords(x), nil
	case []string:
		var out []string
		for _, s := range x {
			out = append(out, splitWords(s)...)
		}
		return out, nil
	case []any:
		var out []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("expected a list of names, found %s", describeValue(e))
			}
			out = append(out, splitWords(s)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a name or a list of names, got %s", describeValue(v))
}

// describeValue shows an input-file value in a message: a scalar as written, an object or a list
// by its kind (Go would print map[...] or [...]).
func describeValue(v any) string {
	switch x := v.(type) {
	case nil, map[string]any, []any:
		return kindOf(v)
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}

// envCheck reads a GOROCPROF_* value the way its flag would, so that a bad one is reported with the
// variable's name before anything runs, instead of as if a flag had been mistyped.
type envCheck func(value string) error

var envChecks = map[string]envCheck{
	optBackend:        func(s string) error { return checkChoice(s, backends) },
	optReplayMode:     func(s string) error { return checkChoice(s, replayModes) },
	optLogLevel:       func(s string) error { return checkChoice(s, logLevels) },
	optAgentIndex:     func(s string) error { return checkChoice(s, agentIndexes) },
	optOutputFormat:   checkEnvFormats,
	optIncludeRegex:   checkRegex,
	optExcludeRegex:   checkRegex,
	optIterationRange: func(s string) error { _, err := ParseIterationRange(s); return err },
	optPMC:            checkEnvGroups,
	optInput:          checkInputName,
	optSummaryUnits:   func(s string) error { return checkChoice(s, stats.Units) },
	optSummaryGroups:  checkSummaryGroups,
	optMPIRanks:       func(s string) error { _, err := parseRankList(s); return err },
}

// envReadBy lists, for the subcommands, the variables each reads; the profiling command (the root)
// reads one for every flag it has.
var envReadBy = map[string][]string{
	"avail":   {optBackend, optROCmRoot},
	"plan":    {optBackend, optROCmRoot, optPMC},
	"compare": {optBackend, optROCmRoot, optPMC},
}

// checkEnvironment is the root's PersistentPreRunE: it checks every GOROCPROF_* variable the
// running command reads and that no flag overrides, and returns all the bad ones at once.
func checkEnvironment(cmd *cobra.Command, _ []string) error {
	warnMisspeltEnv(cmd)
	reads := func(string) bool { return true }
	if cmd != cmd.Root() {
		names, ok := envReadBy[cmd.Name()]
		if !ok || cmd.Parent() != cmd.Root() {
			return nil // version, help, completion: nothing to check
		}
		reads = func(name string) bool { return slices.Contains(names, name) }
	}
	var diags []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		env := envName(f.Name)
		value := os.Getenv(env)
		if f.Changed || value == "" || !reads(f.Name) {
			return
		}
		check := envChecks[f.Name]
		_, isBool := f.Value.(optBool)
		if _, isTrace := f.Value.(traceFlag); isBool || isTrace {
			check = func(s string) error { _, err := parseBoolWord(s); return err }
		}
		if check == nil {
			return
		}
		if err := check(value); err != nil {
			diags = append(diags, fmt.Sprintf("environment variable %s: %v", env, err))
		}
	})
	if len(diags) > 0 {
		return &ValidationError{Diagnostics: diags}
	}
	return nil
}

func checkRegex(s string) error {
	_, err := regexp.Compile(s)
	return err
}

// checkEnvFormats accepts the formats gorocprof writes, separated by spaces or commas.
func checkEnvFormats(s string) error {
	words := splitWords(s)
	if len(words) == 0 {
		return errors.New("no output format given (valid: " + validFormats + ")")
	}
	for _, w := range words {
		switch w = strings.ToLower(w); {
		case writtenFormat[w]:
		case slices.Contains(knownFormats, w):
			return fmt.Errorf("output format %s is not supported yet (%s)", w, writesWhat)
		default:
			return fmt.Errorf("unknown output format %q (valid: %s)", w, validFormats)
		}
	}
	return nil
}

// checkEnvGroups checks GOROCPROF_PMC: counter groups separated by ';', numbered in messages as
// they stand in the variable.
func checkEnvGroups(s string) error {
	groups := strings.Split(s, ";")
	for i, g := range groups {
		if len(splitWords(g)) == 0 {
			return fmt.Errorf("group %d of %d is empty (groups are separated by ';' and each needs at least one counter)", i+1, len(groups))
		}
		if _, err := counters.ParseGroups([]string{g}); err != nil {
			if inner := errors.Unwrap(err); inner != nil {
				err = inner // drop ParseGroups' "--pmc flag 1:", which names no flag here
			}
			return fmt.Errorf("group %d: %w", i+1, err)
		}
	}
	return nil
}

// warnMisspeltEnv warns of a GOROCPROF_* variable that no command reads but that is a near miss of
// one a flag has (GOROCPROF_OUTPUT_DIRECOTRY): set, it would be ignored without a word. Variables
// far from every flag's are left alone, as other parts of gorocprof read some (GOROCPROF_LIB_DIR).
func warnMisspeltEnv(cmd *cobra.Command) {
	known := map[string]bool{}
	var names []string
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if n := envName(f.Name); !known[n] {
					known[n] = true
					names = append(names, n)
				}
			})
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(cmd.Root())
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix+"_") || known[name] {
			continue
		}
		best, bestD := "", 3
		for _, n := range names {
			if d := editDistance(name, n); d < bestD {
				best, bestD = n, d
			}
		}
		if best != "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "gorocprof: warning: environment variable %s is not one gorocprof reads (did you mean %s?)\n", name, best)
		}
	}
}
