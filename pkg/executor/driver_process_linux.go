//go:build linux

package executor

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the process the leader of a new group, so that a
// timeout can kill it with everything it started, and has the kernel kill
// it if xosplan dies (even by kill -9): an operation must not run on,
// unrecorded, beside the next apply, which runs it again (actuators are
// idempotent).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminateGroup signals the process group: SIGTERM, or SIGKILL when kill.
func terminateGroup(cmd *exec.Cmd, kill bool) error {
	if cmd.Process == nil {
		return nil
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-cmd.Process.Pid, sig)
}
