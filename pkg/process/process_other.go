//go:build !unix

package process

import "os/exec"

// setProcessGroup has no process groups to use on this platform.
func setProcessGroup(*exec.Cmd) {}

// pinThread does nothing: there is no Pdeathsig here.
func pinThread() func() { return func() {} }

// awaitExit waits for the process and reaps it.
func awaitExit(cmd *exec.Cmd) error { return cmd.Wait() }

// reap returns what awaitExit's Wait returned.
func reap(_ *exec.Cmd, err error) error { return err }

// signalGroup kills the process itself: without process groups its
// children cannot be reached.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }

// signalPGID cannot reach a group here.
func signalPGID(int, bool) {}

// groupAlive is false: there is no group to wait for.
func groupAlive(int) bool { return false }

// startToken is empty: leftovers cannot be recognised here.
func startToken(int) string { return "" }

// leftoverAlive is false: there are no groups to end.
func leftoverAlive(int, string) bool { return false }
