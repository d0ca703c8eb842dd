//go:build unix

package process

import (
	"os/exec"
	"syscall"
)

// signalGroup signals the process group of cmd: SIGTERM, or SIGKILL when
// kill, which also reaches the leader should it have left its group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	signalPGID(cmd.Process.Pid, kill)
	if kill {
		_ = cmd.Process.Kill()
	}
}

// signalPGID sends SIGTERM, or SIGKILL when kill, to group pgid.
func signalPGID(pgid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pgid, sig)
}
