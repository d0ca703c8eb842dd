//go:build !linux

package process

import (
	"os"
	"os/exec"
)

// supervise never supervises here: without Pdeathsig and a subreaper a
// supervisor could not outlive xosplan to end what it started.
func supervise() (int, bool) { return 0, false }

// superviseCommand leaves cmd as it is.
func superviseCommand(*exec.Cmd) (*os.File, error) { return nil, nil }

// awaitSupervisedStart is never needed here.
func awaitSupervisedStart(*exec.Cmd, *os.File) error { return nil }
