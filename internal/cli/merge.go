package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/gorocprof/gorocprof/internal/merge"
	"github.com/gorocprof/gorocprof/internal/output"
	"github.com/gorocprof/gorocprof/internal/replay"
	"github.com/spf13/cobra"
)

// MergeOptions is the merge command: one result from the results of several processes.
type MergeOptions struct {
	Inputs     []string
	OutputDir  string
	OutputFile string
	Formats    []string
	Stats      bool
	Quiet      bool
	Truncate   bool
	Mangled    bool
	AgentIndex string
	Summary    SummaryOptions
}

// defaultMergeFile is merge's -o: one result, so no per-process placeholder.
const defaultMergeFile = "merged"

func newMergeCmd(f *Factory) *cobra.Command {
	opts := &MergeOptions{}
	cmd := &cobra.Command{
		Annotations: map[string]string{annotationInputs: "true"},
		Use:         "merge [-d DIR] [-o NAME] [-f FORMATS] [--stats] [-S] [-D] [--summary-groups RE...] [-u UNIT] INPUT...",
		Short:       "Write one result from the results of several processes (MPI ranks, runs, nodes)",
		Long: `merge writes one result with every process of its inputs: results.json files, rocpd databases
(*_results.db), or directories searched for *_results.json and *_results.db (a database beside the
results.json of its prefix is the same run, and is left out). results.json holds one element per
process; dispatch, correlation and kernel ids of later processes are shifted past those of earlier
ones, and an agent seen by several processes of one host is one agent (docs/record-format.md,
"Merged results"). Processes are ordered by host, start time and pid, so the same inputs in any
order give the same files. Inputs that are not results, one process given twice, and results with
and without the kernel trace are refused before anything is written. --stats and the summaries
(-S, -D, --summary-groups, --summary-output-file, -u, as in a run) cover every merged process and
need inputs with the kernel trace.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s needs its inputs: results.json files, rocpd databases or directories holding them", cmd.CommandPath())
			}
			return refuseBackendFlags(cmd, "merging reads results and plans nothing")
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			return runMerge(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&opts.OutputDir, optOutputDir, "d", ".", "directory for the merged files")
	fs.StringVarP(&opts.OutputFile, optOutputFile, "o", defaultMergeFile, "file name prefix of the merged files, below -d")
	addFormatsFlag(fs, &opts.Formats, "output formats: csv, json, pftrace, rocpd (default: json csv)")
	fs.BoolVar(&opts.Stats, optStats, false, "also write kernel_stats.csv and domain_stats.csv (inputs with the kernel trace)")
	fs.BoolVar(&opts.Quiet, optQuiet, false, "no summary table")
	optional := func(p *bool, name, short, usage string) {
		fs.VarPF(optBool{p}, name, short, usage).NoOptDefVal = "true"
	}
	optional(&opts.Truncate, optTruncate, "T", "truncate kernel names (drop template and argument lists)")
	optional(&opts.Mangled, optMangled, "M", "keep kernel names mangled")
	fs.VarP(choiceValue{&opts.AgentIndex, agentIndexes}, optAgentIndex, "A", "how the CSV files and the trace number agents: absolute, relative or type-relative, as in a run (default \"relative\")")
	addSummaryFlags(fs, &opts.Summary, optional)
	hideBackendFlags(cmd)
	return cmd
}

// checkMerge returns every diagnostic of the merge's own flags, and the formats to write.
func checkMerge(o *MergeOptions) ([]string, []string) {
	formats, diags := []string{"json", "csv"}, []string(nil)
	if o.Formats != nil {
		formats, diags = checkFormats(o.Formats)
	}
	for _, p := range []struct{ flag, value string }{{optOutputDir, o.OutputDir}, {optOutputFile, o.OutputFile}} {
		if strings.Contains(p.value, "%") {
			diags = append(diags, fmt.Sprintf("--%s %q: merge writes one result, so its names take no placeholders", p.flag, p.value))
		}
	}
	diags = append(diags, checkSummaryValues(o.Summary)...)
	if name := o.Summary.OutputFile; !summaryToTerminal(name) {
		msg := summaryFileProblem(name, o.OutputFile)
		if strings.Contains(name, "%") {
			msg = "merge writes one result, so its names take no placeholders"
		}
		if msg != "" {
			diags = append(diags, fmt.Sprintf("--%s %q: %s", optSummaryOutput, name, msg))
		}
	}
	if len(diags) == 0 {
		if err := output.CheckLocation(o.OutputDir, o.OutputFile, true); err != nil {
			diags = append(diags, fmt.Sprintf("-d %q -o %q: %v", o.OutputDir, o.OutputFile, err))
		}
	}
	return formats, diags
}

func runMerge(ctx context.Context, f *Factory, o *MergeOptions) error {
	formats, diags := checkMerge(o)
	if len(diags) > 0 {
		return &ValidationError{Diagnostics: diags}
	}
	// Merge writes one prefix, as a run with a fixed -o does: it takes the same lock (output.LockPrefix).
	lock, err := output.LockPrefix(o.OutputDir, o.OutputFile)
	if err != nil {
		return err
	}
	defer lock.Release()
	ctx, release := replay.CatchInterrupts(ctx)
	defer release()
	_, err = merge.Run(ctx, merge.Request{Inputs: o.Inputs, OutputDir: o.OutputDir, OutputFile: o.OutputFile,
		Formats: formats, Stats: o.Stats, Quiet: o.Quiet, Truncate: o.Truncate, Mangled: o.Mangled, AgentIndex: o.AgentIndex,
		Summary: summaryRequest(o.Summary), SummaryTo: o.Summary.OutputFile, Stdout: f.IO.Out, Stderr: f.IO.ErrOut})
	return err
}
