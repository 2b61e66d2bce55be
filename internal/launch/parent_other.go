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
