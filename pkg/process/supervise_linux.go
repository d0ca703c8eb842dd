//go:build linux

package process

import (
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// A supervisor is this binary started again (Supervise) between xosplan
// and an operation's script: it leads the operation's process group, is a
// child subreaper (whatever the script orphans, a double fork or a setsid
// included, becomes its child), and gets SIGTERM when xosplan dies, even
// by kill -9 (Pdeathsig). It then kills every process below it and its
// group with SIGKILL. The script gets Pdeathsig SIGKILL from the
// supervisor, so that a supervisor killed on its own takes the script
// along; what the script started is then a leftover the next run ends
// (EndLeftovers), as before.

// supervising is set by Supervise in a program whose binary can be an
// operation's supervisor. It is the one piece of package state: a
// property of the running binary, like os.Args, fixed before anything
// runs; an option passed down to every runner instead could be forgotten
// by one of them, and a binary that cannot supervise must never be
// started as a supervisor.
var supervising atomic.Bool

// supervisorEnv, in a process's environment, makes Supervise run that
// process as a supervisor; its value is the pid of the xosplan that
// started it.
const supervisorEnv = "XOSPLAN_SUPERVISOR_OF"

// superviseCommand makes cmd start under a supervisor when this binary
// can be one: the supervisor runs /proc/self/exe (this binary, even if its
// file was replaced since) with the script's resolved path and argv. It
// returns the read end of the pipe on which the supervisor reports a
// script that could not start (nil when cmd is not supervised).
func superviseCommand(cmd *exec.Cmd) (*os.File, error) {
	if !supervising.Load() || cmd.Err != nil {
		return nil, nil
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(slices.Clip(env), supervisorEnv+"="+strconv.Itoa(os.Getpid()))
	cmd.Args = append([]string{os.Args[0], cmd.Path}, cmd.Args...)
	cmd.Path = "/proc/self/exe"
	cmd.ExtraFiles = []*os.File{statusW}
	// SIGTERM, not SIGKILL: the supervisor must outlive xosplan long
	// enough to end what runs below it.
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
	return statusR, nil
}

// awaitSupervisedStart waits until the supervisor has started the script
// (it closes the status pipe) or reports why it could not (an errno, after
// which it exits): the error then is the one starting the script directly
// gives, and the supervisor is reaped.
func awaitSupervisedStart(cmd *exec.Cmd, status *os.File) error {
	var b [4]byte
	n, _ := io.ReadFull(status, b[:])
	if n < len(b) {
		return nil
	}
	_ = cmd.Wait()
	return &os.PathError{Op: "fork/exec", Path: cmd.Args[1], Err: syscall.Errno(binary.LittleEndian.Uint32(b[:]))}
}

// supervise runs this process as a supervisor when its environment says
// so, else marks the binary as one that can supervise.
func supervise() (int, bool) {
	parent := os.Getenv(supervisorEnv)
	if parent == "" {
		supervising.Store(true)
		return 0, false
	}
	pid, err := strconv.Atoi(parent)
	if err != nil || len(os.Args) < 3 {
		return 127, true
	}
	return runSupervisor(pid, os.Args[1], os.Args[2:]), true
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// orphanCheck is how often the supervisor also looks whether xosplan is
// still its parent, should Pdeathsig not come.
const orphanCheck = time.Second

// runSupervisor starts the script (path, argv) in its own group, with its
// standard streams, and waits for it; it returns the script's exit status
// or, when the script died of a signal the runtime can die of too, dies
// of the same signal. When its parent (xosplan) dies first it kills
// everything below it and exits.
func runSupervisor(parent int, path string, argv []string) int {
	// The script's Pdeathsig watches the thread that starts it.
	runtime.LockOSThread()
	status := os.NewFile(3, "status")
	syscall.CloseOnExec(3)
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if os.Getppid() != parent {
		endBelow()
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, supervisorEnv+"=") })
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		errno, _ := err.(syscall.Errno)
		_, _ = status.Write(binary.LittleEndian.AppendUint32(nil, uint32(errno)))
		return 127
	}
	status.Close()
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		for {
			var ws syscall.WaitStatus
			// Reaps the orphans that come to the subreaper too.
			wpid, err := syscall.Wait4(-1, &ws, 0, nil)
			switch {
			case err == syscall.EINTR || (err == nil && wpid != pid):
				continue
			case err != nil:
				// Cannot happen while the script is our child; say
				// failure rather than success.
				ws = syscall.WaitStatus(1 << 8)
			}
			exited <- ws
			return
		}
	}()
	tick := time.NewTicker(orphanCheck)
	defer tick.Stop()
	for {
		select {
		case ws := <-exited:
			return relayExit(ws)
		case <-term:
			// From xosplan ending the group (the script got it too), or
			// Pdeathsig.
		case <-tick.C:
		}
		if os.Getppid() != parent {
			endBelow()
		}
	}
}

// endBelow kills, with SIGKILL, every process descending from this one
// (those that left the group included: they are still below the
// subreaper), again until none is left, then the group, which ends this
// process too.
func endBelow() {
	self := os.Getpid()
	for range 100 {
		below := descendants(self)
		if len(below) == 0 {
			break
		}
		for _, pid := range below {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	_ = syscall.Kill(-self, syscall.SIGKILL)
	_ = syscall.Kill(self, syscall.SIGKILL)
}

// descendants returns the running processes below pid.
func descendants(pid int) []int {
	children := map[int][]int{}
	eachProcess(func(p int, st procStat) bool {
		if st.running() {
			children[st.ppid] = append(children[st.ppid], p)
		}
		return false
	})
	var below []int
	for queue := slices.Clone(children[pid]); len(queue) > 0; queue = queue[1:] {
		below = append(below, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return below
}

// relayExit ends the supervisor as the script ended: with its exit
// status, or of the signal that killed it where the Go runtime dies of
// that signal by default (otherwise 128 + the signal, as a shell says).
func relayExit(ws syscall.WaitStatus) int {
	if !ws.Signaled() {
		return ws.ExitStatus()
	}
	sig := ws.Signal()
	switch sig {
	case syscall.SIGKILL, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP:
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(time.Second)
	}
	return 128 + int(sig)
}
