//go:build !linux

package launch

import "os/exec"

// dieWithParent has no parent-death signal to set outside Linux.
func dieWithParent(*exec.Cmd) {}
