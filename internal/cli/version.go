package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gorocprof's version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(f.IO.Out, "gorocprof %s\n", version)
			return err
		},
	}
}

// noArgs rejects positional arguments as a usage error (exit 2), which cobra.NoArgs does not.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}
