//go:build linux

package executor

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestEndLeftoversEndsOnlyGroupsOfItsOwn: the group an interrupted intent
// names is ended, unless a member of a synchronizer cluster ran it: that
// member may still be running it (the leader that recorded it died, not
// the member), and its group ends with it.
func TestEndLeftoversEndsOnlyGroupsOfItsOwn(t *testing.T) {
	start := func() (*exec.Cmd, state.Process) {
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
		pid := cmd.Process.Pid
		return cmd, state.Process{PID: pid, PGID: pid, Start: process.Group(pid).Start}
	}
	own, ownProc := start()
	members, memberProc := start()
	memberProc.Member = "web-2:811"
	EndLeftovers([]state.Record{
		{Kind: state.RecordIntent, Address: "a", Action: "create", Process: &ownProc},
		{Kind: state.RecordIntent, Address: "b", Action: "create", Process: &memberProc},
	}, nil)
	ended := make(chan error, 1)
	go func() { ended <- own.Wait() }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the group of this process's own interrupted operation is still running")
	}
	// EndLeftovers has returned: a group it ended is gone by now (a zombie
	// until reaped).
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", members.Process.Pid)); err != nil || zombie(string(stat)) {
		t.Fatalf("the group a cluster member ran was ended (%v)", err)
	}
}

// zombie reports whether a /proc/PID/stat line is of a process that ended.
func zombie(stat string) bool {
	if i := strings.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] == 'Z'
	}
	return true
}
