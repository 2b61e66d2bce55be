package cli

import (
	"context"
	"errors"

	"github.com/gorocprof/gorocprof/internal/replay"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ProcessOptions is the process command: the outputs of a run directory that gorocprof kept or was
// stopped before turning into output.
type ProcessOptions struct {
	RunDirs    []string
	OutputDir  string
	OutputFile string
	Formats    []string
}

func newProcessCmd(f *Factory) *cobra.Command {
	opts := &ProcessOptions{}
	cmd := &cobra.Command{
		Annotations: map[string]string{annotationInputs: "true"},
		Use:         "process RUN_DIR... [-d DIR] [-o NAME] [-f FORMATS]",
		Short:       "Write the outputs of a kept run directory (gorocprof stopped, or the outputs could not be written)",
		Long: `process writes the output files and the summary that the run of a run directory would have
written from its records: gorocprof keeps the directory ($TMPDIR/gorocprof-run-*) and names it when
it cannot write the outputs, and leaves it when it is killed. The run's own -d, -o and -f are used
unless given here. Several directories are the pass directories of one application replay:
each pass's output is written, then their merged result.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("%s needs a run directory (gorocprof names it when it keeps one)", cmd.CommandPath())
			}
			return refuseBackendFlags(cmd, "a run directory is processed on the backend and ROCm root it ran with (its run.json)")
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.RunDirs = args
			return runProcess(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&opts.OutputDir, optOutputDir, "d", "", "directory for the output files (default: the run's)")
	fs.StringVarP(&opts.OutputFile, optOutputFile, "o", "", "output file name prefix (default: the run's)")
	addFormatsFlag(fs, &opts.Formats, "output formats: csv, json, pftrace, rocpd (default: the run's)")
	hideBackendFlags(cmd)
	return cmd
}

func runProcess(ctx context.Context, f *Factory, o *ProcessOptions) error {
	var formats []string
	if o.Formats != nil {
		var diags []string
		if formats, diags = checkFormats(o.Formats); len(diags) > 0 {
			return &ValidationError{Diagnostics: diags}
		}
	}
	if f.Processor == nil {
		return errors.New("internal error: no processor wired into the command line")
	}
	_, err := f.Processor(ctx, replay.ProcessRequest{
		RunDirs: o.RunDirs, OutputDir: o.OutputDir, OutputFile: o.OutputFile, Formats: formats,
		Stdout: f.IO.Out, Stderr: f.IO.ErrOut,
	})
	return err
}

// refuseBackendFlags refuses the global --backend and --rocm-root on a subcommand that never reads them, so
// that a value given there is not silently ignored; why says what decides instead.
func refuseBackendFlags(cmd *cobra.Command, why string) error {
	for _, name := range []string{optBackend, optROCmRoot} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			return usageErrorf("%s: --%s has no effect here: %s", cmd.CommandPath(), name, why)
		}
	}
	return nil
}

// hideBackendFlags keeps the global --backend and --rocm-root, which refuseBackendFlags refuses on
// cmd, out of cmd's help: a flag the help lists is one the command takes.
func hideBackendFlags(cmd *cobra.Command) {
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		var hidden []*pflag.Flag
		for _, name := range []string{optBackend, optROCmRoot} {
			if f := c.InheritedFlags().Lookup(name); f != nil && !f.Hidden {
				f.Hidden = true
				hidden = append(hidden, f)
			}
		}
		defer func() {
			for _, f := range hidden {
				f.Hidden = false
			}
		}()
		c.Root().HelpFunc()(c, args)
	})
}
