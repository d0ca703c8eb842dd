package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/state"
)

// TestForceUnlockDuringApplyRunsEveryCreateOnce force-unlocks a running
// apply whose second create is under way. force-unlock refuses without --force
// (the holder runs on this host); with --force the lock goes, yet `state
// rm` and a second apply are refused while the first apply still writes
// its journal, so no create runs twice. The first apply records the
// create it had started, starts nothing new and fails saying where its
// operations are; the next apply finishes the rest.
func TestForceUnlockDuringApplyRunsEveryCreateOnce(t *testing.T) {
	const nodes = 4
	dir := writeStack(t, nodes, "0")
	work := filepath.Join(dir, "work")
	gate := filepath.Join(dir, "gate")
	// Every create logs its run; all but the first say they started and
	// wait for the gate first.
	create := "set -eu\nmkdir -p \"$XOSPLAN_WORKDIR\"\nif [ -e \"$XOSPLAN_WORKDIR/runs.log\" ]; then\n" +
		"  : > \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS.started\"\n  while [ ! -e \"$GATE\" ]; do sleep 0.02; done\nfi\n" +
		"echo \"$XOSPLAN_ADDRESS\" >> \"$XOSPLAN_WORKDIR/runs.log\"\n: > \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS\"\n"
	if err := os.WriteFile(filepath.Join(dir, "scripts", "create.sh"), []byte(create), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XOSPLAN_WORKDIR=" + work, "GATE=" + gate}

	first := xosplanCmd(dir, env, "apply", "--auto-approve", "--parallelism", "1", "stack.yaml")
	var out bytes.Buffer
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = os.WriteFile(gate, nil, 0o644)
		_ = first.Process.Kill()
		_ = first.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		if started, _ := filepath.Glob(filepath.Join(work, "*.started")); len(started) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first create did not start:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	var info struct{ ID string }
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, state.DefaultPath+state.LockInfoSuffix)), &info); err != nil {
		t.Fatal(err)
	}

	code, msg := runXosplan(t, dir, env, "state", "force-unlock", info.ID)
	if code != 1 || !strings.Contains(msg, "on this host (operation apply, ID "+info.ID+"), which is still running") {
		t.Fatalf("force-unlock of a running apply: exit %d\n%s", code, msg)
	}
	if code, msg := runXosplan(t, dir, env, "state", "force-unlock", "--force", info.ID); code != 0 {
		t.Fatalf("force-unlock --force: exit %d\n%s", code, msg)
	}
	// The apply still runs: its create is running, not interrupted, and
	// nothing ends its process as a leftover of a crash.
	if code, msg := runXosplan(t, dir, env, "state", "list"); code != 0 || !strings.Contains(msg, "\nrunning: n") || strings.Contains(msg, "interrupted:") {
		t.Fatalf("state list while the apply runs: exit %d\n%s", code, msg)
	}
	done := strings.Fields(string(mustRead(t, filepath.Join(work, "runs.log"))))
	if code, msg := runXosplan(t, dir, env, "state", "rm", done[0]); code != 1 || !strings.Contains(msg, "the apply journal is in use by another process") {
		t.Fatalf("state rm while the apply runs: exit %d\n%s", code, msg)
	}
	if code, msg := runXosplan(t, dir, env, "apply", "--auto-approve", "stack.yaml"); code != 1 || !strings.Contains(msg, "nothing was run") {
		t.Fatalf("a second apply while the first runs: exit %d\n%s", code, msg)
	}

	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := first.Wait()
	text := out.String()
	if err == nil || !strings.Contains(text, "was released by force-unlock") || !strings.Contains(text, "is kept in the journal") {
		t.Fatalf("the apply that lost its lock: %v\n%s", err, text)
	}
	code, list := runXosplan(t, dir, env, "state", "list")
	if code != 0 || strings.Count(list, " ok\n")+strings.Count(list, " active\n") != 2 {
		t.Fatalf("state list after the lost apply: exit %d\n%s", code, list)
	}
	if code, msg := runXosplan(t, dir, env, "apply", "--auto-approve", "stack.yaml"); code != 0 {
		t.Fatalf("apply after the lost one: exit %d\n%s", code, msg)
	}
	runs := strings.Fields(string(mustRead(t, filepath.Join(work, "runs.log"))))
	slices.Sort(runs)
	if want := []string{"n00", "n01", "n02", "n03"}; !slices.Equal(runs, want) {
		t.Errorf("creates ran %v, want each of %v once", runs, want)
	}
	checkConverged(t, dir, nodes)
}
