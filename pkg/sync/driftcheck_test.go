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

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// TestCheckDriftReportsAHandEditWithoutChangingIt: with CheckDrift, a
// resource whose Standard.configure is a playbook (a real ansible-playbook
// on the local connection) is checked in check mode every interval. In
// line, it has no drift; after its file is changed by hand, the next check
// reports the drift (an EventDrift, its status, the drift metric) and
// leaves the file as the hand left it.
func TestCheckDriftReportsAHandEditWithoutChangingIt(t *testing.T) {
	if _, err := osexec.LookPath("ansible-playbook"); err != nil {
		t.Skip("ansible-playbook is not installed (make test-deps installs ansible-core)")
	}
	t.Setenv("HOME", t.TempDir()) // Ansible keeps its own files under ~/.ansible
	dir, out := t.TempDir(), t.TempDir()
	conf := filepath.Join(out, "app.conf")
	playbook := "- hosts: all\n  gather_facts: false\n  tasks:\n    - name: write the configuration\n      copy:\n        dest: \"{{ path }}\"\n        content: \"setting=1\\n\"\n"
	if err := os.WriteFile(filepath.Join(dir, "configure.yml"), []byte(playbook), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := workflow.Drivers(executor.DriverOptions{Timeout: 2 * time.Minute})
	goal := func(context.Context) (*Goal, diag.Diagnostics, error) {
		g := graph.New()
		err := g.AddResource(&graph.Resource{Address: "app", Type: "tosca.nodes.SoftwareComponent", Management: graph.Managed,
			Spec: map[string]graph.Value{}, Range: diag.Range{File: filepath.Join(dir, "stack.yaml")},
			Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{
				"Standard.configure": {Implementation: "configure.yml", Inputs: map[string]graph.Value{"path": conf}}}}})
		return &Goal{Desired: g, Drivers: reg, Plan: planner.Options{InputDigests: map[string]string{"stack.yaml": "v1"}}}, nil, err
	}
	var mu stdsync.Mutex
	var drifts []Event
	clock := newFakeClock()
	store := lockedStore(t)
	metrics := NewMetrics()
	h := &harness{t: t, clock: clock, store: store, idle: make(chan time.Time),
		e: New(Options{Goal: goal, Store: store, Drivers: reg, Clock: clock, Rand: func() float64 { return 0.5 },
			Resync: 1000 * time.Hour, CheckDrift: 10 * time.Minute, CheckDriftTimeout: 2 * time.Minute, Metrics: metrics,
			Apply: executor.Options{ProgressInterval: -1},
			Events: func(ev Event) {
				if ev.Type == EventDrift {
					mu.Lock()
					drifts = append(drifts, ev)
					mu.Unlock()
				}
			}})}
	next := h.start()
	if data, err := os.ReadFile(conf); err != nil || string(data) != "setting=1\n" {
		t.Fatalf("after the first reconcile app.conf is %q, %v", data, err)
	}
	// The first drift check comes within the interval (half of it with
	// this Rand).
	if got := next.Sub(clockStart); got != 5*time.Minute {
		t.Fatalf("first wake-up at %s, want the drift check at 5m", got)
	}
	next = h.advanceTo(next)
	rs := h.status("app")
	if rs.LastDriftCheck == nil || rs.Drift != "" || len(drifts) != 0 {
		t.Fatalf("in line: last drift check %v, drift %q, events %v", rs.LastDriftCheck, rs.Drift, drifts)
	}
	if got := next.Sub(clockStart); got != 15*time.Minute {
		t.Fatalf("next wake-up at %s, want the next drift check at 15m", got)
	}

	if err := os.WriteFile(conf, []byte("setting=2 by hand\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.advanceTo(next)
	rs = h.status("app")
	if !strings.Contains(rs.Drift, "Standard.configure would change 1 task(s)") {
		t.Errorf("after the hand edit: drift %q, want Standard.configure's predicted change", rs.Drift)
	}
	mu.Lock()
	if len(drifts) != 1 || drifts[0].Address != "app" || !strings.Contains(drifts[0].Message, "changed outside xosplan: check mode:") {
		t.Errorf("drift events %+v, want one for app", drifts)
	}
	mu.Unlock()
	var activity bool
	for _, a := range rs.Activity {
		activity = activity || a.Type == EventDrift
	}
	if !activity {
		t.Errorf("app's activity has no drift: %+v", rs.Activity)
	}
	if got := metricValue(t, metrics, "xosplan_sync_drift_total"); got != "1" {
		t.Errorf("xosplan_sync_drift_total = %s, want 1", got)
	}
	if data, err := os.ReadFile(conf); err != nil || string(data) != "setting=2 by hand\n" {
		t.Errorf("the drift check changed app.conf: %q, %v", data, err)
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
