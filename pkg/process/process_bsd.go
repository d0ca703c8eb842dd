//go:build unix && !linux

package process

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes the process the leader of a new group, so that its
// end can take everything it started along.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// pinThread does nothing: there is no Pdeathsig to keep here.
func pinThread() func() { return func() {} }

// awaitExit waits for the process and reaps it: this platform offers no
// portable wait that leaves a zombie, so the group is signalled after the
// leader's pid is freed (a pid is reused only after the pid space wraps).
func awaitExit(cmd *exec.Cmd) error { return cmd.Wait() }

// reap returns what awaitExit's Wait returned.
func reap(_ *exec.Cmd, err error) error { return err }

// groupAlive reports whether group pgid has a member left.
func groupAlive(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || err == syscall.EPERM
}

// startToken is empty: there is no cheap, portable start time of a
// process here, so a leftover group cannot be told from a stranger.
func startToken(int) string { return "" }

// leftoverAlive is false: without a start token a recorded group cannot
// be told from another that reuses its id, and ending a stranger's
// processes is worse than leaving ours.
func leftoverAlive(int, string) bool { return false }
