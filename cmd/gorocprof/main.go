// Command gorocprof profiles GPU applications in the manner of rocprofv3; see internal/cli.
package main

import (
	"context"
	"os"

	"github.com/gorocprof/gorocprof/internal/cli"
	"github.com/gorocprof/gorocprof/internal/launch"
)

func main() {
	if launch.IsWatchdog() {
		os.Exit(launch.Watchdog())
	}
	launch.EnableWatchdog()
	f := cli.NewFactory()
	err := cli.Execute(context.Background(), cli.NewRootCmd(f), os.Args[1:])
	cli.PrintError(f.IO.ErrOut, err)
	os.Exit(cli.ExitCode(err))
}
