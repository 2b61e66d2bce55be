package cli

import (
	"fmt"
	"os"

	"github.com/gorocprof/gorocprof/internal/counters"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// addExtraFlag gives avail and plan the profiling command's -E, so that they list and plan the extra
// counters a run would have.
func addExtraFlag(cmd *cobra.Command) {
	cmd.Flags().StringP(optExtraCounters, "E", "", "YAML file of extra derived counters (rocprofv3's counter definition format)")
	_ = cmd.MarkFlagFilename(optExtraCounters, "yaml", "yml")
}

// extraSetting: -E wins over GOROCPROF_EXTRA_COUNTERS; "" is none.
func extraSetting(flags *pflag.FlagSet) string {
	if f := flags.Lookup(optExtraCounters); f != nil && f.Changed {
		return f.Value.String()
	}
	return os.Getenv(envName(optExtraCounters))
}

// readExtraSetting reads the -E file; nil without one.
func readExtraSetting(path string) (*counters.Extra, error) {
	if path == "" {
		return nil, nil
	}
	e, err := counters.ReadExtra(path)
	if err != nil {
		return nil, fmt.Errorf("-E/--%s: %w", optExtraCounters, err)
	}
	return e, nil
}
