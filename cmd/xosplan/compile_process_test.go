package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// costlyTemplate is a valid TOSCA 2.0 template whose compile takes about
// a second (several under -race) within every limit: each of 10,000
// representations checks a default list of 390 integers its type gives.
func costlyTemplate() string {
	entries := make([]string, 390)
	for i := range entries {
		entries[i] = fmt.Sprint(i)
	}
	return "tosca_definitions_version: tosca_2_0\nnode_types:\n  T:\n    properties: { p: { type: list, entry_schema: integer, default: [ " +
		strings.Join(entries, ", ") + " ] } }\nservice_template:\n  node_templates:\n    a: { type: T, count: 10000 }\n"
}

// TestCompilingStopsOnSIGTERM sends SIGTERM to validate and plan while
// they compile a costly template: each exits with status 1 soon after,
// saying "interrupted" (never "context canceled"), instead of compiling on
// for a second or more. The time from the signal to the exit is logged; the test
// allows 30 s, far more than it takes.
func TestCompilingStopsOnSIGTERM(t *testing.T) {
	for _, command := range []string{"validate", "plan"} {
		t.Run(command, func(t *testing.T) {
			dir := testutil.Tree(t, map[string]string{"costly.yaml": costlyTemplate()})
			cmd := xosplanCmd(dir, nil, command, "costly.yaml")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill()
			}()
			// 200 ms of CPU into a compile of several seconds: the
			// process has installed its handlers long before. A wall
			// time would not do: on a loaded machine the start-up of
			// the binary alone can take longer, and the signal then
			// kills it before main runs.
			if err := waitBusy(cmd.Process.Pid, 200*time.Millisecond, exited); err != nil {
				t.Fatalf("%s: %v:\n%s%s", command, err, stdout.String(), stderr.String())
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			signaled := time.Now()
			var err error
			select {
			case err = <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				t.Fatalf("%s did not exit within 30 s of SIGTERM:\n%s", command, stderr.String())
			}
			t.Logf("%s exited %v after SIGTERM", command, time.Since(signaled).Round(time.Millisecond))
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err)
			}
			text := stderr.String() + stdout.String()
			if !strings.Contains(stderr.String(), "Error: interrupted") || strings.Contains(text, "context canceled") {
				t.Errorf("the output does not say interrupted (or says context canceled):\n%s", text)
			}
		})
	}
}

// waitBusy waits until process pid has used cpu of processor time (read
// from /proc/PID/stat where there is one; elsewhere it waits cpu of wall
// time), failing if it exits first or has not used it within 30 s.
func waitBusy(pid int, cpu time.Duration, exited <-chan error) error {
	deadline := time.After(30 * time.Second)
	for {
		used, ok := cpuTime(pid)
		if !ok {
			used = cpu
			select {
			case err := <-exited:
				return fmt.Errorf("ended before the signal (%v)", err)
			case <-time.After(cpu):
			}
		}
		if used >= cpu {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("ended before the signal (%v)", err)
		case <-deadline:
			return fmt.Errorf("used %v of processor time in 30 s, not %v", used, cpu)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// cpuTime is the user and system time pid has used, from /proc/PID/stat
// (fields 14 and 15, in clock ticks of 1/100 s, USER_HZ on Linux).
func cpuTime(pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
