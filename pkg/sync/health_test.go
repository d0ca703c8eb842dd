//go:build unix

package sync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	stdsync "sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver/exec"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// timedDriver records each action with the fake clock's time and hands it
// to the exec driver it wraps, whose other methods (the source folder it
// records) it keeps.
type timedDriver struct {
	*exec.Driver
	clock *fakeClock
	mu    stdsync.Mutex
	calls []call
}

func (d *timedDriver) Apply(ctx context.Context, req executor.Request) (executor.Outcome, error) {
	d.mu.Lock()
	d.calls = append(d.calls, call{req.Action, req.Address, d.clock.Now().Sub(clockStart)})
	d.mu.Unlock()
	return d.Driver.Apply(ctx, req)
}

func (d *timedDriver) callsOf(addr string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, c := range d.calls {
		if c.addr == addr {
			out = append(out, fmt.Sprintf("%s@%s", c.action, c.at))
		}
	}
	return out
}

// TestTOSCAHealthCheckRunsOnItsOwnInterval: two TOSCA resources as
// pkg/tosca compiles them (the exec driver, Standard.create, the health
// check of an xosplan.interfaces.Health interface as graph.OpHealthCheck),
// db with metadata xosplan.health_interval 5m (graph.OptionHealthInterval),
// web with none. web is checked every minute (--health-interval), db
// every 5 minutes; db's object, deleted behind sync's back, is reported
// missing by its check and created again at once.
func TestTOSCAHealthCheckRunsOnItsOwnInterval(t *testing.T) {
	if OptionHealthInterval != graph.OptionHealthInterval {
		t.Fatalf("pkg/sync reads %q, pkg/tosca writes %q", OptionHealthInterval, graph.OptionHealthInterval)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"create.sh": `touch "$XOSPLAN_ADDRESS.obj"`,
		"check.sh":  `[ -e "$XOSPLAN_ADDRESS.obj" ] || echo "status=missing" >> "$XOSPLAN_OUTPUTS"`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clock := newFakeClock()
	drv := &timedDriver{Driver: exec.New(executor.DriverOptions{Timeout: 20 * time.Second}), clock: clock}
	reg := executor.Registry{graph.DriverExec: drv}
	goal := func(context.Context) (*Goal, diag.Diagnostics, error) {
		g := graph.New()
		for _, addr := range []string{"db", "web"} {
			r := &graph.Resource{Address: addr, Type: "tosca.nodes.Root", Management: graph.Managed, Spec: map[string]graph.Value{},
				Range: diag.Range{File: filepath.Join(dir, "stack.yaml")},
				Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{
					"Standard.create": {Implementation: "create.sh"}, graph.OpHealthCheck: {Implementation: "check.sh"}}}}
			if addr == "db" {
				r.Driver.Options = map[string]graph.Value{graph.OptionHealthInterval: "5m"}
			}
			if err := g.AddResource(r); err != nil {
				return nil, nil, err
			}
		}
		return &Goal{Desired: g, Drivers: reg, Plan: planner.Options{InputDigests: map[string]string{"stack.yaml": "v1"}}}, nil, nil
	}
	store := lockedStore(t)
	h := &harness{t: t, clock: clock, store: store, idle: make(chan time.Time),
		e: New(Options{Goal: goal, Store: store, Drivers: reg, Clock: clock, Rand: func() float64 { return 0.5 },
			HealthInterval: time.Minute, Apply: executor.Options{ProgressInterval: -1}})}
	next := h.start()
	if err := os.Remove(filepath.Join(dir, "db.obj")); err != nil {
		t.Fatal(err)
	}
	// The first checks are spread over each one's interval (half of it
	// with this Rand), then come every interval (no jitter at its middle).
	for next.Sub(clockStart) <= 8*time.Minute {
		next = h.advanceTo(next)
	}
	wantWeb := []string{"create@0s"}
	for at := 30 * time.Second; at <= 8*time.Minute; at += time.Minute {
		wantWeb = append(wantWeb, "health@"+at.String())
	}
	if got := drv.callsOf("web"); !slices.Equal(got, wantWeb) {
		t.Errorf("web calls %v, want %v", got, wantWeb)
	}
	// Without Standard.configure the missing object is replaced.
	wantDB := []string{"create@0s", "health@2m30s", "delete@2m30s", "create@2m30s", "health@7m30s"}
	if got := drv.callsOf("db"); !slices.Equal(got, wantDB) {
		t.Errorf("db calls %v, want %v", got, wantDB)
	}
	if _, err := os.Stat(filepath.Join(dir, "db.obj")); err != nil {
		t.Errorf("db was not created again: %v", err)
	}
	if rs := h.status("db"); rs.Status != "active" || rs.NextCheck == nil || rs.NextCheck.Sub(clockStart) != 12*time.Minute+30*time.Second {
		t.Errorf("db after the repair: %+v", rs)
	}
	loaded, err := store.LoadWithJournal(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range loaded.State.Resources {
		if r.Feedback.BackendCode != state.BackendOK {
			t.Errorf("%s recorded %s", r.Address, r.Feedback.BackendStatus)
		}
	}
}
