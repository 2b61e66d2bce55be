package launch

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the application when gorocprof dies, however it dies (SIGKILL
// included), so that no application runs on unprofiled under init with nobody to read its records.
// The child sets the signal before exec and then checks that its parent is still the process that
// forked it (Go's forkAndExecInChild compares getppid with the pid taken before the fork and kills
// itself when they differ), which closes the window where gorocprof dies between fork and prctl.
// The signal follows the forking thread, which is why Run starts the child from a locked thread.
func dieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
