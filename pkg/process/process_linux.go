//go:build linux

package process

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// setProcessGroup makes the process the leader of a new group, so that its
// end can take everything it started along, and has the kernel kill it if
// xosplan dies (even by kill -9): an operation must not run on, unrecorded,
// beside the next apply, which runs it again (actuators are idempotent).
// Under a supervisor (superviseCommand) the supervisor leads the group
// and is told of xosplan's death with SIGTERM, which it can catch: it
// then kills the group and every process the script started, wherever
// they went.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pinThread locks the calling goroutine to its OS thread and returns the
// unlock: the thread that starts a child is the "parent" Pdeathsig
// watches.
func pinThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// pPID is waitid's P_PID, which package syscall does not name.
const pPID = 1

// awaitExit blocks until the process has exited without reaping it: while
// it is a zombie its pid, which is also its group's id, cannot be given to
// another process, so signalling the group then cannot hit a stranger.
// After the reap the group keeps its id as long as it has members.
func awaitExit(cmd *exec.Cmd) error {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if errno != syscall.EINTR {
			// Any other failure is for Wait to report.
			return nil
		}
	}
}

// reap collects the exit status awaitExit left.
func reap(cmd *exec.Cmd, _ error) error { return cmd.Wait() }

// procStat is what groupAlive, startToken and leftoverAlive read of
// /proc/PID/stat.
type procStat struct {
	state byte
	ppid  int
	pgrp  int
	start string // clock ticks after boot
}

func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	// After the name: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice
	// threads itrealvalue starttime.
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp, start: f[19]}, true
}

func (s procStat) running() bool { return s.state != 'Z' && s.state != 'X' && s.state != 'x' }

// groupMembers calls fn with every running process of group pgid until
// fn returns true.
func groupMembers(pgid int, fn func(pid int, st procStat) bool) {
	eachProcess(func(pid int, st procStat) bool {
		return st.pgrp == pgid && st.running() && fn(pid, st)
	})
}

// eachProcess calls fn with every process in /proc until fn returns
// true.
func eachProcess(fn func(pid int, st procStat) bool) {
	dir, err := os.Open("/proc")
	if err != nil {
		return
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return
	}
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && fn(pid, st) {
			return
		}
	}
}

// groupAlive reports whether a process of group pgid is still running; a
// zombie (an orphan waiting for its reaper) is not. An empty group costs
// one system call; only one with members is looked for in /proc.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	alive := false
	groupMembers(pgid, func(int, procStat) bool {
		alive = true
		return true
	})
	return alive
}

// startToken identifies the process pid beyond its number: the boot and
// the start time, which a later process given the same pid cannot share.
func startToken(pid int) string {
	boot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	st, ok := readProcStat(pid)
	if !ok {
		return ""
	}
	return strings.TrimSpace(string(boot)) + ":" + st.start
}

// leftoverAlive reports whether the group a crashed run recorded is still
// running and is that group: same boot, and either its leader still has
// the recorded start time, or (the leader gone, as Pdeathsig makes it)
// members remain that started after it. A group id cannot be reused while
// the group has members, so those are the group's own.
func leftoverAlive(pgid int, token string) bool {
	boot, start, ok := strings.Cut(token, ":")
	recorded, err := strconv.ParseUint(start, 10, 64)
	if !ok || err != nil || pgid <= 1 {
		return false
	}
	if now, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err != nil || strings.TrimSpace(string(now)) != boot {
		return false
	}
	if leader, ok := readProcStat(pgid); ok {
		return leader.start == start && leader.pgrp == pgid && groupAlive(pgid)
	}
	found := false
	groupMembers(pgid, func(_ int, st procStat) bool {
		n, err := strconv.ParseUint(st.start, 10, 64)
		found = err == nil && n >= recorded
		return found
	})
	return found
}
