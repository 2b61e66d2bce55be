package cli

import (
	"fmt"
	"os"
	"strings"

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
	if err := v.MergeConfigMap(job.Values); err != nil {
		return flagOpts, []string{fmt.Sprintf("%s: %v", job.Source, err)}
	}
	r := &resolver{flags: flags, v: v, job: job}
	o := flagOpts
	o.Source = job.Source

	r.groups(&o.PMC)
	r.str(optReplayMode, &o.ReplayMode)
	r.boolean(optReplayBeta, &o.KernelReplayBeta)
	r.boolean(optKernelTrace, &o.KernelTrace)
	r.str(optOutputDir, &o.OutputDirectory)
	r.str(optOutputFile, &o.OutputFile)
	r.list(optOutputFormat, &o.OutputFormats)
	r.str(optIncludeRegex, &o.IncludeRegex)
	r.str(optExcludeRegex, &o.ExcludeRegex)
	r.str(optIterationRange, &o.IterationRange)
	r.boolean(optTruncate, &o.Truncate)
	r.boolean(optMangled, &o.Mangled)
	r.str(optLogLevel, &o.LogLevel)
	r.str(optBackend, &o.Backend)
	r.str(optCacheControl, &o.CacheControl)
	r.boolean(optQuiet, &o.Quiet)
	r.boolean(optDryRun, &o.DryRun)
	r.boolean(optAllowDiverge, &o.AllowDivergence)
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
	env := envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
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
		r.bad(name, "expected a string, got %v", v)
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
		r.bad(name, "expected true or false, got %v", v)
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
// `pmc` is one group and its `pmc_groups` a list of groups, in that order.
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
	if v, ok := r.lower(optPMCGroups); ok {
		list, isList := v.([]any)
		if !isList {
			r.bad(optPMCGroups, "expected a list of counter lists, got %v", v)
			return
		}
		for _, g := range list {
			words, err := wordsOf(g)
			if err != nil {
				r.bad(optPMCGroups, "%v", err)
				return
			}
			out = append(out, strings.Join(words, " "))
		}
	}
	if out != nil {
		*dst = out
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
				return nil, fmt.Errorf("expected a list of names, found %v", e)
			}
			out = append(out, splitWords(s)...)
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a name or a list of names, got %v", v)
}
