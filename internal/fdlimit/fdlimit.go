// Package fdlimit refuses to start gorocprof under an open-file limit (ulimit -n) too low for a
// run, with a message instead of the Go runtime's fatal error: with too few descriptors the runtime
// cannot create its poller, and dies with a trace during the package initialisation of a
// dependency (protobuf opens the executable then), before main runs. Its init therefore runs first
// (import paths initialise in sorted order, and this one sorts before google.golang.org/...) and is
// the one place outside main that exits: nothing later could say what is wrong. It imports no more
// than os, syscall, strconv and errors, so that nothing it waits for opens a file first.
package fdlimit

import (
	"errors"
	"os"
	"strconv"
	"syscall"
)

// Min is the open-file limit gorocprof needs: its standard streams, the runtime's poller, the pipes
// to the query helpers and the application, the run directory's files, the record file being read
// and the output files written together, with room to spare.
const Min = 64

// Check returns why the open-file limit is too low, or nil. It reads the soft limit after the Go
// runtime raised it to the hard one, which only root can lift.
func Check() error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= Min {
		return nil
	}
	// No fmt: this package must depend on as little as possible to initialise first.
	return errors.New("the open-file limit is " + strconv.FormatUint(lim.Cur, 10) + " descriptors (ulimit -n); gorocprof needs at least " +
		strconv.Itoa(Min) + ": raise it (ulimit -n 1024) and run again")
}

func init() {
	if err := Check(); err != nil {
		// A write(2) on descriptor 2: os.Stderr may need the poller this limit leaves no room for.
		msg := "gorocprof: error: " + err.Error() + "\n"
		_, _ = syscall.Write(2, []byte(msg))
		os.Exit(1)
	}
}
