package cli

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/gorocprof/gorocprof/internal/contract"
	"github.com/spf13/cobra"
)

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gorocprof's version, commit, Go toolchain and tool contract",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeVersion(f.IO.Out)
		},
	}
}

// versionText is what --version and the version command print: the version first (scripts read
// that line), then what a bug report needs: the commit it was built from, the toolchain and
// platform, and the version of the contract the tool libraries must speak.
func versionText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gorocprof %s\n", version)
	commit, when, dirty := "", "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	// A build outside a git checkout (or a worktree go cannot stamp) has no commit of its own; make's
	// version, from git describe, names it then.
	if commit != "" {
		if dirty {
			commit += " (with uncommitted changes)"
		}
		if when != "" {
			commit += ", " + when
		}
		fmt.Fprintf(&b, "commit: %s\n", commit)
	}
	fmt.Fprintf(&b, "built with %s for %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "tool contract: version %d\n", contract.Version)
	return b.String()
}

func writeVersion(w io.Writer) error {
	_, err := io.WriteString(w, versionText())
	return err
}

// noArgs rejects positional arguments as a usage error (exit 2), which cobra.NoArgs does not.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}
