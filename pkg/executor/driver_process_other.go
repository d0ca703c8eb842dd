//go:build !unix

package executor

import "os/exec"

// setProcessGroup has no process groups to use on this platform.
func setProcessGroup(cmd *exec.Cmd) {}

// terminateGroup kills the process itself: without process groups its
// children cannot be reached.
func terminateGroup(cmd *exec.Cmd, kill bool) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
