//go:build unix && !linux

package executor

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the process the leader of a new group, so that a
// timeout can kill it with everything it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
