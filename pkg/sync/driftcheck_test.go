//go:build unix

package sync

import (
	"context"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	stdsync "sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// driftStack is a resource whose Standard.configure is a playbook that
// writes conf (a real ansible-playbook on the local connection), under an
// engine with a drift check every 10 minutes.
type driftStack struct {
	h       *harness
	conf    string
	metrics *Metrics
	mu      stdsync.Mutex
	// drifts are the drift events, and what conf held when each was sent.
	drifts  []Event
	atDrift []string
}

func newDriftStack(t *testing.T, repair bool, extraTask string, timeout time.Duration) *driftStack {
	t.Helper()
	if _, err := osexec.LookPath("ansible-playbook"); err != nil {
		t.Skip("ansible-playbook is not installed (make test-deps installs ansible-core)")
	}
	t.Setenv("HOME", t.TempDir()) // Ansible keeps its own files under ~/.ansible
	dir, out := t.TempDir(), t.TempDir()
	s := &driftStack{conf: filepath.Join(out, "app.conf"), metrics: NewMetrics()}
	playbook := "- hosts: all\n  gather_facts: false\n  tasks:\n    - name: write the configuration\n      copy:\n        dest: \"{{ path }}\"\n        content: \"setting=1\\n\"\n" + extraTask
	if err := os.WriteFile(filepath.Join(dir, "configure.yml"), []byte(playbook), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := workflow.Drivers(executor.DriverOptions{Timeout: 2 * time.Minute})
	goal := func(context.Context) (*Goal, diag.Diagnostics, error) {
		g := graph.New()
		err := g.AddResource(&graph.Resource{Address: "app", Type: "tosca.nodes.SoftwareComponent", Management: graph.Managed,
			Spec: map[string]graph.Value{}, Range: diag.Range{File: filepath.Join(dir, "stack.yaml")},
			Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
				"Standard.configure": {Implementation: "configure.yml", Inputs: map[string]graph.Value{"path": s.conf}}}}})
		return &Goal{Desired: g, Drivers: reg, Plan: planner.Options{InputDigests: map[string]string{"stack.yaml": "v1"}}}, nil, err
	}
	clock := newFakeClock()
	store := lockedStore(t)
	s.h = &harness{t: t, clock: clock, store: store, idle: make(chan time.Time),
		e: New(Options{Goal: goal, Store: store, Drivers: reg, Clock: clock, Rand: func() float64 { return 0.5 },
			Resync: 1000 * time.Hour, CheckDrift: 10 * time.Minute, CheckDriftTimeout: timeout, CheckDriftRepair: repair,
			Metrics: s.metrics, Apply: executor.Options{ProgressInterval: -1},
			Events: func(ev Event) {
				if ev.Type == EventDrift {
					data, _ := os.ReadFile(s.conf)
					s.mu.Lock()
					s.drifts = append(s.drifts, ev)
					s.atDrift = append(s.atDrift, string(data))
					s.mu.Unlock()
				}
			}})}
	return s
}

// startInLine starts the engine, checks the first reconcile wrote conf
// and the first drift check (at 5m) found nothing, then edits conf by
// hand and runs the next drift check (at 15m).
func (s *driftStack) startInLine(t *testing.T) {
	t.Helper()
	h := s.h
	next := h.start()
	if data, err := os.ReadFile(s.conf); err != nil || string(data) != "setting=1\n" {
		t.Fatalf("after the first reconcile app.conf is %q, %v", data, err)
	}
	// The first drift check comes within the interval (half of it with
	// this Rand).
	if got := next.Sub(clockStart); got != 5*time.Minute {
		t.Fatalf("first wake-up at %s, want the drift check at 5m", got)
	}
	next = h.advanceTo(next)
	rs := h.status("app")
	s.mu.Lock()
	drifts := len(s.drifts)
	s.mu.Unlock()
	if rs.LastDriftCheck == nil || rs.Drift != "" || drifts != 0 {
		t.Fatalf("in line: last drift check %v, drift %q, %d drift events", rs.LastDriftCheck, rs.Drift, drifts)
	}
	if got := next.Sub(clockStart); got != 15*time.Minute {
		t.Fatalf("next wake-up at %s, want the next drift check at 15m", got)
	}
	if err := os.WriteFile(s.conf, []byte("setting=2 by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.clock.set(next)
	h.wait()
}

// checkReported checks the drift check reported one drift of app, made
// while conf still held the hand edit, in the events, the activity and
// the metric.
func (s *driftStack) checkReported(t *testing.T) {
	t.Helper()
	s.mu.Lock()
	if len(s.drifts) != 1 || s.drifts[0].Address != "app" || !strings.Contains(s.drifts[0].Message, "changed outside xosplan: check mode: Standard.configure would change 1 task(s)") {
		t.Errorf("drift events %+v, want one for app", s.drifts)
	} else if s.atDrift[0] != "setting=2 by hand\n" {
		t.Errorf("the drift check changed app.conf: %q", s.atDrift[0])
	}
	s.mu.Unlock()
	var activity bool
	for _, a := range s.h.status("app").Activity {
		activity = activity || a.Type == EventDrift
	}
	if !activity {
		t.Errorf("app's activity has no drift: %+v", s.h.status("app").Activity)
	}
	if got := metricValue(t, s.metrics, "xosplan_sync_drift_total"); got != "1" {
		t.Errorf("xosplan_sync_drift_total = %s, want 1", got)
	}
}

// TestCheckDriftReportsAHandEditWithoutChangingIt: with CheckDrift, a
// resource whose Standard.configure is a playbook is checked in check mode
// every interval. In line, it has no drift; after its file is changed by
// hand, the next check reports the drift (an EventDrift, its status and
// activity, the drift metric) and leaves the file as the hand left it.
func TestCheckDriftReportsAHandEditWithoutChangingIt(t *testing.T) {
	s := newDriftStack(t, false, "", 2*time.Minute)
	s.startInLine(t)
	s.checkReported(t)
	if rs := s.h.status("app"); !strings.Contains(rs.Drift, "Standard.configure would change 1 task(s)") || rs.Status != "active" {
		t.Errorf("after the hand edit: status %q, drift %q, want active with Standard.configure's predicted change", rs.Status, rs.Drift)
	}
	if data, err := os.ReadFile(s.conf); err != nil || string(data) != "setting=2 by hand\n" {
		t.Errorf("app.conf after the drift check: %q, %v; want the hand edit kept", data, err)
	}
	// The next check finds the same drift: status still shows it, it is
	// not reported again.
	next := s.h.status("app").NextDriftCheck
	if next == nil {
		t.Fatal("no next drift check")
	}
	s.h.advanceTo(*next)
	if rs := s.h.status("app"); !strings.Contains(rs.Drift, "Standard.configure would change 1 task(s)") || !rs.LastDriftCheck.Equal(*next) {
		t.Errorf("at the next check: drift %q, last check %v", rs.Drift, rs.LastDriftCheck)
	}
	s.checkReported(t)
}

// TestCheckDriftRepair: with CheckDriftRepair, the drift is recorded as a
// failed health check is, and the reconcile that follows runs the
// playbook again, which puts the file back; the drift is then cleared.
func TestCheckDriftRepair(t *testing.T) {
	s := newDriftStack(t, true, "", 2*time.Minute)
	s.startInLine(t)
	s.checkReported(t)
	if data, err := os.ReadFile(s.conf); err != nil || string(data) != "setting=1\n" {
		t.Errorf("app.conf after the repair: %q, %v; want the playbook's", data, err)
	}
	if rs := s.h.status("app"); rs.Drift != "" || rs.Status != "active" || rs.Failures != 0 {
		t.Errorf("after the repair: %+v", rs)
	}
}

// TestCheckDriftTimeout: a check-mode run that outlasts
// CheckDriftTimeout is stopped (the playbook pauses ten minutes, in check mode
// only), reported as a check that could not run, not as drift, and the
// engine goes on.
func TestCheckDriftTimeout(t *testing.T) {
	wait := "    - pause:\n        seconds: 600\n      when: ansible_check_mode\n"
	s := newDriftStack(t, true, wait, 2*time.Second)
	next := s.h.start()
	s.h.advanceTo(next)
	rs := s.h.status("app")
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.drifts) != 0 || rs.Drift != "" || rs.LastDriftCheck != nil || rs.NextDriftCheck == nil || rs.NextDriftCheck.Sub(clockStart) != 15*time.Minute {
		t.Errorf("a check that timed out: %d drift events, %+v", len(s.drifts), rs)
	}
}

// TestCheckDriftStopsWithSync: stopping the engine while a check-mode run
// pauses (ten minutes, CheckDriftTimeout far away) stops the run: Run
// returns and the run's folder is removed.
func TestCheckDriftStopsWithSync(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the driver makes each run's folder
	wait := "    - pause:\n        seconds: 600\n      when: ansible_check_mode\n"
	s := newDriftStack(t, false, wait, time.Hour)
	next := s.h.start()
	runs := func() int {
		found, _ := filepath.Glob(filepath.Join(tmp, "xosplan-ansible-*"))
		return len(found)
	}
	s.h.clock.set(next)
	testutil.WaitFor(t, 2*time.Minute, "the drift check's run to start", func() bool { return runs() > 0 })
	stopped := make(chan struct{})
	go func() {
		s.h.stop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the engine did not stop during a drift check")
	}
	if n := runs(); n != 0 {
		t.Errorf("%d run folders left after the stop", n)
	}
}

// metricValue is the value of the counter name in m's text exposition.
func metricValue(t *testing.T, m *Metrics, name string) string {
	t.Helper()
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) == 1 {
			return strconv.FormatFloat(f.GetMetric()[0].GetCounter().GetValue(), 'g', -1, 64)
		}
	}
	return "missing"
}
