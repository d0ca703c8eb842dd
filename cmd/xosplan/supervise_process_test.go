//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestKill9EndsEveryProcessItsScriptStarted kills xosplan (apply, and
// sync: one runner serves every command) with SIGKILL while a script runs
// that started a child in the background, a process that left the group
// and the session (setsid) below a shell that stays, and one that did so
// through a double fork (its parent gone, so that nothing but the
// supervisor's subreaping ties it to the script): all of them end with
// xosplan, not only the script.
func TestKill9EndsEveryProcessItsScriptStarted(t *testing.T) {
	script := `mkdir -p "$XOSPLAN_WORKDIR"; cd "$XOSPLAN_WORKDIR"
echo $$ > leader
sleep 1000 & echo $! > child
setsid sh -c 'sleep 1000 & echo $! > deep; wait' &
( setsid sleep 1000 & echo $! > escaped )
until [ -s deep ]; do sleep 0.01; done
echo ready > ready.tmp; mv ready.tmp ready
wait
`
	for _, command := range [][]string{
		{"apply", "--auto-approve", "stack.yaml"},
		{"sync", "--listen", "", "--health-interval", "1h", "--poll-interval", "0", "stack.yaml"},
	} {
		t.Run(command[0], func(t *testing.T) {
			dir := testutil.Tree(t, map[string]string{
				"scripts/create.sh": script,
				"stack.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    n:\n" +
					"      type: tosca.nodes.Root\n      interfaces:\n        Standard:\n          operations:\n            create: scripts/create.sh\n",
			})
			work := filepath.Join(dir, "work")
			cmd := xosplanCmd(dir, []string{"XOSPLAN_WORKDIR=" + work}, command...)
			out := &testutil.Buffer{}
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			names := []string{"leader", "child", "deep", "escaped"}
			pids := map[string]int{}
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				for _, pid := range pids {
					endOurSleep(pid)
				}
			})
			testutil.WaitFor(t, 30*time.Second, "the script and its processes started", func() bool {
				_, err := os.Stat(filepath.Join(work, "ready"))
				return err == nil
			})
			for _, name := range names {
				pids[name] = pidIn(t, filepath.Join(work, name))
			}
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			for _, name := range names {
				if !gone(pids[name], 10*time.Second) {
					t.Errorf("the script's %s (pid %d) outlived the xosplan %s that ran it", name, pids[name], command[0])
				}
			}
			if t.Failed() {
				t.Logf("xosplan's output:\n%s", out.String())
			}
		})
	}
}

// endOurSleep kills pid if it is still one of the test's processes (a
// shell or a sleep), not a stranger that reuses its number.
func endOurSleep(pid int) {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return
	}
	if arg0 := string(cmdline[:max(0, bytes.IndexByte(cmdline, 0))]); strings.HasSuffix(arg0, "sleep") || strings.HasSuffix(arg0, "sh") {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
