package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// costlyTemplate is a valid TOSCA 2.0 template whose compile takes
// minutes: each of 10,000 representations checks four properties against
// a validation clause of 20,000 valid values.
func costlyTemplate() string {
	entries := make([]string, 20_000)
	for i := range entries {
		entries[i] = fmt.Sprint(i)
	}
	clause := "{ type: integer, validation: { $valid_values: [ $value, [ " + strings.Join(entries, ", ") + " ] ] } }"
	return "tosca_definitions_version: tosca_2_0\nnode_types:\n  T:\n    properties: { p0: " + clause + ", p1: " + clause +
		", p2: " + clause + ", p3: " + clause + " }\nservice_template:\n  node_templates:\n" +
		"    a: { type: T, count: 10000, properties: { p0: 1, p1: 2, p2: 3, p3: 4 } }\n"
}

// TestCompilingStopsOnSIGTERM sends SIGTERM to validate and plan while
// they compile a costly template: each exits with status 1 soon after,
// saying "interrupted" (never "context canceled"), instead of compiling on
// for minutes. The time from the signal to the exit is logged; the test
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
			// Two seconds into a compile of minutes (the process has
			// installed its handlers long before).
			select {
			case err := <-exited:
				t.Fatalf("%s ended before the signal (%v):\n%s%s", command, err, stdout.String(), stderr.String())
			case <-time.After(2 * time.Second):
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
