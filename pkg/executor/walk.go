package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// stepForget is the action of a step that drops an unmanaged resource
// from state without a driver call.
const stepForget = "forget"

// node is one step of the walk, or a phase barrier.
type node struct {
	step   planner.Step
	change *planner.ResourceChange
	// action is the step's operation as reported ("create", …).
	action string
	// deposed marks the old half of a create-then-delete replacement.
	deposed bool
	// barrier nodes only order the phases; they run nothing.
	barrier bool

	// hardNext run only after this node succeeded; softNext only after it
	// finished, whatever the result (the phase barriers).
	hardNext, softNext []*node
	pending            int

	done     bool
	attempts int
	started  time.Time // first driver call
	converge time.Time // when the resource first reported converging
	lastErr  error
	result   StepResult
}

// elapsed is the time since the node's first driver call (0 before it).
func (n *node) elapsed() time.Duration {
	if n.started.IsZero() {
		return 0
	}
	return time.Since(n.started)
}

type taskKind uint8

const (
	taskRun taskKind = iota
	taskHealth
)

type task struct {
	n    *node
	kind taskKind
	// key is the batch key of a run task whose driver can batch it.
	key string
}

// maxBatch bounds the requests one batched driver call serves.
const maxBatch = 50

// taskResult is what a worker reports back to the dispatcher.
type taskResult struct {
	t          task
	out        Outcome
	err        error
	notStarted bool
	// permanent failures (an unresolvable value, a missing driver) are
	// not retried: another attempt would fail the same way.
	permanent bool
	// fatal is a journal failure: the walk stops.
	fatal error
}

// walker holds one walk. The dispatcher goroutine (run) owns the nodes'
// scheduling fields; workers touch only their task's request and the
// shared records under mu.
type walker struct {
	plan    *planner.Plan
	opts    Options
	journal Journal
	drivers Registry
	nodes   []*node // steps in plan order, then the barriers

	mu      sync.Mutex
	records map[string]*state.Resource // the state as it stands now
	prior   map[string]*state.Resource // the state before the walk
	// members maps a factory address to the scripted components that name
	// it (configured or recorded), whose instances the factory publishes.
	members map[string][]string
	emitMu  sync.Mutex
	// redact knows the run's secrets; what drivers report passes through
	// it before it reaches an event, the report or the journal.
	redact *Redactor

	slots     chan struct{}
	driverSem map[string]chan struct{}
	inFlight  atomic.Int64
	maxFlight atomic.Int64

	stopping chan struct{} // closed when nothing new may start
	stopOnce sync.Once

	driverCtx    context.Context
	cancelDriver context.CancelFunc
}

func newWalker(ctx context.Context, p *planner.Plan, prior *state.State, j Journal, drivers Registry, opts Options) (*walker, error) {
	w := &walker{
		plan:      p,
		opts:      opts,
		journal:   j,
		drivers:   drivers,
		records:   map[string]*state.Resource{},
		prior:     map[string]*state.Resource{},
		slots:     make(chan struct{}, opts.Parallelism),
		driverSem: map[string]chan struct{}{},
		stopping:  make(chan struct{}),
		members:   map[string][]string{},
		redact:    NewRedactorFor(prior, opts.Desired),
	}
	member := func(addr string, d graph.Driver) {
		if fa, ok := d.Options[OptionFactoryAddress].(string); ok && fa != "" && d.Name == graph.DriverScripted {
			w.members[fa] = append(w.members[fa], addr)
		}
	}
	if prior != nil {
		for i := range prior.Resources {
			r := prior.Resources[i]
			w.records[r.Address] = &r
			w.prior[r.Address] = &r
			member(r.Address, r.Driver)
		}
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		if _, recorded := w.prior[c.Address]; !recorded {
			member(c.Address, c.Driver)
		}
		w.redact.AddPaths(c.After, c.Sensitive)
		w.redact.AddOperations(c.Driver)
	}
	steps := p.Steps()
	var missing []string
	for _, s := range steps {
		c := &p.Changes[s.Change]
		name := c.Driver.Name
		if s.Op == planner.StepDelete {
			if r := w.prior[s.Address]; r != nil {
				name = r.Driver.Name
			}
		}
		if s.Op == planner.StepForget {
			continue
		}
		d, ok := drivers.Lookup(name)
		if !ok {
			missing = append(missing, fmt.Sprintf("%s (driver %q)", s.Address, name))
			continue
		}
		if _, ok := w.driverSem[name]; ok {
			continue
		}
		limit := opts.PerDriver[name]
		if l, ok := d.(Limiter); ok && l.MaxConcurrent() > 0 && (limit <= 0 || l.MaxConcurrent() < limit) {
			limit = l.MaxConcurrent()
		}
		if limit > 0 && limit < opts.Parallelism {
			w.driverSem[name] = make(chan struct{}, limit)
		} else {
			w.driverSem[name] = nil
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no driver for %s", strings.Join(missing, ", "))
	}
	w.build(steps)
	w.driverCtx, w.cancelDriver = context.WithCancel(context.WithoutCancel(ctx))
	return w, nil
}

// build turns the steps into nodes and edges in O(V+E).
func (w *walker) build(steps []planner.Step) {
	del1 := map[string]*node{} // phase 1: deletes and forgets
	p2 := map[string]*node{}   // phase 2: creates, updates, reads
	del3 := map[string]*node{} // phase 3: old halves of create-then-delete
	var phase1, phase2, phase3 []*node
	for _, s := range steps {
		c := &w.plan.Changes[s.Change]
		n := &node{step: s, change: c, action: s.Op.String()}
		n.result = StepResult{Address: s.Address, Action: n.action}
		switch {
		case s.Op == planner.StepDelete && c.Action == planner.CreateThenDelete:
			n.deposed = true
			del3[s.Address] = n
			phase3 = append(phase3, n)
		case s.Op == planner.StepDelete || s.Op == planner.StepForget:
			del1[s.Address] = n
			phase1 = append(phase1, n)
		default:
			p2[s.Address] = n
			phase2 = append(phase2, n)
		}
		w.nodes = append(w.nodes, n)
	}
	hard := func(from, to *node) {
		from.hardNext = append(from.hardNext, to)
		to.pending++
	}
	soft := func(from, to *node) {
		from.softNext = append(from.softNext, to)
		to.pending++
	}
	for _, n := range phase1 {
		// Delete before what it depended on (the deletion guard: a
		// resource goes only after everything that used it).
		for _, d := range n.change.PriorDependencies {
			if m := del1[d]; m != nil && m != n {
				hard(n, m)
			}
		}
	}
	barrier1 := &node{barrier: true}
	barrier2 := &node{barrier: true}
	for _, n := range phase1 {
		soft(n, barrier1)
	}
	for _, n := range phase2 {
		soft(barrier1, n)
		soft(n, barrier2)
		for _, d := range n.change.Dependencies {
			if m := p2[d]; m != nil && m != n {
				hard(m, n)
			}
			if m := del3[d]; m != nil {
				// The old object of a dependency goes once this dependent
				// is in place on the new one.
				hard(n, m)
			}
		}
		if n.change.Action == planner.DeleteThenCreate {
			if m := del1[n.step.Address]; m != nil {
				hard(m, n)
			}
		}
	}
	for _, n := range phase3 {
		soft(barrier2, n)
		if m := p2[n.step.Address]; m != nil {
			hard(m, n)
		}
		for _, d := range n.change.PriorDependencies {
			if m := del3[d]; m != nil && m != n {
				hard(n, m)
			}
		}
	}
	w.nodes = append(w.nodes, barrier1, barrier2)
}

// emit delivers an event, one at a time.
func (w *walker) emit(e Event) {
	if w.opts.Events == nil {
		return
	}
	if e.Time.IsZero() {
		e.Time = w.opts.Now()
	}
	w.emitMu.Lock()
	defer w.emitMu.Unlock()
	w.opts.Events(e)
}

func (w *walker) stop() {
	w.stopOnce.Do(func() { close(w.stopping) })
}

func (w *walker) isStopping() bool {
	select {
	case <-w.stopping:
		return true
	default:
		return false
	}
}

// run is the dispatcher: it starts ready tasks, bounded, and turns their
// results into the next ready ones. It alone touches the nodes'
// scheduling fields.
func (w *walker) run(ctx context.Context) (*Report, error) {
	begin := time.Now()
	stage := max(4*w.opts.Parallelism, 128)
	results := make(chan taskResult, stage)
	timerFired := make(chan task)
	var workers, timerWG sync.WaitGroup
	var ready []task
	// keyed counts the ready run tasks per batch key, so that grouping
	// scans the queue only when a batch is possible.
	keyed := map[string]int{}
	push := func(t task) {
		t.key = ""
		if t.kind == taskRun {
			t.key = w.batchKey(t)
			if t.key != "" {
				keyed[t.key]++
			}
		}
		ready = append(ready, t)
	}
	active, timers := 0, 0
	var fatal error
	interrupted := false

	defer w.cancelDriver()
	ctxDone := ctx.Done()
	var graceTimer *time.Timer

	var finish func(n *node, res string)
	var skip func(n *node, cause string)
	release := func(m *node) {
		m.pending--
		if m.pending > 0 || m.done {
			return
		}
		if m.barrier {
			finish(m, ResultApplied)
			return
		}
		push(task{n: m, kind: taskRun})
	}
	finish = func(n *node, res string) {
		n.done = true
		n.result.Result = res
		n.result.Attempts = n.attempts
		n.result.Elapsed = n.elapsed()
		for _, m := range n.softNext {
			release(m)
		}
		cause := n.step.Address + " (" + n.action + ")"
		if n.result.Cause != "" {
			cause = n.result.Cause // skip only names the root failure
		}
		for _, m := range n.hardNext {
			if res == ResultApplied {
				release(m)
			} else {
				skip(m, cause)
			}
		}
	}
	skip = func(n *node, cause string) {
		if n.done {
			return
		}
		n.result.Cause = cause
		w.emit(Event{Type: EventSkipped, Address: n.step.Address, Action: n.action, Cause: cause})
		finish(n, ResultSkipped)
	}
	later := func(t task, d time.Duration) {
		timers++
		timerWG.Go(func() {
			tm := time.NewTimer(d)
			defer tm.Stop()
			select {
			case <-tm.C:
			case <-w.stopping:
			}
			timerFired <- t
		})
	}
	fail := func(n *node, err error) {
		n.lastErr = err
		n.result.Error = err.Error()
		w.emit(Event{Type: EventErrored, Address: n.step.Address, Action: n.action, Attempt: n.attempts,
			Elapsed: n.elapsed(), Error: err.Error()})
		finish(n, ResultFailed)
		if w.opts.FailFast {
			w.stop()
		}
	}
	handle := func(r taskResult) {
		n := r.t.n
		switch {
		case r.fatal != nil:
			if fatal == nil {
				fatal = r.fatal
			}
			w.stop()
			n.result.Error = r.fatal.Error()
			finish(n, ResultFailed)
		case r.notStarted && r.t.kind == taskHealth:
			fail(n, errors.New("the apply stopped while waiting for the resource to become active"))
		case r.notStarted:
			w.emit(Event{Type: EventNotStarted, Address: n.step.Address, Action: n.action})
			finish(n, ResultNotStarted)
		case r.err == nil && r.out.Converging:
			if n.converge.IsZero() {
				n.converge = time.Now()
			}
			if time.Since(n.converge) > w.opts.ConvergeTimeout {
				fail(n, fmt.Errorf("not active %s after its %s returned (converge timeout)", w.opts.ConvergeTimeout, n.action))
				return
			}
			if r.t.kind == taskRun {
				w.emit(Event{Type: EventConverging, Address: n.step.Address, Action: n.action, Attempt: n.attempts, Elapsed: n.elapsed()})
			}
			later(task{n: n, kind: taskHealth}, w.opts.HealthInterval)
		case r.err == nil:
			w.emit(Event{Type: EventComplete, Address: n.step.Address, Action: n.action, Attempt: n.attempts, Elapsed: n.elapsed()})
			finish(n, ResultApplied)
		case !r.permanent && n.attempts <= w.opts.Retries && !w.isStopping():
			n.lastErr = r.err
			d := w.opts.Backoff(n.attempts)
			w.emit(Event{Type: EventRetry, Address: n.step.Address, Action: n.action, Attempt: n.attempts,
				Elapsed: n.elapsed(), Delay: d, Error: r.err.Error()})
			later(task{n: n, kind: taskRun}, d)
		default:
			fail(n, r.err)
		}
	}

	for _, n := range w.nodes {
		if n.pending == 0 && !n.barrier {
			push(task{n: n, kind: taskRun})
		}
	}
	for _, n := range w.nodes {
		if n.barrier && n.pending == 0 && !n.done {
			finish(n, ResultApplied)
		}
	}

	for {
		for !w.isStopping() && len(ready) > 0 && active < stage {
			t := ready[0]
			ready = ready[1:]
			if t.key == "" {
				active++
				workers.Go(func() { results <- w.work(t) })
				continue
			}
			keyed[t.key]--
			group := []task{t}
			if keyed[t.key] > 0 {
				// Take the other ready tasks one script run can serve.
				rest := ready[:0:0]
				for _, u := range ready {
					if u.key == t.key && len(group) < maxBatch && active+len(group) < stage {
						group = append(group, u)
						keyed[u.key]--
					} else {
						rest = append(rest, u)
					}
				}
				ready = rest
			}
			active += len(group)
			workers.Go(func() {
				for _, r := range w.workBatch(group) {
					results <- r
				}
			})
		}
		if active == 0 && timers == 0 && (w.isStopping() || len(ready) == 0) {
			break
		}
		select {
		case r := <-results:
			active--
			handle(r)
		case t := <-timerFired:
			timers--
			switch {
			case !w.isStopping():
				push(t)
			case t.kind == taskRun:
				fail(t.n, fmt.Errorf("%w (not retried: the apply stopped)", t.n.lastErr))
			default:
				fail(t.n, errors.New("the apply stopped while waiting for the resource to become active"))
			}
		case <-ctxDone:
			ctxDone = nil
			interrupted = true
			w.stop()
			graceTimer = time.AfterFunc(w.opts.Grace, w.cancelDriver)
		}
	}
	workers.Wait()
	timerWG.Wait()
	if graceTimer != nil {
		graceTimer.Stop()
	}

	rep := &Report{Interrupted: interrupted, MaxInFlight: int(w.maxFlight.Load())}
	for _, n := range w.nodes {
		if n.barrier {
			continue
		}
		if !n.done {
			n.done = true
			n.result.Result = ResultNotStarted
			w.emit(Event{Type: EventNotStarted, Address: n.step.Address, Action: n.action})
		}
		rep.Steps = append(rep.Steps, n.result)
		rep.count(n.result)
	}
	if w.plan.Mode == planner.ModeRefreshOnly && fatal == nil {
		fatal = w.recordDrift(rep)
	}
	rep.Elapsed = time.Since(begin)
	return rep, fatal
}

// work runs one task: resolve, intent, driver call, outcome.
func (w *walker) work(t task) taskResult {
	n := t.n
	if n.step.Op == planner.StepForget {
		if err := w.appendRecord(state.Record{Kind: state.RecordOutcome, Address: n.step.Address, Action: stepForget, Removed: true}); err != nil {
			return taskResult{t: t, fatal: err}
		}
		w.mu.Lock()
		delete(w.records, n.step.Address)
		w.mu.Unlock()
		return taskResult{t: t}
	}
	req, drv, err := w.request(t)
	if err != nil {
		return w.unrunnable(t, req, err)
	}
	if t.kind == taskRun && w.isStopping() {
		return taskResult{t: t, notStarted: true}
	}
	acquired := w.acquire(drv.name)
	if acquired && t.kind == taskRun && w.isStopping() {
		// The slot may be won in the same instant the walk stops.
		w.release(drv.name)
		acquired = false
	}
	if !acquired {
		return taskResult{t: t, notStarted: true}
	}
	if t.kind == taskRun {
		// Claimed holding the slot, so claims follow the walk's order.
		if err := w.claimPlacement(n); err != nil {
			w.release(drv.name)
			return w.unrunnable(t, req, err)
		}
		if err := w.appendIntent(n, req); err != nil {
			w.abandonPlacement(n)
			w.release(drv.name)
			return taskResult{t: t, fatal: err}
		}
	}
	if t.kind == taskRun {
		n.attempts++
		if n.started.IsZero() {
			n.started = time.Now()
		}
		w.emit(Event{Type: EventStart, Address: n.step.Address, Action: n.action, Attempt: n.attempts})
	}
	cur := w.inFlight.Add(1)
	for {
		m := w.maxFlight.Load()
		if cur <= m || w.maxFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	stopProgress := w.progress(n)
	out, err := callDriver(w.driverCtx, drv.d, req)
	out.Feedback, err = w.redact.Feedback(out.Feedback), w.redact.Error(err)
	stopProgress()
	w.inFlight.Add(-1)
	if t.kind == taskRun {
		w.settlePlacement(n, err)
	}
	if err != nil && t.kind == taskRun && w.opts.FailFast && n.attempts > w.opts.Retries {
		// Stop before the slot goes to a waiting step: nothing new starts
		// after the first failure.
		w.stop()
	}
	w.release(drv.name)

	if t.kind == taskHealth {
		switch {
		case err != nil:
		case out.Feedback.Status.Failed:
			err = fmt.Errorf("health check: %s", orText(out.Feedback.Status.Message, "the resource failed"))
		case out.Feedback.Status.Active && !out.Converging:
		default:
			out.Converging = true
		}
		if err == nil && out.Converging {
			if time.Since(n.converge) <= w.opts.ConvergeTimeout {
				return taskResult{t: t, out: out}
			}
			// Recorded as a failure, not retried: another launch would wait
			// as long again.
			err = fmt.Errorf("not active %s after its %s returned (converge timeout)", w.opts.ConvergeTimeout, n.action)
			out.Converging = false
			rec := w.outcomeRecord(n, req, out, err)
			if jerr := w.appendRecord(rec); jerr != nil {
				return taskResult{t: t, fatal: jerr}
			}
			return taskResult{t: t, out: out, err: err, permanent: true}
		}
	}
	rec := w.outcomeRecord(n, req, out, err)
	if jerr := w.appendRecord(rec); jerr != nil {
		return taskResult{t: t, fatal: jerr}
	}
	return taskResult{t: t, out: out, err: err}
}

// batchKey returns the key under which t's driver may serve it together
// with others in one call (BatchDriver), or "".
func (w *walker) batchKey(t task) string {
	if t.n.step.Op == planner.StepForget {
		return ""
	}
	// Most drivers cannot batch: say so before building anything.
	name := t.n.change.Driver.Name
	if t.n.step.Op == planner.StepDelete {
		if r := w.prior[t.n.step.Address]; r != nil {
			name = r.Driver.Name
		}
	}
	if _, ok := w.drivers[name].(BatchDriver); !ok {
		return ""
	}
	req, name, err := w.skeleton(t)
	if err != nil {
		return ""
	}
	bd, ok := w.drivers[name].(BatchDriver)
	if !ok {
		return ""
	}
	if k := bd.BatchKey(req); k != "" {
		return name + "\x00" + k
	}
	return ""
}

// workBatch runs a group of run tasks with equal batch keys as one
// driver call (BatchDriver.LaunchBatch), each with its own intent and
// outcome records, the intents written once the call holds its slot. A
// group of one is an ordinary task.
func (w *walker) workBatch(group []task) []taskResult {
	if len(group) == 1 {
		return []taskResult{w.work(group[0])}
	}
	out := make([]taskResult, 0, len(group))
	var tasks []task
	var reqs []Request
	var drv namedDriver
	for _, t := range group {
		req, d, err := w.request(t)
		if err != nil {
			out = append(out, w.unrunnable(t, req, err))
			continue
		}
		if w.isStopping() {
			out = append(out, taskResult{t: t, notStarted: true})
			continue
		}
		tasks, reqs, drv = append(tasks, t), append(reqs, req), d
	}
	if len(tasks) == 0 {
		return out
	}
	acquired := w.acquire(drv.name)
	if acquired && w.isStopping() {
		w.release(drv.name)
		acquired = false
	}
	if !acquired {
		for _, t := range tasks {
			out = append(out, taskResult{t: t, notStarted: true})
		}
		return out
	}
	claimed, claimedReqs := tasks[:0:0], reqs[:0:0]
	for i, t := range tasks {
		if err := w.claimPlacement(t.n); err != nil {
			out = append(out, w.unrunnable(t, reqs[i], err))
			continue
		}
		if err := w.appendIntent(t.n, reqs[i]); err != nil {
			w.abandonPlacement(t.n)
			out = append(out, taskResult{t: t, fatal: err})
			continue
		}
		claimed, claimedReqs = append(claimed, t), append(claimedReqs, reqs[i])
	}
	tasks, reqs = claimed, claimedReqs
	if len(tasks) == 0 {
		w.release(drv.name)
		return out
	}
	for _, t := range tasks {
		t.n.attempts++
		if t.n.started.IsZero() {
			t.n.started = time.Now()
		}
		w.emit(Event{Type: EventStart, Address: t.n.step.Address, Action: t.n.action, Attempt: t.n.attempts})
	}
	cur := w.inFlight.Add(1)
	for {
		m := w.maxFlight.Load()
		if cur <= m || w.maxFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	var stops []func()
	for _, t := range tasks {
		stops = append(stops, w.progress(t.n))
	}
	res := launchBatch(w.driverCtx, drv.d.(BatchDriver), reqs)
	for i := range res {
		res[i].Outcome.Feedback, res[i].Err = w.redact.Feedback(res[i].Outcome.Feedback), w.redact.Error(res[i].Err)
	}
	for _, stop := range stops {
		stop()
	}
	w.inFlight.Add(-1)
	for i, t := range tasks {
		w.settlePlacement(t.n, res[i].Err)
		if res[i].Err != nil && w.opts.FailFast && t.n.attempts > w.opts.Retries {
			w.stop()
		}
	}
	w.release(drv.name)
	for i, t := range tasks {
		rec := w.outcomeRecord(t.n, reqs[i], res[i].Outcome, res[i].Err)
		if err := w.appendRecord(rec); err != nil {
			out = append(out, taskResult{t: t, fatal: err})
			continue
		}
		out = append(out, taskResult{t: t, out: res[i].Outcome, err: res[i].Err})
	}
	return out
}

// launchBatch calls LaunchBatch, turning a panic or a result list of the
// wrong length into failures of every request.
func launchBatch(ctx context.Context, bd BatchDriver, reqs []Request) (res []BatchResult) {
	defer func() {
		if r := recover(); r != nil {
			res = nil
			for range reqs {
				res = append(res, BatchResult{Err: fmt.Errorf("driver crashed: %v", r)})
			}
		}
	}()
	res = bd.LaunchBatch(ctx, reqs)
	if len(res) != len(reqs) {
		err := fmt.Errorf("driver returned %d results for %d requests", len(res), len(reqs))
		res = make([]BatchResult, len(reqs))
		for i := range res {
			res[i].Err = err
		}
	}
	return res
}

// unrunnable records a task whose request could not be built: nothing
// ran, but the failure is recorded so that the next plan acts on the
// resource again.
func (w *walker) unrunnable(t task, req Request, err error) taskResult {
	n := t.n
	err = w.redact.Error(err)
	n.attempts++
	if n.started.IsZero() {
		n.started = time.Now()
	}
	rec := w.outcomeRecord(n, req, Outcome{}, err)
	if jerr := w.appendRecord(rec); jerr != nil {
		return taskResult{t: t, fatal: jerr}
	}
	return taskResult{t: t, err: err, permanent: true}
}

// progress reports n as still running every ProgressInterval until the
// returned function is called, which waits for the reporter to end.
func (w *walker) progress(n *node) func() {
	if w.opts.ProgressInterval <= 0 || w.opts.Events == nil {
		return func() {}
	}
	done := make(chan struct{})
	exited := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(exited)
		tick := time.NewTicker(w.opts.ProgressInterval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				w.emit(Event{Type: EventProgress, Address: n.step.Address, Action: n.action, Attempt: n.attempts, Elapsed: time.Since(start)})
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// callDriver calls d, turning a panic of a driver into a failure of the
// action rather than a crash of the apply.
func callDriver(ctx context.Context, d Driver, req Request) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("driver crashed: %v", r)
		}
	}()
	return d.Apply(ctx, req)
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// appendIntent records that n's driver call is about to start. It is
// written only once the call holds its slot, right before the call, so
// that an intent without an outcome always means a call that started.
func (w *walker) appendIntent(n *node, req Request) error {
	return w.appendRecord(state.Record{Kind: state.RecordIntent, Address: n.step.Address, Action: req.Action, Attempt: n.attempts + 1})
}

func (w *walker) appendRecord(rec state.Record) error {
	if rec.Time.IsZero() {
		rec.Time = w.opts.Now().UTC()
	}
	// Records of what already happened are written even after ctx ends.
	if _, err := w.journal.Append(context.WithoutCancel(w.driverCtx), rec); err != nil {
		return fmt.Errorf("recording %s of %s: %w", rec.Kind, rec.Address, err)
	}
	return nil
}

type namedDriver struct {
	name string
	d    Driver
}

// acquire takes the driver's slot, then a global one; it gives up when
// the walk stops.
func (w *walker) acquire(name string) bool {
	sem := w.driverSem[name]
	if sem != nil {
		select {
		case sem <- struct{}{}:
		case <-w.stopping:
			return false
		}
	}
	select {
	case w.slots <- struct{}{}:
		return true
	case <-w.stopping:
		if sem != nil {
			<-sem
		}
		return false
	}
}

func (w *walker) release(name string) {
	<-w.slots
	if sem := w.driverSem[name]; sem != nil {
		<-sem
	}
}

// lookup reads the current records; safe for concurrent use. A factory
// comes with its SignalFactoryInstances signal computed from the current
// records of its components: the walk publishes it, since no script of
// the factory reports it.
func (w *walker) lookup(addr string) (*state.Resource, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	r, ok := w.records[addr]
	if !ok {
		return nil, false
	}
	members := w.members[addr]
	if len(members) == 0 {
		return r, true
	}
	recs := make([]state.Resource, 0, len(members))
	for _, m := range members {
		if mr, ok := w.records[m]; ok {
			recs = append(recs, *mr)
		}
	}
	c := *r
	c.Feedback.Signals = maps.Clone(c.Feedback.Signals)
	if c.Feedback.Signals == nil {
		c.Feedback.Signals = map[string]graph.Value{}
	}
	c.Feedback.Signals[SignalFactoryInstances] = FactoryInstances(recs, addr)
	return &c, true
}

// desired returns the configured resource of n: from Options.Desired
// when given, else rebuilt from the plan.
func (w *walker) desired(n *node) *graph.Resource {
	c := n.change
	if w.opts.Desired != nil {
		if r, ok := w.opts.Desired.Resource(c.Address); ok {
			return r
		}
	}
	return &graph.Resource{Address: c.Address, Type: c.Type, Driver: c.Driver, Spec: c.After,
		Management: c.Management, Sensitive: c.Sensitive}
}

// skeleton builds the request of a task without resolving anything: the
// action, the resources and where scripts are. It is cheap enough for the
// dispatcher to compute batch keys with.
func (w *walker) skeleton(t task) (Request, string, error) {
	n := t.n
	addr := n.step.Address
	w.mu.Lock()
	var prior *state.Resource
	if n.deposed {
		prior = w.prior[addr]
	} else if r, ok := w.records[addr]; ok {
		c := *r
		prior = &c
	}
	w.mu.Unlock()
	req := Request{Address: addr, ScriptRoot: w.opts.ScriptRoot, Timeout: w.opts.Timeout}
	if n.step.Op == planner.StepDelete {
		req.Action = ActionDelete
		req.Prior = prior
		if prior == nil {
			return req, "", fmt.Errorf("%s is not recorded: nothing to delete", addr)
		}
		req.WorkDir = w.workDir(nil, prior)
		if req.ScriptRoot == "" {
			req.ScriptRoot, _ = prior.Feedback.Extra[ExtraScriptRoot].(string)
		}
		return req, prior.Driver.Name, nil
	}
	res := w.desired(n)
	req.Resource = res
	req.WorkDir = w.workDir(res, prior)
	switch {
	case t.kind == taskHealth:
		req.Action = ActionHealth
		req.Prior = prior
	case n.step.Op == planner.StepCreate:
		req.Action = ActionCreate
	case n.step.Op == planner.StepUpdate:
		req.Action = ActionUpdate
		req.Prior = prior
		// An update because the last apply failed (or of a resource that
		// never succeeded) runs the create: the actuators are idempotent,
		// and goal-oriented repair runs the whole actuator rather than
		// guess which part failed. Prior stays, so the object keeps its
		// id.
		if prior == nil || prior.Feedback.Enacted.IsZero() || n.change.Reason == planner.ReasonLastApplyFailed {
			req.Action = ActionCreate
		}
	case n.step.Op == planner.StepRead:
		req.Action = ActionRead
		req.Prior = prior
	}
	return req, res.Driver.Name, nil
}

// request builds the driver request of a task; the Unknowns in the spec
// and the operation inputs are resolved from the current records.
func (w *walker) request(t task) (Request, namedDriver, error) {
	n := t.n
	req, drvName, err := w.skeleton(t)
	if err != nil {
		return req, namedDriver{}, err
	}
	req.Redactor = w.redact
	req.Output = func(line string) {
		w.emit(Event{Type: EventOutput, Address: req.Address, Action: n.action, Line: w.redact.String(line)})
	}
	if t.kind == taskRun {
		// The intent is repeated with the process group the operation
		// started, so that the run after a crash finds what to end. A
		// journal that fails here fails the outcome record too, which
		// stops the walk.
		addr, action, attempt := req.Address, req.Action, n.attempts+1
		req.Started = func(p state.Process) {
			_ = w.appendRecord(state.Record{Kind: state.RecordIntent, Address: addr, Action: action, Attempt: attempt, Process: &p})
		}
	}
	if req.Action == ActionDelete {
		if in, err := w.resolveInputs(req.Prior.Driver, w.lookup); err == nil {
			req.Inputs = in
			w.addSensitiveInputs(req.Prior.Driver, in)
		}
		req.Resolved = req.Prior.Feedback.Resolved
	} else {
		res := req.Resource
		// A resource may read its own attributes (TOSCA get_attribute
		// SELF): before its first apply they have no value yet, which is
		// null, not an error.
		lookup := func(addr string) (*state.Resource, bool) {
			r, ok := w.lookup(addr)
			if !ok && addr == req.Address {
				return &state.Resource{Address: addr}, true
			}
			return r, ok
		}
		if req.Resolved, err = ResolveMap(res.Spec, lookup); err != nil {
			return req, namedDriver{}, err
		}
		if req.Inputs, err = w.resolveInputs(res.Driver, lookup); err != nil {
			return req, namedDriver{}, err
		}
		// A secret joined at apply time with what another resource
		// reported is known whole only now.
		w.redact.AddPaths(req.Resolved, res.Sensitive)
		w.addSensitiveInputs(res.Driver, req.Inputs)
		if fa, ok := res.Driver.Options[OptionFactoryAddress].(string); ok {
			if f, ok := w.lookup(fa); ok {
				req.Factory = f
			}
		}
	}
	d, ok := w.drivers.Lookup(drvName)
	if !ok {
		return req, namedDriver{}, fmt.Errorf("no driver %q", drvName)
	}
	return req, namedDriver{name: drvName, d: d}, nil
}

// resolveInputs resolves the inputs of every operation of drv.
func (w *walker) resolveInputs(drv graph.Driver, lookup Lookup) (map[string]map[string]graph.Value, error) {
	var out map[string]map[string]graph.Value
	for _, key := range sortedKeys(drv.Operations) {
		op := drv.Operations[key]
		if len(op.Inputs) == 0 {
			continue
		}
		in, err := ResolveMap(op.Inputs, lookup)
		if err != nil {
			return nil, fmt.Errorf("inputs of %s: %w", key, err)
		}
		if out == nil {
			out = map[string]map[string]graph.Value{}
		}
		out[key] = in
	}
	return out, nil
}

// addSensitiveInputs registers the resolved values of drv's sensitive
// operation inputs with the walk's Redactor.
func (w *walker) addSensitiveInputs(drv graph.Driver, resolved map[string]map[string]graph.Value) {
	for key, in := range resolved {
		for _, name := range drv.Operations[key].Sensitive {
			w.redact.AddValue(in[name])
		}
	}
}

// workDir is the source folder of the configured resource, else the one
// recorded when it was applied, else Options.WorkDir.
func (w *walker) workDir(res *graph.Resource, prior *state.Resource) string {
	if res != nil && res.Range.File != "" {
		if abs, err := filepath.Abs(filepath.Dir(res.Range.File)); err == nil {
			return abs
		}
	}
	if prior != nil {
		if s, ok := prior.Feedback.Extra[ExtraWorkDir].(string); ok && s != "" {
			return s
		}
	}
	return w.opts.WorkDir
}

// outcomeRecord builds the journal record of a driver call (or of a
// failure before it) and updates the current records.
func (w *walker) outcomeRecord(n *node, req Request, out Outcome, err error) state.Record {
	addr := n.step.Address
	now := w.opts.Now().UTC()
	rec := state.Record{Kind: state.RecordOutcome, Address: addr, Action: req.Action, Attempt: n.attempts, Time: now}
	w.mu.Lock()
	defer w.mu.Unlock()
	cur := w.records[addr]
	fb := out.Feedback
	fb.Attempts = n.attempts
	fb.LastAttempt = now
	if err != nil {
		fb.BackendCode = state.BackendError
		if fb.BackendStatus == "" || fb.BackendStatus == "ok" {
			fb.BackendStatus = err.Error()
		}
		fb.Status.Active, fb.Status.Converging, fb.Status.Failed = false, false, true
		if fb.Status.Message == "" {
			fb.Status.Message = err.Error()
		}
	}
	if req.Action == ActionDelete {
		switch {
		case n.deposed:
			// The new object stays recorded at the address, whether the
			// old one went or not (a failure is in the report).
			if cur != nil {
				c := *cur
				rec.Resource = &c
			} else {
				rec.Removed = true
			}
		case err == nil:
			rec.Removed = true
			delete(w.records, addr)
		default:
			if cur == nil {
				rec.Removed = true
				break
			}
			r := *cur
			keep := r.Feedback
			fb.Resolved, fb.Created, fb.Enacted = keep.Resolved, keep.Created, keep.Enacted
			fb.Extra = keep.Extra
			if fb.InstanceID == "" {
				fb.InstanceID = keep.InstanceID
			}
			r.Feedback = fb
			rec.Resource = &r
			w.records[addr] = &r
		}
		return rec
	}
	res := req.Resource
	var r state.Resource
	if err != nil && cur != nil && req.Action != ActionCreate {
		// A failed update keeps the spec last enacted: the next plan shows
		// the change again.
		r = *cur
		fb.Resolved, fb.Created, fb.Enacted = cur.Feedback.Resolved, cur.Feedback.Created, cur.Feedback.Enacted
		fb.Allocations = cur.Feedback.Allocations
	} else {
		r = state.Resource{
			Address: addr, Type: res.Type, TypeChain: res.TypeChain, Management: res.Management,
			Driver: res.Driver, Dependencies: n.change.Dependencies, Spec: res.Spec, Sensitive: res.Sensitive,
		}
		if r.Spec == nil {
			r.Spec = map[string]graph.Value{}
		}
		fb.Resolved = req.Resolved
		if cur != nil && !cur.Feedback.Created.IsZero() && n.change.Action != planner.CreateThenDelete && n.change.Action != planner.DeleteThenCreate {
			fb.Created = cur.Feedback.Created
		} else {
			fb.Created = now
		}
		fb.Allocations = w.recordedAllocations(n, cur, err != nil)
		switch {
		case err != nil:
			if cur != nil {
				fb.Enacted = cur.Feedback.Enacted
			}
		case out.Converging:
			// Not done until a health check says active: a crash now
			// leaves it pending, so the next apply checks it again.
			fb.BackendCode = state.BackendPending
			fb.Status.Converging = true
			if fb.BackendStatus == "" {
				fb.BackendStatus = "converging"
			}
		default:
			fb.BackendCode = state.BackendOK
			fb.Enacted = now
		}
	}
	key, val := "", ""
	switch r.Driver.Name {
	case graph.DriverExec:
		key, val = ExtraWorkDir, req.WorkDir
	case graph.DriverScripted:
		key, val = ExtraScriptRoot, req.ScriptRoot
	}
	if val != "" {
		if abs, err := filepath.Abs(val); err == nil {
			val = abs
		}
		extra := maps.Clone(fb.Extra)
		if extra == nil {
			extra = map[string]graph.Value{}
		}
		extra[key] = val
		fb.Extra = extra
	}
	r.Feedback = fb
	rec.Resource = &r
	w.records[addr] = &r
	return rec
}
