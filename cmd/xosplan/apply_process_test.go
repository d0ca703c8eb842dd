package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// envProcess makes the test binary run xosplan (with main's signal
// handling) instead of the tests: the arguments follow "--".
const envProcess = "XOSPLAN_TEST_PROCESS"

// TestXosplanProcess is not a test: it is the xosplan process the tests
// below start, so that they can kill it or interrupt it.
func TestXosplanProcess(t *testing.T) {
	if os.Getenv(envProcess) != "1" {
		t.Skip("runs only as a child process of the apply process tests")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(runProcess(args, os.Stdin, os.Stdout, os.Stderr))
}

// xosplanCmd returns the command running xosplan with args in dir.
func xosplanCmd(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestXosplanProcess$", "--"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(testutil.ChildEnv(append(os.Environ(), envProcess+"=1")), env...)
	return cmd
}

// runLimit bounds one xosplan run of these tests: a run that hangs fails
// its test instead of the whole binary's timeout.
const runLimit = 2 * time.Minute

// runXosplan runs xosplan to the end (killing it after runLimit) and
// returns its exit status and output.
func runXosplan(t *testing.T, dir string, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := xosplanCmd(dir, env, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("running xosplan: %v", err)
	}
	hung := time.AfterFunc(runLimit, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	if !hung.Stop() {
		t.Fatalf("xosplan %s did not end within %s:\n%s", strings.Join(args, " "), runLimit, out.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String()
	}
	if err != nil {
		t.Fatalf("running xosplan: %v", err)
	}
	return 0, out.String()
}

// writeStack writes a TOSCA template of n nodes in chains of three, each
// running a create script that sleeps delay seconds and leaves a marker
// file, and returns the folder.
func writeStack(t *testing.T, n int, delay string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"scripts/create.sh": "set -eu\nsleep " + delay + "\nmkdir -p \"$XOSPLAN_WORKDIR\"\necho \"$XOSPLAN_ADDRESS\" > \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS.tmp\"\nmv \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS.tmp\" \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS\"\n",
		"scripts/delete.sh": "set -eu\nrm -f \"$XOSPLAN_WORKDIR/$XOSPLAN_ADDRESS\"\n",
	}
	var b strings.Builder
	b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n")
	for i := range n {
		fmt.Fprintf(&b, "    n%02d:\n      type: tosca.nodes.Root\n", i)
		if i%3 != 0 {
			fmt.Fprintf(&b, "      requirements:\n        - dependency: n%02d\n", i-1)
		}
		b.WriteString("      interfaces:\n        Standard:\n          operations:\n            create: scripts/create.sh\n            delete: scripts/delete.sh\n")
	}
	files["stack.yaml"] = b.String()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkConverged asserts that the state is valid, that a plan has no
// changes, and that every node's marker exists.
func checkConverged(t *testing.T, dir string, n int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, state.DefaultPath))
	if err != nil {
		t.Fatalf("no state: %v", err)
	}
	s, err := state.Decode(data)
	if err != nil {
		t.Fatalf("state not valid: %v", err)
	}
	if len(s.Resources) != n {
		t.Errorf("state holds %d resources, want %d", len(s.Resources), n)
	}
	// Plan in-process (a process per check would double the test's time).
	res := config.Load(context.Background(), []string{filepath.Join(dir, "stack.yaml")}, config.Options{RequireInputs: true})
	desired, _, diags := res.Merge()
	if diags = res.Diags.Extend(diags); diags.HasErrors() {
		t.Fatalf("compiling: %v", diags.Err())
	}
	p, diags := planner.Diff(context.Background(), desired, s, planner.Options{})
	if p == nil || diags.HasErrors() {
		t.Fatalf("planning: %v", diags.Err())
	}
	if p.HasChanges() {
		t.Errorf("plan after recovery has changes: %+v", p.Summary)
	}
	for i := range n {
		if _, err := os.Stat(filepath.Join(dir, "work", fmt.Sprintf("n%02d", i))); err != nil {
			t.Errorf("node n%02d was not created: %v", i, err)
		}
	}
}

// TestApplySurvivesKill9 kills xosplan with SIGKILL at a random moment of
// an apply, 20 times; each time the next apply must finish the job and
// leave a valid state with nothing left to do.
func TestApplySurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 60 processes")
	}
	const nodes, runs = 12, 20
	for i := range runs {
		// One seed per run, so that `-run TestApplySurvivesKill9/run07`
		// repeats the same moment.
		rng := rand.New(rand.NewPCG(5, uint64(i)))
		t.Run(fmt.Sprintf("run%02d", i), func(t *testing.T) {
			dir := writeStack(t, nodes, "0.02")
			env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work")}
			cmd := xosplanCmd(dir, env, "apply", "--auto-approve", "--parallelism", "3", "stack.yaml")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// An apply of 12 nodes in chains of 3 at parallelism 3 takes
			// 4 rounds of 20 ms scripts plus start-up: kill it somewhere in
			// the first half second, which covers start-up, the walk and
			// the end.
			wait := time.Duration(rng.IntN(500)) * time.Millisecond
			time.Sleep(wait)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Logf("killed after %s: %d markers, journal %d bytes", wait, countFiles(filepath.Join(dir, "work")),
				fileSize(filepath.Join(dir, state.DefaultPath+state.JournalSuffix)))
			code, out2 := runXosplan(t, dir, env, "apply", "--auto-approve", "stack.yaml")
			if code != 0 {
				t.Fatalf("apply after kill -9: exit %d\n%s\n(killed run printed:)\n%s", code, out2, out.String())
			}
			checkConverged(t, dir, nodes)
		})
	}
}

// TestApplyInterrupt sends SIGINT while scripts run: nothing new starts,
// the running ones finish within the grace period, the state is saved,
// and xosplan exits 1; the next apply completes the rest.
func TestApplyInterrupt(t *testing.T) {
	const nodes = 6
	dir := writeStack(t, nodes, "0.3")
	env := []string{"XOSPLAN_WORKDIR=" + filepath.Join(dir, "work")}
	cmd := xosplanCmd(dir, env, "apply", "--auto-approve", "--parallelism", "1", "stack.yaml")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the first marker: the walk is under way.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(dir, "work", "n00")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("apply did not start:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("interrupted apply: %v, want exit status 1\n%s", err, out.String())
	}
	text := out.String()
	if !strings.Contains(text, "Apply interrupted!") || !strings.Contains(text, "interrupted: the state holds what finished") {
		t.Errorf("output does not say it was interrupted:\n%s", text)
	}
	s, err := state.Decode(mustRead(t, filepath.Join(dir, state.DefaultPath)))
	if err != nil {
		t.Fatalf("state not saved: %v", err)
	}
	if len(s.Resources) == 0 || len(s.Resources) == nodes {
		t.Errorf("state holds %d resources; want some but not all", len(s.Resources))
	}
	if _, err := os.Stat(filepath.Join(dir, state.DefaultPath+state.JournalSuffix)); err == nil {
		t.Errorf("the journal was left behind: the state was not compacted")
	}
	if code, out := runXosplan(t, dir, env, "apply", "--auto-approve", "stack.yaml"); code != 0 {
		t.Fatalf("apply after the interrupt: exit %d\n%s", code, out)
	}
	checkConverged(t, dir, nodes)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func countFiles(dir string) int {
	entries, _ := os.ReadDir(dir)
	return len(entries)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// TestKill9LeavesNoScriptAndTheNextApplyEndsItsChildren kills xosplan and
// the supervisor of its script with SIGKILL (xosplan stopped first, so
// that it cannot end the group itself, and the supervisor cannot act on
// xosplan's death) while the script runs with a child in the background:
// the script dies with its supervisor (Pdeathsig); its child, which only
// the process group ties to the operation, is ended by the next apply
// before it runs the operation again, which says so.
// TestKill9EndsEveryProcessItsScriptStarted is the usual case: xosplan
// alone killed, its supervisors end everything at once.
func TestKill9LeavesNoScriptAndTheNextApplyEndsItsChildren(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig and recognising a leftover group need Linux")
	}
	// The first run records itself and its child and waits; the run after
	// the crash notes whether the child is still there.
	script := `mkdir -p "$XOSPLAN_WORKDIR"; cd "$XOSPLAN_WORKDIR"
if [ -f child ]; then
  case "$(cat /proc/"$(cat child)"/stat 2>/dev/null)" in *") "[!Z]*) echo overlap > overlap;; esac
  exit 0
fi
echo $$ > leader
sleep 60 & echo $! > child.tmp; mv child.tmp child
wait
`
	dir := testutil.Tree(t, map[string]string{
		"scripts/create.sh": script,
		"stack.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    n:\n" +
			"      type: tosca.nodes.Root\n      interfaces:\n        Standard:\n          operations:\n            create: scripts/create.sh\n",
	})
	work := filepath.Join(dir, "work")
	env := []string{"XOSPLAN_WORKDIR=" + work}
	cmd := xosplanCmd(dir, env, "apply", "--auto-approve", "stack.yaml")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, state.DefaultPath+state.JournalSuffix)
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, _ := os.ReadFile(journal)
		if _, err := os.Stat(filepath.Join(work, "child")); err == nil && bytes.Contains(j, []byte(`"process":`)) {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the script did not start, or its process group was not recorded:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	leader, child := pidIn(t, filepath.Join(work, "leader")), pidIn(t, filepath.Join(work, "child"))
	t.Cleanup(func() { endOurSleep(child) })
	group := processGroup(t, leader)
	_ = cmd.Process.Signal(syscall.SIGSTOP)
	_ = syscall.Kill(group, syscall.SIGKILL)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if !gone(leader, 10*time.Second) {
		_ = syscall.Kill(leader, syscall.SIGKILL)
		t.Fatalf("the script (pid %d) outlived the xosplan that ran it", leader)
	}
	if gone(child, 0) {
		t.Fatal("the background child died with xosplan: there is no leftover to end")
	}

	code, text := runXosplan(t, dir, env, "apply", "--auto-approve", "stack.yaml")
	if code != 0 {
		t.Fatalf("apply after kill -9: exit %d\n%s", code, text)
	}
	if _, err := os.Stat(filepath.Join(work, "overlap")); err == nil {
		t.Error("the operation ran again while the child of its killed run was still running")
	}
	if !gone(child, 10*time.Second) {
		t.Errorf("the child (pid %d) of the killed run is still running", child)
	}
	if want := "n: ended the processes its interrupted create left running (process group " + strconv.Itoa(group) + ")"; !strings.Contains(text, want) {
		t.Errorf("the apply does not say it ended the leftover (%q):\n%s", want, text)
	}
}

// processGroup returns the process group of pid: the operation's, whose
// leader is its supervisor.
func processGroup(t *testing.T, pid int) int {
	t.Helper()
	st := mustRead(t, "/proc/"+strconv.Itoa(pid)+"/stat")
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
	pgrp, err := strconv.Atoi(f[2])
	if err != nil || pgrp <= 1 {
		t.Fatalf("process group of %d: %q", pid, st)
	}
	return pgrp
}

// pidIn reads the pid a script wrote to path.
func pidIn(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(string(mustRead(t, path))))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// gone reports whether process pid has ended (a zombie counts as ended)
// within wait.
func gone(pid int, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return true
		}
		if f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestInterruptsAreAcknowledgedAndSaySo interrupts an apply whose script
// runs for a minute, with a real process and real signals: the first
// interrupt is acknowledged at once and, once the grace period ends,
// stops the script with "interrupted", not "context canceled"; with a
// long grace period, a second interrupt is acknowledged and stops the
// script at once, ending its process group, and the state is saved.
func TestInterruptsAreAcknowledgedAndSaySo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc to see the script end")
	}
	for _, tc := range []struct {
		name    string
		grace   string
		signals int
		want    []string
	}{
		{"one interrupt", "1s", 1, []string{"Interrupt received.", "Gracefully shutting down",
			"stopped: interrupted: the grace period (1s) ended (its process group was ended)", "Apply interrupted!"}},
		{"two interrupts", "1m", 2, []string{"Interrupt received.", "Two interrupts received. Stopping running scripts now",
			"stopped: interrupted again: stopped at once (its process group was ended)", "Apply interrupted!"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testutil.Tree(t, map[string]string{
				"slow.sh": "echo $$ > started.tmp; mv started.tmp started\nsleep 60\n",
				"stack.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    n:\n" +
					"      type: tosca.nodes.Root\n      interfaces:\n        Standard:\n          create: slow.sh\n",
			})
			logPath := filepath.Join(t.TempDir(), "out")
			logFile, err := os.Create(logPath)
			if err != nil {
				t.Fatal(err)
			}
			defer logFile.Close()
			cmd := xosplanCmd(dir, nil, "apply", "--auto-approve", "--retries", "0", "--grace", tc.grace, "stack.yaml")
			cmd.Stdout, cmd.Stderr = logFile, logFile
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				_ = cmd.Process.Kill()
				<-exited
			}()
			waitFor := func(what string, ok func() bool) {
				t.Helper()
				for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("%s did not happen within 30s:\n%s", what, mustRead(t, logPath))
					}
				}
			}
			started := filepath.Join(dir, "started")
			waitFor("the script's start", func() bool { _, err := os.Stat(started); return err == nil })
			script := pidIn(t, started)
			for i := range tc.signals {
				if err := cmd.Process.Signal(os.Interrupt); err != nil {
					t.Fatal(err)
				}
				want := []string{"Interrupt received.", "Two interrupts received."}[i]
				waitFor("the acknowledgement of interrupt "+strconv.Itoa(i+1), func() bool {
					return bytes.Contains(mustRead(t, logPath), []byte(want))
				})
			}
			var err2 error
			select {
			case err2 = <-exited:
				exited <- err2
			case <-time.After(20 * time.Second):
				t.Fatalf("xosplan did not stop within 20s of the last interrupt:\n%s", mustRead(t, logPath))
			}
			if ee, ok := err2.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("exit: %v, want status 1", err2)
			}
			text := string(mustRead(t, logPath))
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
			if strings.Contains(text, "context canceled") {
				t.Errorf("output says \"context canceled\" where it should say interrupted:\n%s", text)
			}
			if !gone(script, 10*time.Second) {
				_ = syscall.Kill(script, syscall.SIGKILL)
				t.Errorf("the script (pid %d) outlived the apply", script)
			}
			if _, err := state.Decode(mustRead(t, filepath.Join(dir, state.DefaultPath))); err != nil {
				t.Errorf("state not saved: %v", err)
			}
		})
	}
}
