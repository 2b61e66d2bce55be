package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// addCompletionErrors makes `completion` without a shell, or with one cobra cannot write a script
// for, a usage error (exit 2). Cobra's own completion command is not runnable, so it prints its
// help and succeeds, and a script that runs `gorocprof completion tcsh > file` gets a help text.
func addCompletionErrors(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	comp := findSubcommand(root, "completion")
	if comp == nil || comp.RunE != nil {
		return
	}
	var shells []string
	for _, c := range comp.Commands() {
		shells = append(shells, c.Name())
	}
	comp.Args = cobra.ArbitraryArgs
	comp.RunE = func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("completion needs a shell: %s", strings.Join(shells, ", "))
		}
		return usageErrorf("completion: unknown shell %q (choose from %s)", args[0], strings.Join(shells, ", "))
	}
}
