package sync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	stdsync "sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// fakeDriver actuates resources in memory: each address may be told to
// fail its next n actions (or to fail as a missing script does), and its
// object may vanish, which its health check then reports.
type fakeDriver struct {
	clock *fakeClock
	mu    stdsync.Mutex
	fail  map[string]int
	needs map[string]bool
	gone  map[string]bool
	// converging: the health check reports the object still converging.
	converging map[string]bool
	// report is what a create or update reports of an address, as
	// attributes.
	report map[string]map[string]graph.Value
	calls  []call
}

type call struct {
	action, addr string
	at           time.Duration // since the fake clock's start
}

var clockStart = newFakeClock().Now()

func (d *fakeDriver) Apply(_ context.Context, req executor.Request) (executor.Outcome, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, call{req.Action, req.Address, d.clock.Now().Sub(clockStart)})
	ok := executor.Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, BackendStatus: "ok", Status: state.Status{Active: true}}}
	switch req.Action {
	case executor.ActionHealth:
		if d.gone[req.Address] {
			return executor.Outcome{Feedback: state.Feedback{Status: state.Status{Failed: true, Message: "instance vanished"}}}, nil
		}
		if d.converging[req.Address] {
			return executor.Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Converging: true}}}, nil
		}
		return ok, nil
	case executor.ActionDelete:
		delete(d.gone, req.Address)
		return executor.Outcome{Gone: true}, nil
	case executor.ActionDiscover:
		return executor.Outcome{Discovered: []executor.Discovered{{NaturalID: "i-handmade", Name: "handmade",
			Feedback: state.Feedback{Status: state.Status{Active: true}}}}}, nil
	}
	bad := executor.Outcome{Feedback: state.Feedback{BackendCode: state.BackendError}}
	if d.needs[req.Address] {
		return bad, fmt.Errorf("script /x/launch.py is missing: %w", executor.ErrNeedsChange)
	}
	if d.fail[req.Address] > 0 {
		d.fail[req.Address]--
		return bad, errors.New("the cloud said no")
	}
	delete(d.gone, req.Address)
	ok.Feedback.Attributes = d.report[req.Address]
	return ok, nil
}

// callsOf lists the action@time of each call for addr (of the given
// actions only, when some are given).
func (d *fakeDriver) callsOf(addr string, actions ...string) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for _, c := range d.calls {
		if c.addr == addr && (len(actions) == 0 || slices.Contains(actions, c.action)) {
			out = append(out, fmt.Sprintf("%s@%s", c.action, c.at))
		}
	}
	return out
}

// stack is a goal of resources on the fake driver: deps maps an address
// to those it depends on. digest stands for the configuration's inputs.
type stack struct {
	mu     stdsync.Mutex
	addrs  []string
	deps   map[string][]string
	digest string
	errs   bool
	// schedules gives a factory its discovery schedule; specs overrides
	// the digest in one resource's spec.
	schedules map[string]string
	specs     map[string]string
	drv       executor.Registry
	// held are the addresses an error of the configuration holds, with
	// the error's summary; dropped are left out of the graph (templates
	// that do not compile at all).
	held    map[string]string
	dropped []string
	// policed stands for model policies: the addresses they read, whose
	// feedback they read when true; policedFrom, when set, is the state
	// their changed_by_step is read from, as workflow.PolicyFeedback does.
	policed     map[string]bool
	policedFrom *state.File
	goals       int
}

func (s *stack) goal(context.Context) (*Goal, diag.Diagnostics, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errs {
		var diags diag.Diagnostics
		return nil, diags.Errorf(diag.Range{}, "", "test.bad", "broken"), nil
	}
	g := graph.New()
	for _, a := range s.addrs {
		if slices.Contains(s.dropped, a) {
			continue
		}
		v := s.digest
		if o, ok := s.specs[a]; ok {
			v = o
		}
		_ = g.AddResource(&graph.Resource{Address: a, Type: "T", Management: graph.Managed, Spec: map[string]graph.Value{"v": v},
			Driver: graph.Driver{Name: "fake", Operations: map[string]graph.Operation{
				graph.OpLaunch: {Implementation: "/x/launch.py"}, graph.OpHealthCheck: {Implementation: "/x/health.py"}}}})
	}
	for a, expr := range s.schedules {
		r, _ := g.Resource(a)
		r.Driver.Options = map[string]graph.Value{graph.OptionDiscoverySchedule: expr}
		r.Driver.Operations = map[string]graph.Operation{graph.OpLaunch: {Implementation: "/x/launch.py"}, graph.OpDiscovery: {Implementation: "/x/discover.py"}}
	}
	for a, ds := range s.deps {
		for _, d := range ds {
			_ = g.AddEdge(graph.Edge{Source: a, Target: d, Kind: graph.DependsOn})
		}
	}
	s.goals++
	if len(s.policed) > 0 {
		g.Policed = map[string]graph.PolicedRead{}
		var st *state.State
		if s.policedFrom != nil {
			st, _ = s.policedFrom.Read(context.Background())
		}
		for a, fb := range s.policed {
			pr := graph.PolicedRead{Feedback: fb}
			if st != nil {
				if r, ok := st.Lookup(a); ok {
					pr.Step = r.CurrentVersions().ChangedByStep
				}
			}
			g.Policed[a] = pr
		}
	}
	goal := &Goal{Desired: g, Drivers: s.drv, Plan: planner.Options{InputDigests: map[string]string{"stack.yaml": s.digest}}}
	var diags diag.Diagnostics
	for i, a := range slices.Sorted(maps.Keys(s.held)) {
		diags = diags.Errorf(diag.Range{File: "stack.yaml", Start: diag.Pos{Line: 3 + i, Column: 5}}, "", "test.bad", "%s", s.held[a])
		if goal.Held == nil {
			goal.Held = map[string]diag.Diagnostics{}
		}
		goal.Held[a] = diags[len(diags)-1:]
	}
	return goal, diags, nil
}

// harness runs an engine on the fake clock; idle receives the engine's
// next wake-up each time it waits.
type harness struct {
	t     *testing.T
	clock *fakeClock
	drv   *fakeDriver
	stack *stack
	e     *Engine
	store *state.File
	idle  chan time.Time
	stop  func()
}

// lockedStore returns a new state file whose lock is held until the test
// ends, as sync holds it.
func lockedStore(tb testing.TB) *state.File {
	tb.Helper()
	store, err := state.OpenFile(filepath.Join(tb.TempDir(), "xosplan.state.json"), state.FileOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	held, err := store.Lock(context.Background(), state.LockInfo{Operation: "sync"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = held.Unlock() })
	return store
}

func newHarness(t *testing.T, addrs []string, deps map[string][]string, tune func(*Options)) *harness {
	t.Helper()
	clock := newFakeClock()
	drv := &fakeDriver{clock: clock, fail: map[string]int{}, needs: map[string]bool{}, gone: map[string]bool{}, converging: map[string]bool{}}
	reg := executor.Registry{"fake": drv}
	st := &stack{addrs: addrs, deps: deps, digest: "v1", drv: reg}
	store := lockedStore(t)
	opts := Options{Goal: st.goal, Store: store, Drivers: reg, Clock: clock, Rand: func() float64 { return 0.5 },
		Apply: executor.Options{ProgressInterval: -1}}
	if tune != nil {
		tune(&opts)
	}
	return &harness{t: t, clock: clock, drv: drv, stack: st, store: store, e: New(opts), idle: make(chan time.Time)}
}

// start runs the engine and returns its first idle wake-up time.
func (h *harness) start() time.Time {
	ctx, cancel := context.WithCancel(context.Background())
	h.e.onIdle = func(ctx context.Context, next time.Time) {
		select {
		case h.idle <- next:
		case <-ctx.Done():
		}
	}
	done := make(chan error, 1)
	go func() { done <- h.e.Run(ctx) }()
	var once stdsync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				h.t.Errorf("Run: %v", err)
			}
		})
	}
	h.t.Cleanup(h.stop)
	return h.wait()
}

func (h *harness) wait() time.Time {
	h.t.Helper()
	select {
	case next := <-h.idle:
		return next
	case <-time.After(30 * time.Second):
		h.t.Fatal("the engine did not become idle")
		return time.Time{}
	}
}

// advanceTo moves the fake time to at (the engine's next wake-up) and
// waits for the engine to be idle again.
func (h *harness) advanceTo(at time.Time) time.Time {
	h.t.Helper()
	h.clock.set(at)
	return h.wait()
}

func (h *harness) status(addr string) ResourceStatus {
	rs, _ := h.e.Resource(addr)
	return rs
}

// TestFailedResourceIsRetriedAtGrowingIntervalsWhileOthersApply: db fails
// three times; it is retried 30 s, 60 s and 120 s (the jitter at its
// middle) after each failure, app (which needs it) waits and names it,
// cache (independent) is applied at once, and app is applied in the
// reconcile where db finally succeeds.
func TestFailedResourceIsRetriedAtGrowingIntervalsWhileOthersApply(t *testing.T) {
	h := newHarness(t, []string{"app", "cache", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.drv.fail["db"] = 3
	next := h.start()
	if got := h.drv.callsOf("cache"); len(got) != 1 || got[0] != "create@0s" {
		t.Fatalf("cache: %v, want created at once", got)
	}
	rs := h.status("app")
	if rs.WaitingOn != "db" || h.drv.callsOf("app") != nil {
		t.Fatalf("app: waiting on %q (%s), calls %v; want waiting on db, not run", rs.WaitingOn, rs.Waiting, h.drv.callsOf("app"))
	}
	if db := h.status("db"); db.Failures != 1 || db.NextRetry == nil || db.LastError == "" {
		t.Fatalf("db: %+v", db)
	}
	for _, want := range []time.Duration{30 * time.Second, 90 * time.Second, 210 * time.Second} {
		if got := next.Sub(clockStart); got != want {
			t.Fatalf("next wake-up at %s, want %s", got, want)
		}
		next = h.advanceTo(next)
	}
	// A failed create is replaced: delete, then create, as apply does.
	if got, want := h.drv.callsOf("db", "create"), []string{"create@0s", "create@30s", "create@1m30s", "create@3m30s"}; !slices.Equal(got, want) {
		t.Errorf("db calls %v, want %v", got, want)
	}
	if got := h.drv.callsOf("app"); len(got) != 1 || got[0] != "create@3m30s" {
		t.Errorf("app calls %v, want one create when db succeeded", got)
	}
	if rs := h.status("app"); rs.WaitingOn != "" || rs.Status != "active" {
		t.Errorf("app after db succeeded: %+v", rs)
	}
	if got := h.drv.callsOf("cache"); len(got) != 1 {
		t.Errorf("cache ran again: %v", got)
	}
}

// TestRetryIntervalStopsGrowingAtRetryMax: the doubling stops at
// --retry-max.
func TestRetryIntervalStopsGrowingAtRetryMax(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) {
		o.RetryBase, o.RetryMax, o.HealthInterval = 30*time.Second, 100*time.Second, 100*time.Hour
	})
	h.drv.fail["db"] = 5
	next := h.start()
	var gaps []time.Duration
	prev := h.clock.Now()
	for range 4 {
		gaps = append(gaps, next.Sub(prev))
		prev = next
		next = h.advanceTo(next)
	}
	if want := []time.Duration{30 * time.Second, 60 * time.Second, 100 * time.Second, 100 * time.Second}; !slices.Equal(gaps, want) {
		t.Errorf("retry intervals %v, want %v", gaps, want)
	}
}

// TestFailureThatNeedsAChangeWaitsForIt: a missing script is not retried
// on a timer; the resource and its dependent wait, and the next change of
// the configuration runs it again.
func TestFailureThatNeedsAChangeWaitsForIt(t *testing.T) {
	h := newHarness(t, []string{"app", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = time.Hour })
	h.drv.needs["db"] = true
	h.start()
	// Hours pass: health checks and nothing else.
	for range 3 {
		h.advanceTo(h.clock.Now().Add(time.Hour))
	}
	if got := h.drv.callsOf("db", "create"); len(got) != 1 {
		t.Fatalf("db was retried without a change: %v", got)
	}
	if rs := h.status("db"); rs.NextRetry != nil || rs.Waiting == "" {
		t.Errorf("db: %+v, want waiting for a change and no retry", rs)
	}
	if rs := h.status("app"); rs.WaitingOn != "db" {
		t.Errorf("app waits on %q", rs.WaitingOn)
	}
	// A trigger whose compile finds no change does not run it either.
	h.e.ConfigurationChanged("webhook")
	h.wait()
	if got := h.drv.callsOf("db", "create"); len(got) != 1 {
		t.Fatalf("db was retried on a trigger without a change: %v", got)
	}
	h.drv.mu.Lock()
	h.drv.needs["db"] = false
	h.drv.mu.Unlock()
	h.stack.mu.Lock()
	h.stack.digest = "v2"
	h.stack.mu.Unlock()
	h.e.ConfigurationChanged("file changed")
	h.wait()
	if got := h.drv.callsOf("app"); len(got) != 1 {
		t.Errorf("app after the change: %v", got)
	}
	if rs := h.status("db"); rs.Status != "active" || rs.Waiting != "" {
		t.Errorf("db after the change: %+v", rs)
	}
}

// TestInvalidConfigurationWaitsForAChange: diagnostics with errors stop
// reconciles until the configuration changes; nothing is applied.
func TestInvalidConfigurationWaitsForAChange(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, nil)
	h.stack.errs = true
	if next := h.start(); next.Sub(clockStart) > 10*time.Hour+time.Minute {
		t.Errorf("next wake-up %s", next.Sub(clockStart))
	}
	st := h.e.Status()
	if st.LastOutcome != OutcomeInvalid || len(st.Diagnostics) != 1 || st.Ready {
		t.Fatalf("status: %+v", st)
	}
	h.e.ConfigurationChanged("webhook")
	h.wait()
	if h.drv.callsOf("db") != nil {
		t.Fatal("an invalid configuration was applied")
	}
	h.stack.mu.Lock()
	h.stack.errs = false
	h.stack.mu.Unlock()
	h.e.ConfigurationChanged("file changed")
	h.wait()
	if got := h.drv.callsOf("db"); len(got) != 1 || !h.e.Status().Ready {
		t.Errorf("after the fix: calls %v, status %+v", got, h.e.Status())
	}
}

// TestVanishedInstanceIsRepairedAfterItsHealthCheck: the health check
// runs on its interval (a per-resource override for one), finds the
// object gone, and the reconcile that follows creates it again.
func TestVanishedInstanceIsRepairedAfterItsHealthCheck(t *testing.T) {
	h := newHarness(t, []string{"db", "web"}, nil, func(o *Options) { o.HealthInterval = time.Minute })
	h.start()
	h.drv.mu.Lock()
	h.drv.gone["db"] = true
	h.drv.mu.Unlock()
	// The first checks are spread over the first interval (half of it
	// with this Rand), then come every interval.
	h.advanceTo(clockStart.Add(30 * time.Second))
	// The failed instance is replaced, as apply replaces it.
	if got := h.drv.callsOf("db"); !slices.Equal(got, []string{"create@0s", "health@30s", "delete@30s", "create@30s"}) {
		t.Fatalf("db calls %v, want a health check then a replacement", got)
	}
	if got := h.drv.callsOf("web"); !slices.Equal(got, []string{"create@0s", "health@30s"}) {
		t.Errorf("web calls %v", got)
	}
	if rs := h.status("db"); rs.Status != "active" || rs.LastCheck == nil || rs.NextCheck == nil || rs.NextCheck.Sub(clockStart) != 90*time.Second {
		t.Errorf("db after the repair: %+v", rs)
	}
	var drift bool
	for _, a := range h.status("db").Activity {
		drift = drift || a.Type == EventDrift
	}
	if !drift {
		t.Errorf("db's activity has no drift: %+v", h.status("db").Activity)
	}
}

// TestCheckOnRequestRunsAtOnce: POST /v1/resources/{addr}/check's path.
func TestCheckOnRequestRunsAtOnce(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	h.start()
	if err := h.e.Check("nope"); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("Check(nope) = %v", err)
	}
	if err := h.e.Check("db"); err != nil {
		t.Fatal(err)
	}
	h.wait()
	if got := h.drv.callsOf("db"); !slices.Equal(got, []string{"create@0s", "health@0s"}) {
		t.Errorf("db calls %v", got)
	}
}

// TestResyncIsPersistedAndARestartWaitsForItsTurn: the full check runs
// within a tenth of --resync on a state that never had one, its time is
// kept in the state, and an engine started afterwards schedules the next
// one from it rather than at once.
func TestResyncIsPersistedAndARestartWaitsForItsTurn(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = 100 * time.Hour; o.Resync = 10 * time.Hour })
	next := h.start()
	// Rand 0.5: half of a tenth of 10 h.
	if got := next.Sub(clockStart); got != 30*time.Minute {
		t.Fatalf("first resync at %s, want 30m", got)
	}
	next = h.advanceTo(next)
	st, err := h.store.Read(context.Background())
	if err != nil || st.Sync == nil || !st.Sync.LastResync.Equal(clockStart.Add(30*time.Minute)) {
		t.Fatalf("state's sync record: %+v (%v)", st.Sync, err)
	}
	if got := next.Sub(clockStart); got != 30*time.Minute+10*time.Hour {
		t.Errorf("next resync at %s", got)
	}
	if got := h.drv.callsOf("db"); !slices.Equal(got, []string{"create@0s", "health@30m0s"}) {
		t.Errorf("db calls %v", got)
	}
	h.stop()

	// A restart two hours later: the next resync is 10 h after the last.
	again := New(h.e.opts)
	h.e = again
	h.clock.set(clockStart.Add(150 * time.Minute))
	next = h.start()
	if got := next.Sub(clockStart); got != 30*time.Minute+10*time.Hour {
		t.Errorf("after a restart, next resync at %s", got)
	}
}

// TestDiscoveryRunsOnTheFactorySchedule: a factory's discovery runs at
// each firing of its Quartz schedule (every 10 seconds here), and what it
// finds is recorded on the factory and shown in its status.
func TestDiscoveryRunsOnTheFactorySchedule(t *testing.T) {
	h := newHarness(t, []string{"factory"}, nil, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.stack.schedules = map[string]string{"factory": "*/10 * * * * ?"}
	next := h.start()
	if got := next.Sub(clockStart); got != 10*time.Second {
		t.Fatalf("first discovery at %s, want 10s", got)
	}
	next = h.advanceTo(next)
	next = h.advanceTo(next)
	if got := h.drv.callsOf("factory", "discover"); !slices.Equal(got, []string{"discover@10s", "discover@20s"}) {
		t.Errorf("discoveries %v", got)
	}
	if got := next.Sub(clockStart); got != 30*time.Second {
		t.Errorf("next discovery at %s", got)
	}
	rs := h.status("factory")
	if !strings.Contains(fmt.Sprint(rs.Discovered), "i-handmade") || rs.NextDiscovery == nil {
		t.Errorf("factory status: %+v", rs)
	}
	st, err := h.store.Read(context.Background())
	if err != nil || !strings.Contains(fmt.Sprint(st.Resources[0].Feedback.Attributes[executor.AttrDiscovered]), "i-handmade") {
		t.Errorf("recorded: %+v (%v)", st.Resources, err)
	}
}

// TestConvergingResourceHoldsItsDependents: a health check finds db
// converging again (ORC: not ready); a change of app, which depends on
// it, waits without error, naming db, until the next health check finds
// db active, and is applied in the reconcile that follows.
func TestConvergingResourceHoldsItsDependents(t *testing.T) {
	h := newHarness(t, []string{"app", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = time.Minute })
	h.start()
	h.drv.mu.Lock()
	h.drv.converging["db"] = true
	h.drv.mu.Unlock()
	h.advanceTo(clockStart.Add(30 * time.Second))
	if rs := h.status("db"); rs.Status != "converging" {
		t.Fatalf("db after its check: %+v", rs)
	}
	// app changes; db does not (its spec is its own).
	h.stack.mu.Lock()
	h.stack.specs = map[string]string{"app": "v2"}
	h.stack.mu.Unlock()
	h.e.ConfigurationChanged("edit")
	h.wait()
	if got := h.drv.callsOf("app", "create"); len(got) != 1 {
		t.Fatalf("app was replaced while db converges: %v", got)
	}
	if rs := h.status("app"); rs.WaitingOn != "db" || rs.LastError != "" {
		t.Errorf("app: %+v, want waiting on db without error", rs)
	}
	h.drv.mu.Lock()
	h.drv.converging["db"] = false
	h.drv.mu.Unlock()
	h.advanceTo(clockStart.Add(90 * time.Second))
	// The fake driver cannot update in place: the change is a replacement.
	if got := h.drv.callsOf("app", "create"); !slices.Equal(got, []string{"create@0s", "create@1m30s"}) {
		t.Errorf("app creates %v, want the replacement when db became active", got)
	}
}

// TestHeldResourcesWaitWhileOthersApply: an error of the configuration
// that belongs to db holds db and app (which depends on it) while cache
// and the new web are reconciled; cache's template failing to compile
// (left out of the graph) does not delete it. The fix applies what was
// held.
func TestHeldResourcesWaitWhileOthersApply(t *testing.T) {
	h := newHarness(t, []string{"app", "cache", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.start()
	for _, a := range []string{"app", "cache", "db"} {
		if rs := h.status(a); rs.Status != "active" {
			t.Fatalf("%s: %+v, want active", a, rs)
		}
	}
	h.stack.mu.Lock()
	h.stack.addrs = []string{"app", "cache", "db", "web"}
	h.stack.digest = "v2"
	h.stack.held = map[string]string{"db": "db's property is bad"}
	h.stack.dropped = []string{"cache"}
	h.stack.mu.Unlock()
	h.e.ConfigurationChanged("test")
	h.wait()
	if got := h.drv.callsOf("web"); len(got) != 1 {
		t.Errorf("web: %v, want created while db is held", got)
	}
	if got := h.drv.callsOf("db"); len(got) != 1 {
		t.Errorf("db: %v, want only its first create: it is held", got)
	}
	if got := h.drv.callsOf("app"); len(got) != 1 {
		t.Errorf("app: %v, want only its first create: it waits on db", got)
	}
	if got := h.drv.callsOf("cache"); len(got) != 1 {
		t.Errorf("cache: %v, want only its first create: never deleted while the configuration has errors", got)
	}
	db := h.status("db")
	if want := "held by an error of the configuration: stack.yaml:3:5: db's property is bad [test.bad]"; db.Waiting != want {
		t.Errorf("db waiting %q, want %q", db.Waiting, want)
	}
	if len(db.ConfigurationErrors) != 1 || db.ConfigurationErrors[0].Code != "test.bad" || db.ConfigurationErrors[0].At != "stack.yaml:3:5" {
		t.Errorf("db configuration errors %+v", db.ConfigurationErrors)
	}
	if !slices.ContainsFunc(db.Activity, func(a Activity) bool { return a.Type == EventHeld }) {
		t.Errorf("db activity %+v, want a held event", db.Activity)
	}
	if app := h.status("app"); app.WaitingOn != "db" || app.Waiting != "waits for a fix of the configuration of db" {
		t.Errorf("app: waiting on %q: %q", app.WaitingOn, app.Waiting)
	}
	if c := h.status("cache"); c.Status != "active" || c.Waiting != "its deletion waits until the configuration has no errors" {
		t.Errorf("cache: %+v", c)
	}

	h.stack.mu.Lock()
	h.stack.held, h.stack.dropped = nil, []string{"cache"}
	h.stack.mu.Unlock()
	h.e.ConfigurationChanged("test")
	h.wait()
	// The fake driver has no update: a changed spec is a replacement.
	if got := h.drv.callsOf("db", "create"); len(got) != 2 {
		t.Errorf("db after the fix: %v, want applied again", h.drv.callsOf("db"))
	}
	if got := h.drv.callsOf("app", "create"); len(got) != 2 {
		t.Errorf("app after the fix: %v, want applied again", h.drv.callsOf("app"))
	}
	if got := h.drv.callsOf("cache", executor.ActionDelete); len(got) != 1 {
		t.Errorf("cache after the fix: %v, want deleted now that the configuration has no errors", h.drv.callsOf("cache"))
	}
	if db := h.status("db"); db.Waiting != "" || db.ConfigurationErrors != nil {
		t.Errorf("db after the fix: %+v", db)
	}
}
