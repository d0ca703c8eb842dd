//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state"
)

// syncSignalsStack is one node whose create takes a while ($DELAY) and
// leaves a marker when it ends.
const syncSignalsStack = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    slow:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          create: create.sh
`

const syncSignalsCreate = `set -eu
echo started >> "$WORK/slow.log"
sleep "$DELAY"
echo done >> "$WORK/slow.log"
`

// TestSyncReconcilesOnSIGHUPAndStopsGracefullyOnSIGTERM: SIGHUP asks a
// running sync for a reconcile; SIGTERM sent while an action runs lets it
// finish within --grace, saves the state and ends sync with status 0.
func TestSyncReconcilesOnSIGHUPAndStopsGracefullyOnSIGTERM(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"stack.yaml": syncSignalsStack, "create.sh": syncSignalsCreate} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log, done := startSync(t, dir, []string{"WORK=" + work, "DELAY=2"}, "--grace", "30s")
	testutil.WaitFor(t, 60*time.Second, "the action to start", func() bool { return strings.Contains(log.String(), `msg="action started" address=slow`) })
	// SIGTERM while the create runs: nothing new starts, the create gets
	// its grace, the state is saved, and sync ends well.
	done.terminate(t)
	if got := string(mustRead(t, filepath.Join(work, "slow.log"))); got != "started\ndone\n" {
		t.Errorf("the create ran %q, want it to finish within its grace", got)
	}
	data := mustRead(t, filepath.Join(dir, state.DefaultPath))
	st, err := state.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := st.Lookup("slow"); !ok || !r.Succeeded() {
		t.Fatalf("the state does not record slow as created: %+v", st.Resources)
	}
	if !strings.Contains(log.String(), `msg="sync stopped"`) {
		t.Error(`the log does not say "sync stopped"`)
	}

	// SIGHUP asks for a reconcile, which finds nothing to do.
	log, done = startSync(t, dir, []string{"WORK=" + work, "DELAY=0"})
	testutil.WaitFor(t, 60*time.Second, "the first reconcile", func() bool { return strings.Contains(log.String(), `msg="reconcile ended"`) })
	done.signal(t, syscall.SIGHUP)
	testutil.WaitFor(t, 60*time.Second, "a reconcile for SIGHUP", func() bool {
		return strings.Contains(log.String(), `msg="reconcile started" reason=SIGHUP`) &&
			strings.Count(log.String(), `msg="reconcile ended" outcome=no_changes`) == 2
	})
	done.terminate(t)
}

// syncProcess is a running `xosplan sync`; ended receives its end once.
type syncProcess struct {
	cmd   *exec.Cmd
	ended chan error
}

// terminate sends SIGTERM and wants sync to end with status 0.
func (p *syncProcess) terminate(t *testing.T) {
	t.Helper()
	p.signal(t, syscall.SIGTERM)
	select {
	case err := <-p.ended:
		if err != nil {
			t.Fatalf("sync ended with %v after SIGTERM, want status 0", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("sync did not end after SIGTERM")
	}
}

func (p *syncProcess) signal(t *testing.T, sig os.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// startSync starts `xosplan sync` on dir's stack.yaml (no API, no poll,
// health checks hourly) with env and the flags given; it is killed when
// the test ends if still running, and its log shown when the test failed.
func startSync(t *testing.T, dir string, env []string, flags ...string) (*testutil.Buffer, *syncProcess) {
	t.Helper()
	log := &testutil.Buffer{}
	args := append([]string{"sync", "--listen", "", "--health-interval", "1h", "--poll-interval", "0"}, flags...)
	cmd := xosplanCmd(dir, env, append(args, "stack.yaml")...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &syncProcess{cmd: cmd, ended: make(chan error, 1)}
	exited := make(chan struct{})
	go func() {
		p.ended <- cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("sync's log:\n%s", log.String())
		}
	})
	return log, p
}
