//go:build !linux

package launch

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// dieWithParent has no parent-death signal to set outside Linux.
func dieWithParent(*exec.Cmd) {}

func becomeSubreaper() error { return nil }

func waitDescendants(io.Writer, int, string, time.Duration, <-chan os.Signal) {}

func forwardToDescendants(int, string, syscall.Signal) {}

// IsWatchdog is false outside Linux, where no watchdog is started.
func IsWatchdog() bool { return false }

// EnableWatchdog does nothing outside Linux.
func EnableWatchdog() {}

// Watchdog is never run outside Linux.
func Watchdog() int { return 0 }

type watchdog struct{}

func startWatchdog(io.Writer, string) *watchdog { return nil }

func (*watchdog) stop() {}
