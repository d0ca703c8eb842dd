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
			// 200 ms into a compile of a second or more (the process
			// has installed its handlers long before).
			select {
			case err := <-exited:
				t.Fatalf("%s ended before the signal (%v):\n%s%s", command, err, stdout.String(), stderr.String())
			case <-time.After(200 * time.Millisecond):
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
