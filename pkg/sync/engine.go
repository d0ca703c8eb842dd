package sync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	stdsync "sync"
	"time"

	"github.com/xosplan/xosplan/internal/quartz"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Defaults of Options.
const (
	DefaultRetryBase      = 30 * time.Second
	DefaultRetryMax       = time.Hour
	DefaultHealthInterval = time.Minute
	DefaultResync         = 10 * time.Hour
)

// OptionHealthInterval is the driver option (a Go duration, "5m") that
// overrides the health-check interval of one resource; pkg/manifest
// writes it from a component's factory.healthCheckInterval, pkg/tosca
// from a node template's metadata xosplan.health_interval.
const OptionHealthInterval = graph.OptionHealthInterval

// jitterFraction is how far a scheduled time may move either way, so
// that many resources failing or starting together do not act together.
const jitterFraction = 0.1

// Goal is the configuration a reconcile drives the system to, made by the
// code that `xosplan plan` makes its desired graph with (Options.Goal).
type Goal struct {
	// Desired is the compiled configuration.
	Desired *graph.Graph
	// Plan holds the planner options plan would use: the input digests,
	// configuration paths, salt and placement. The engine adds Excludes.
	Plan planner.Options
	// ScriptRoot and Drivers are what apply would run the plan with.
	ScriptRoot string
	Drivers    executor.Registry
	// Placer claims placements as apply's does; nil claims nothing.
	Placer executor.Placer
	// Held maps the addresses the configuration's errors belong to
	// (workflow.Goal.Held) to those errors: they and what depends on them
	// wait, never deleted, until the configuration changes; the others
	// are reconciled.
	Held map[string]diag.Diagnostics
}

// usable reports whether g can be reconciled with diags: it exists, and
// every error of diags is one its Held names.
func (g *Goal) usable(diags diag.Diagnostics) bool {
	return g != nil && (!diags.HasErrors() || len(g.Held) > 0)
}

// GoalFunc builds the goal from the configuration. Diagnostics with errors
// and no goal, or a goal that holds nothing (Goal.Held), mean the
// configuration is invalid: the engine waits for it to change. With a
// goal that holds resources, the others are reconciled. The error is for
// the environment, and is retried.
type GoalFunc func(ctx context.Context) (*Goal, diag.Diagnostics, error)

// Store is the state backend the engine works on, whose lock the caller
// holds for the engine's lifetime: pkg/state's *File.
type Store interface {
	executor.Store
	executor.OutputStore
}

// Options configure an Engine. Goal, Store and Drivers are required.
type Options struct {
	Goal  GoalFunc
	Store Store
	// Drivers run health checks when there is no goal yet (an invalid
	// configuration); otherwise the goal's drivers run everything.
	Drivers executor.Registry
	// Apply is the template of every apply's options (parallelism,
	// grace, abort, timeouts); the engine sets Events, Desired,
	// ScriptRoot, Placer and Retries (none: it retries itself).
	Apply executor.Options
	// Timeout bounds each health check and discovery; WorkDir is the
	// working folder of a resource that recorded none.
	Timeout time.Duration
	WorkDir string
	// Clock is RealClock() when nil.
	Clock Clock
	// RetryBase is the wait before the first retry of a failed resource,
	// doubled on every failure up to RetryMax, with jitter.
	RetryBase, RetryMax time.Duration
	// HealthInterval is the wait between two health checks of a resource
	// (OptionHealthInterval overrides it per resource), with jitter.
	HealthInterval time.Duration
	// CheckDrift, when positive, is the wait between two drift checks of
	// each configured resource whose driver can predict (Ansible's check
	// mode), with jitter: the operations an update would run, run in
	// check mode, changing nothing; predicted changes are drift. Zero
	// (the default) never runs them: they run playbooks against the
	// hosts.
	CheckDrift time.Duration
	// CheckDriftTimeout bounds each drift check's run;
	// DefaultCheckDriftTimeout when not positive.
	CheckDriftTimeout time.Duration
	// CheckDriftRepair records a resource the drift check found drifted
	// as failed, as a failed health check is, so that the next reconcile
	// runs its playbooks again (its create over the recorded object);
	// without it the drift is reported only.
	CheckDriftRepair bool
	// Resync is the longest time between two checks of every resource and
	// two compiles of the configuration, with jitter; the last one is
	// kept in the state (state.SyncInfo).
	Resync time.Duration
	// Rand returns a number in [0, 1) for jitter; nil: math/rand.
	Rand func() float64
	// Logger receives the engine's log; nil: none.
	Logger *slog.Logger
	// Events receives every event, one at a time; nil: none.
	Events func(Event)
	// Metrics, when set, is kept up to date.
	Metrics *Metrics
	// Cluster, when set, is the cluster of synchronizers this engine leads
	// while Run runs (pkg/sync/pgcluster): the apply walks hand their
	// actions to its members, and Status shows them.
	Cluster Cluster
}

// Cluster is a group of synchronizers that share one state's work: one
// leads (runs the Engine: plans, policies, schedules) and every member,
// the leader included, runs actions. pkg/sync/pgcluster implements it over
// PostgreSQL.
type Cluster interface {
	// Dispatch returns the drivers an apply walk of the leader runs its
	// actions with, which hand each action to a member with the digest of
	// the configuration the goal was compiled from (CheckoutDigest), and
	// how many actions may run at once (the members' parallelism
	// together; 0: the walk's own).
	Dispatch(g *Goal) (executor.Registry, int)
	// Status describes the members and the actions each runs now.
	Status() ClusterStatus
}

func (o Options) withDefaults() Options {
	if o.Clock == nil {
		o.Clock = RealClock()
	}
	if o.RetryBase <= 0 {
		o.RetryBase = DefaultRetryBase
	}
	if o.RetryMax <= 0 {
		o.RetryMax = DefaultRetryMax
	}
	o.RetryMax = max(o.RetryMax, o.RetryBase)
	if o.HealthInterval <= 0 {
		o.HealthInterval = DefaultHealthInterval
	}
	if o.CheckDriftTimeout <= 0 {
		o.CheckDriftTimeout = DefaultCheckDriftTimeout
	}
	if o.Resync <= 0 {
		o.Resync = DefaultResync
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Engine is the synchronizer: it reconciles the recorded state with the
// goal whenever something may have changed, retries failed resources at
// growing intervals, runs health checks, discovery and resyncs on their
// schedules. Run drives it; the other methods are safe to call from any
// goroutine while it runs.
type Engine struct {
	opts Options
	// wake is signalled (never blocking) when there is new work.
	wake chan struct{}
	// onIdle, when set (tests), is called each time the engine waits, with
	// the time it next wakes by itself (zero: never).
	onIdle func(ctx context.Context, next time.Time)

	events broker

	mu stdsync.Mutex // guards what follows
	// goal is the last valid goal; dirty: the configuration may have
	// changed since; fingerprint identifies its inputs.
	goal        *Goal
	reverse     map[string][]string
	dirty       bool
	fingerprint string
	// configDiags are the diagnostics of the last goal built.
	configDiags diag.Diagnostics
	// reasons are why the next reconcile runs; checks are the resources
	// whose health check was asked for.
	reasons map[string]bool
	checks  map[string]bool
	// touches are the resources a resync asked to save without change
	// (Resync), which the next reconcile touches before it plans.
	touches map[string]bool
	// policyRounds counts the reconciles in a row asked for because a
	// step changed feedback a model policy reads (policyFeedbackChanged).
	policyRounds int
	// goalRetry is when a goal that failed for the environment is built
	// again.
	goalRetry time.Time
	tracked   map[string]*tracked
	recorded  *state.State
	// converging are the resources that held their dependents in the
	// last reconcile.
	converging []string
	// nextResync and lastResync schedule the full checks.
	nextResync, lastResync time.Time
	// run is the engine's own summary; history its recent reconciles and
	// drift (History).
	run     runInfo
	history history
	// adopts are the adoptions asked for (Adopt), run by the loop.
	adopts []*adoptRequest
	// observations wait to be recorded (Observe).
	observations []observation
}

// tracked is what the engine knows of one resource beyond the state.
type tracked struct {
	failures     int
	nextRetry    time.Time
	lastError    string
	needsChange  string // the fingerprint it failed with; "" for none
	waitingOn    string
	waitReason   string
	nextCheck    time.Time
	lastCheck    time.Time
	interval     time.Duration
	checkable    bool
	schedule     *quartz.Schedule
	nextDiscover time.Time
	activity     []Activity
	// nextDriftCheck and lastDriftCheck schedule the drift checks
	// (Options.CheckDrift); drift is what the last one predicted would
	// change, "" when nothing.
	nextDriftCheck, lastDriftCheck time.Time
	drift                          string
}

// runInfo summarises the engine's reconciles.
type runInfo struct {
	started       time.Time
	ready         bool
	reconciling   bool
	reconciles    int
	lastReconcile time.Time
	lastSuccess   time.Time
	lastOutcome   string
	lastError     string
}

// Reconcile outcomes (Status.LastOutcome, the metrics' outcome label).
const (
	OutcomeNoChanges = "no_changes"
	OutcomeApplied   = "applied"
	OutcomeFailed    = "failed"
	OutcomeInvalid   = "invalid_configuration"
	OutcomeError     = "error"
	OutcomeStopped   = "interrupted"
)

// New returns an engine with opts; Run starts it.
func New(opts Options) *Engine {
	return &Engine{opts: opts.withDefaults(), wake: make(chan struct{}, 1), reasons: map[string]bool{}, checks: map[string]bool{}, touches: map[string]bool{},
		tracked: map[string]*tracked{}, dirty: true}
}

// ConfigurationChanged asks for a reconcile as soon as the engine is
// free, which compiles the configuration again first: its files (or the
// scripts they name) may have changed. reason says why (a file, a
// webhook, a signal).
func (e *Engine) ConfigurationChanged(reason string) {
	e.mu.Lock()
	e.dirty = true
	// A change from outside gives the model policies that read feedback
	// a new bound (policyFeedbackChanged).
	e.policyRounds = 0
	e.reasons[reason] = true
	e.mu.Unlock()
	e.signal()
}

// ErrUnknownResource is returned for an address the state does not
// record.
var ErrUnknownResource = errors.New("no such resource in the state")

// records reports whether the state records a resource at addr; e.mu is
// held.
func (e *Engine) records(addr string) bool {
	if e.recorded == nil {
		return false
	}
	_, ok := e.recorded.Lookup(addr)
	return ok
}

// Check asks for the health check of the recorded resource at addr as
// soon as the engine is free.
func (e *Engine) Check(addr string) error {
	e.mu.Lock()
	if !e.records(addr) {
		e.mu.Unlock()
		return ErrUnknownResource
	}
	e.checks[addr] = true
	e.mu.Unlock()
	e.signal()
	return nil
}

// Resync is XOS's "save without change" of the recorded resource at addr,
// what `xosplan touch` does: the reconcile it asks for first sets the
// resource's updated version later than the one enacted (state.Touch),
// so that the plan actuates it again (planner.ReasonTouched), and clears
// what held it back (a retry not yet due, a failure that waits for a
// change of the configuration).
func (e *Engine) Resync(addr string) error {
	e.mu.Lock()
	if !e.records(addr) {
		e.mu.Unlock()
		return ErrUnknownResource
	}
	e.touches[addr] = true
	e.reasons["resync "+addr] = true
	e.mu.Unlock()
	e.signal()
	return nil
}

// touch saves without change the resources a resync asked for that the
// state still records, and lets them run at once.
func (e *Engine) touch(ctx context.Context, now time.Time) error {
	e.mu.Lock()
	addrs := slices.Sorted(maps.Keys(e.touches))
	clear(e.touches)
	if e.recorded != nil {
		addrs = slices.DeleteFunc(addrs, func(a string) bool {
			_, ok := e.recorded.Lookup(a)
			return !ok
		})
	}
	for _, a := range addrs {
		if t := e.tracked[a]; t != nil {
			t.nextRetry, t.needsChange = time.Time{}, ""
		}
	}
	e.mu.Unlock()
	if len(addrs) == 0 {
		return nil
	}
	if _, err := state.Touch(ctx, e.opts.Store, now, addrs...); err != nil {
		return fmt.Errorf("touching %s: %w", strings.Join(addrs, ", "), err)
	}
	for _, a := range addrs {
		e.emit(Event{Type: EventResync, Address: a, Time: now, Message: "saved without change: actuated again"})
	}
	return nil
}

func (e *Engine) signal() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Run reconciles until ctx ends, then returns nil once what runs has
// finished (an apply in progress stops as apply's does on an interrupt:
// nothing new starts, running actions get Apply.Grace, the state is
// saved). The error is for a state that cannot be read at the start.
func (e *Engine) Run(ctx context.Context) error {
	prior, err := e.load(ctx)
	if err != nil {
		return err
	}
	now := e.opts.Clock.Now()
	e.mu.Lock()
	e.run.started = now
	e.reasons["start"] = true
	// A Run after another (a cluster member that leads again) compiles
	// the configuration again: it may have changed in between.
	e.dirty = true
	if prior.Sync != nil {
		e.lastResync = prior.Sync.LastResync
	}
	e.nextResync = e.firstResync(now)
	e.mu.Unlock()
	e.track(prior, now)
	for ctx.Err() == nil {
		e.step(ctx)
		if ctx.Err() != nil {
			break
		}
		next := e.nextWake()
		var fire <-chan time.Time
		var timer Timer
		if !next.IsZero() {
			timer = e.opts.Clock.NewTimer(next.Sub(e.opts.Clock.Now()))
			fire = timer.C()
		}
		if e.onIdle != nil {
			e.onIdle(ctx, next)
		}
		select {
		case <-ctx.Done():
		case <-e.wake:
		case <-fire:
		}
		if timer != nil {
			timer.Stop()
		}
	}
	e.opts.Logger.Info("sync stopped")
	return nil
}

// firstResync schedules the first full check from the one recorded: a
// restart waits for its turn rather than checking everything at once; a
// state without one, or overdue, gets it spread over a tenth of the
// period.
func (e *Engine) firstResync(now time.Time) time.Time {
	if !e.lastResync.IsZero() {
		if due := e.lastResync.Add(e.jitter(e.opts.Resync)); due.After(now) {
			return due
		}
	}
	return now.Add(time.Duration(e.opts.Rand() * float64(e.opts.Resync/10)))
}

// jitter returns d moved by up to jitterFraction either way.
func (e *Engine) jitter(d time.Duration) time.Duration {
	return time.Duration(float64(d) * (1 - jitterFraction + 2*jitterFraction*e.opts.Rand()))
}

// backoff is the wait before the retry after the n-th failure.
func (e *Engine) backoff(n int) time.Duration {
	return e.jitter(executor.DoublingBackoff(e.opts.RetryBase, e.opts.RetryMax)(n))
}

// step does everything that is due: asked-for and scheduled health
// checks, discovery, the resync, and a reconcile when anything asks
// for one.
func (e *Engine) step(ctx context.Context) {
	e.runAdopts(ctx)
	e.recordObservations(ctx)
	due, discover, resync := e.takeDue(e.opts.Clock.Now())
	driftDue := e.takeDriftDue(e.opts.Clock.Now())
	slices.Sort(due)
	slices.Sort(discover)
	if resync {
		// Every resource, whatever its schedule.
		due = nil
	}
	if len(due) > 0 || resync {
		if e.check(ctx, due, false) {
			e.mu.Lock()
			e.reasons["drift"] = true
			e.mu.Unlock()
		}
	}
	for _, addr := range discover {
		if ctx.Err() != nil {
			return
		}
		e.check(ctx, []string{addr}, true)
	}
	if len(driftDue) > 0 {
		slices.Sort(driftDue)
		if e.checkDrift(ctx, driftDue) {
			e.mu.Lock()
			e.reasons["drift"] = true
			e.mu.Unlock()
		}
	}
	e.mu.Lock()
	reasons := slices.Sorted(maps.Keys(e.reasons))
	clear(e.reasons)
	e.mu.Unlock()
	if len(reasons) > 0 && ctx.Err() == nil {
		e.reconcile(ctx, strings.Join(reasons, ","))
	}
	if resync && ctx.Err() == nil {
		e.recordResync(ctx)
	}
}

// takeDue returns what is due at now: the health checks asked for or
// scheduled, the discoveries, and whether the resync is; it clears the
// checks asked for and notes the resync and the retries due as reasons
// to reconcile.
func (e *Engine) takeDue(now time.Time) (due, discover []string, resync bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for addr, t := range e.tracked {
		if e.checks[addr] || (t.checkable && !t.nextCheck.IsZero() && !t.nextCheck.After(now)) {
			due = append(due, addr)
		}
	}
	clear(e.checks)
	for addr, t := range e.tracked {
		if t.schedule != nil && !t.nextDiscover.IsZero() && !t.nextDiscover.After(now) {
			discover = append(discover, addr)
		}
	}
	resync = !e.nextResync.After(now)
	if resync {
		e.dirty = true
		e.reasons["resync"] = true
	}
	if !e.goalRetry.IsZero() && !e.goalRetry.After(now) {
		e.goalRetry = time.Time{}
		e.reasons["retry"] = true
	}
	for _, t := range e.tracked {
		if !t.nextRetry.IsZero() && !t.nextRetry.After(now) {
			e.reasons["retry"] = true
			break
		}
	}
	return due, discover, resync
}

// nextWake is the earliest time something is due, or zero.
func (e *Engine) nextWake() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	next := e.nextResync
	earlier := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	earlier(e.goalRetry)
	for _, t := range e.tracked {
		if t.needsChange == "" {
			earlier(t.nextRetry)
		}
		if t.checkable {
			earlier(t.nextCheck)
		}
		if t.schedule != nil {
			earlier(t.nextDiscover)
		}
		earlier(t.nextDriftCheck)
	}
	return next
}

// load reads the state with the journal an interrupted apply left.
func (e *Engine) load(ctx context.Context) (*state.State, error) {
	loaded, err := e.opts.Store.LoadWithJournal(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.recorded = loaded.State
	e.mu.Unlock()
	return loaded.State, nil
}

// track brings the per-resource schedules in line with the recorded
// state: a resource new to it is checked within one interval (spread, so
// that a restart does not check everything at once), a factory that
// discovers gets its next firing, and a resource gone is forgotten.
func (e *Engine) track(st *state.State, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	seen := make(map[string]bool, len(st.Resources))
	for i := range st.Resources {
		r := &st.Resources[i]
		seen[r.Address] = true
		t := e.tracked[r.Address]
		if t == nil {
			t = &tracked{}
			e.tracked[r.Address] = t
		}
		e.scheduleOf(t, r, now)
	}
	for addr, t := range e.tracked {
		if !seen[addr] && e.goal != nil {
			if _, ok := e.goal.Desired.Resource(addr); ok || e.goal.Held[addr] != nil {
				// Configured but not recorded (yet, or it failed before
				// anything was recorded): keep its retry schedule.
				t.checkable, t.schedule = false, nil
				continue
			}
		}
		if !seen[addr] {
			delete(e.tracked, addr)
		}
	}
}

// scheduleOf brings the schedules t of the recorded resource r in line
// with its driver: its health check interval and first check, and its
// discovery's next firing.
func (e *Engine) scheduleOf(t *tracked, r *state.Resource, now time.Time) {
	t.interval = e.opts.HealthInterval
	if s, ok := r.Driver.Options[OptionHealthInterval].(string); ok {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			t.interval = d
		}
	}
	t.checkable = r.Driver.HasOperation(graph.OpHealthCheck)
	if t.checkable && t.nextCheck.IsZero() {
		t.nextCheck = wholeSecond(now.Add(time.Duration(e.opts.Rand() * float64(t.interval))))
	}
	if !t.checkable {
		t.nextCheck = time.Time{}
	}
	if e.opts.CheckDrift > 0 && t.nextDriftCheck.IsZero() {
		t.nextDriftCheck = wholeSecond(now.Add(time.Duration(e.opts.Rand() * float64(e.opts.CheckDrift))))
	}
	expr, _ := r.Driver.Options[graph.OptionDiscoverySchedule].(string)
	switch {
	case expr == "" || !r.Driver.HasOperation(graph.OpDiscovery):
		t.schedule, t.nextDiscover = nil, time.Time{}
	case t.schedule == nil:
		// The configuration was validated; a schedule that does not
		// parse never fires.
		if s, err := quartz.Parse(expr); err == nil {
			t.schedule, t.nextDiscover = s, s.Next(now)
		}
	}
}

// wholeSecond rounds a check's time up to a whole second, so that the
// checks of many resources spread over an interval run in batches, at
// most one a second, rather than one wake-up each.
func wholeSecond(t time.Time) time.Time {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		return r.Add(time.Second)
	}
	return t
}

// CheckoutDigest identifies what a goal runs, on any machine: the digests
// of the configuration's files and of the scripts and artifacts its
// resources run, without the input values (whose digests are salted per
// process). Members of a cluster compare it before running an action, so
// that none runs scripts other than those the plan was made from.
func CheckoutDigest(g *Goal) string {
	return "sha256:" + digestOf(g, false)
}

// fingerprintOf identifies a goal's inputs: the digests of the files
// compiled, the scripts its resources run and the input values.
func fingerprintOf(g *Goal) string { return digestOf(g, true) }

// digestOf hashes a goal's input digests, with or without the input
// values ("var." keys).
func digestOf(g *Goal, values bool) string {
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(g.Plan.InputDigests)) {
		if values || !strings.HasPrefix(k, "var.") {
			h.Write([]byte(k + "=" + g.Plan.InputDigests[k] + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// reverseEdges maps each address of g to those that depend on it.
func reverseEdges(g *graph.Graph) map[string][]string {
	x := g.Index()
	out := make(map[string][]string, len(x.Addrs))
	for i, deps := range x.Dependents {
		for _, d := range deps {
			out[x.Addrs[i]] = append(out[x.Addrs[i]], x.Addrs[d])
		}
	}
	return out
}

// record keeps a bounded activity log per resource and passes the event
// on.
func (e *Engine) emit(ev Event) {
	if ev.Time.IsZero() {
		ev.Time = e.opts.Clock.Now()
	}
	if ev.Address != "" {
		e.mu.Lock()
		t := e.tracked[ev.Address]
		if t == nil {
			t = &tracked{}
			e.tracked[ev.Address] = t
		}
		if len(t.activity) == maxActivity {
			copy(t.activity, t.activity[1:])
			t.activity = t.activity[:maxActivity-1]
		}
		t.activity = append(t.activity, ev.activity())
		if ev.Type == EventDrift {
			e.history.drift = keep(e.history.drift, DriftRecord{Time: ev.Time.UTC(), Address: ev.Address, Message: ev.Message}, maxDriftHistory)
		}
		e.mu.Unlock()
	}
	e.events.publish(ev)
	if e.opts.Events != nil {
		e.opts.Events(ev)
	}
}

// maxActivity bounds each resource's activity log.
const maxActivity = 20
