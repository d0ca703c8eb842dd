package executor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/xosplan/xosplan/pkg/planner"
)

// errStoppedConverging fails a converging resource whose next health
// check the apply stopped before it could run.
var errStoppedConverging = errors.New("the apply stopped while waiting for the resource to become active")

// dispatcher schedules one walk, as OpenTofu's dag.Walker does its graph:
// it starts the tasks whose dependencies are done, hands each to a worker
// (walk_task.go), and turns the worker's result into the node's end or
// its next attempt, and a node's end into its dependents' start or skip.
// Only the goroutine of walker.run touches its fields and the nodes'
// scheduling fields; workers and timers reach it through results and
// timerFired.
type dispatcher struct {
	w *walker
	// stage bounds the tasks started and not yet handled, so that a wide
	// graph does not start a goroutine per step; the slots (walker.acquire)
	// bound the driver calls among them.
	stage      int
	results    chan taskResult
	timerFired chan task
	workers    sync.WaitGroup
	timerWG    sync.WaitGroup

	ready []task
	// keyed counts the ready run tasks per batch key, so that grouping
	// scans the queue only when a batch is possible.
	keyed  map[string]int
	active int // tasks started and not yet handled
	timers int // retries and health checks waiting for their time

	fatal       error
	interrupted bool
	// grace cancels the running driver calls Options.Grace after ctx ends.
	grace *time.Timer
}

// run walks the DAG to its end and reports every step. It returns when
// every worker and timer it started has returned.
func (w *walker) run(ctx context.Context) (*Report, error) {
	begin := time.Now()
	stage := max(4*w.opts.Parallelism, 128)
	d := &dispatcher{
		w:          w,
		stage:      stage,
		results:    make(chan taskResult, stage),
		timerFired: make(chan task),
		keyed:      map[string]int{},
	}
	defer w.cancelDriver(context.Canceled)
	if w.opts.Abort != nil {
		stop := context.AfterFunc(w.opts.Abort, func() {
			w.cancelDriver(fmt.Errorf("%w again: stopped at once", ErrInterrupted))
		})
		defer stop()
	}
	d.seed()
	d.loop(ctx)
	d.workers.Wait()
	d.timerWG.Wait()
	if d.grace != nil {
		d.grace.Stop()
	}
	rep := d.report()
	fatal := d.fatal
	if w.plan.Mode == planner.ModeRefreshOnly && fatal == nil {
		fatal = w.recordDrift(rep)
	}
	rep.Elapsed = time.Since(begin)
	return rep, fatal
}

// seed readies the steps that wait for nothing and passes the barriers of
// empty phases.
func (d *dispatcher) seed() {
	for _, n := range d.w.nodes {
		if n.pending == 0 && !n.barrier {
			d.push(task{n: n, kind: taskRun})
		}
	}
	for _, n := range d.w.nodes {
		if n.barrier && n.pending == 0 && !n.done {
			d.finish(n, ResultApplied)
		}
	}
}

// loop dispatches until nothing runs, nothing waits for its time and
// nothing more may start. When ctx ends it stops the walk and arms grace.
func (d *dispatcher) loop(ctx context.Context) {
	ctxDone := ctx.Done()
	for {
		d.startReady()
		if d.active == 0 && d.timers == 0 && (d.w.isStopping() || len(d.ready) == 0) {
			return
		}
		select {
		case r := <-d.results:
			d.active--
			d.handle(r)
		case t := <-d.timerFired:
			d.timers--
			d.wake(t)
		case <-ctxDone:
			ctxDone = nil
			d.interrupted = true
			d.w.stop()
			grace := d.w.opts.Grace
			d.grace = time.AfterFunc(grace, func() {
				d.w.cancelDriver(fmt.Errorf("%w: the grace period (%s) ended", ErrInterrupted, grace))
			})
		}
	}
}

// push makes t ready, noting its batch key.
func (d *dispatcher) push(t task) {
	t.key = ""
	if t.kind == taskRun {
		t.key = d.w.batchKey(t)
		if t.key != "" {
			d.keyed[t.key]++
		}
	}
	d.ready = append(d.ready, t)
}

// startReady starts ready tasks, in order, while the walk goes on and the
// stage has room: each alone, or with the other ready tasks that one
// driver call can serve.
func (d *dispatcher) startReady() {
	for !d.w.isStopping() && len(d.ready) > 0 && d.active < d.stage {
		t := d.ready[0]
		d.ready = d.ready[1:]
		if t.key == "" {
			d.active++
			d.workers.Go(func() { d.results <- d.w.work(t) })
			continue
		}
		group := d.batch(t)
		d.active += len(group)
		d.workers.Go(func() {
			for _, r := range d.w.workBatch(group) {
				d.results <- r
			}
		})
	}
}

// batch takes from the ready queue the other tasks that one script run
// can serve with t (equal batch keys), as many as one call and the stage
// take.
func (d *dispatcher) batch(t task) []task {
	d.keyed[t.key]--
	group := []task{t}
	if d.keyed[t.key] == 0 {
		return group
	}
	rest := d.ready[:0:0]
	for _, u := range d.ready {
		if u.key == t.key && len(group) < maxBatch && d.active+len(group) < d.stage {
			group = append(group, u)
			d.keyed[u.key]--
		} else {
			rest = append(rest, u)
		}
	}
	d.ready = rest
	return group
}

// handle turns a worker's result into the node's end, its next health
// check or its retry.
func (d *dispatcher) handle(r taskResult) {
	n := r.t.n
	switch {
	case r.fatal != nil:
		if d.fatal == nil {
			d.fatal = r.fatal
		}
		d.w.stop()
		n.result.Error, n.result.Err = r.fatal.Error(), r.fatal
		d.finish(n, ResultFailed)
	case r.notStarted && r.t.kind == taskHealth:
		d.fail(n, errStoppedConverging)
	case r.notStarted:
		d.w.emit(Event{Type: EventNotStarted, Address: n.step.Address, Action: n.action})
		d.finish(n, ResultNotStarted)
	case r.err == nil && r.out.Converging:
		d.converging(r)
	case r.err == nil:
		ev := Event{Type: EventComplete, Address: n.step.Address, Action: n.action, Attempt: n.attempts, Elapsed: n.elapsed()}
		if n.action == ActionRead || n.change.Imports() {
			ev.Detail = d.w.redact.String(r.out.Feedback.BackendStatus)
		}
		d.w.emit(ev)
		d.finish(n, ResultApplied)
	case !r.permanent && n.attempts <= d.w.opts.Retries && !d.w.isStopping():
		n.lastErr = r.err
		delay := d.w.opts.Backoff(n.attempts)
		d.w.emit(Event{Type: EventRetry, Address: n.step.Address, Action: n.action, Attempt: n.attempts,
			Elapsed: n.elapsed(), Delay: delay, Error: r.err.Error()})
		d.later(task{n: n, kind: taskRun}, delay)
	default:
		d.fail(n, r.err)
	}
}

// converging holds a resource that reported converging, and its
// dependents, until a health check says it is active; past
// ConvergeTimeout it fails.
func (d *dispatcher) converging(r taskResult) {
	n := r.t.n
	if n.converge.IsZero() {
		n.converge = time.Now()
	}
	if time.Since(n.converge) > d.w.opts.ConvergeTimeout {
		d.fail(n, d.w.convergeTimeout(n))
		return
	}
	if r.t.kind == taskRun {
		d.w.emit(Event{Type: EventConverging, Address: n.step.Address, Action: n.action, Attempt: n.attempts, Elapsed: n.elapsed()})
	}
	d.later(task{n: n, kind: taskHealth}, d.w.opts.HealthInterval)
}

// later readies t after delay, or as soon as the walk stops.
func (d *dispatcher) later(t task, delay time.Duration) {
	d.timers++
	d.timerWG.Go(func() {
		tm := time.NewTimer(delay)
		defer tm.Stop()
		select {
		case <-tm.C:
		case <-d.w.stopping:
		}
		d.timerFired <- t
	})
}

// wake readies a task whose time came, unless the walk stopped meanwhile:
// its step then fails with what it waited for.
func (d *dispatcher) wake(t task) {
	switch {
	case !d.w.isStopping():
		d.push(t)
	case t.kind == taskRun:
		d.fail(t.n, fmt.Errorf("%w (not retried: the apply stopped)", t.n.lastErr))
	default:
		d.fail(t.n, errStoppedConverging)
	}
}

// fail ends n as failed for good; with FailFast nothing new starts.
func (d *dispatcher) fail(n *node, err error) {
	n.lastErr = err
	n.result.Error, n.result.Err = err.Error(), err
	d.w.emit(Event{Type: EventErrored, Address: n.step.Address, Action: n.action, Attempt: n.attempts,
		Elapsed: n.elapsed(), Error: err.Error()})
	d.finish(n, ResultFailed)
	if d.w.opts.FailFast {
		d.w.stop()
	}
}

// finish ends n with res and passes the end on: the nodes that wait for n
// to finish move on; those that need it to succeed move on only if it
// applied, and are skipped otherwise.
func (d *dispatcher) finish(n *node, res string) {
	n.done = true
	n.result.Result = res
	n.result.Attempts = n.attempts
	n.result.Elapsed = n.elapsed()
	d.w.ended(n, res == ResultApplied, n.result.Cause)
	for _, m := range n.softNext {
		d.unblock(m)
	}
	cause := n.step.Address + " (" + n.action + ")"
	if n.result.Cause != "" {
		cause = n.result.Cause // skip only names the root failure
	}
	for _, m := range n.hardNext {
		if res == ResultApplied {
			d.unblock(m)
		} else {
			d.skip(m, cause)
		}
	}
}

// unblock counts one of m's dependencies done; m is ready (a barrier
// passed) once all are.
func (d *dispatcher) unblock(m *node) {
	m.pending--
	if m.pending > 0 || m.done {
		return
	}
	if m.barrier {
		d.finish(m, ResultApplied)
		return
	}
	d.push(task{n: m, kind: taskRun})
}

// skip ends n without running it, because cause failed.
func (d *dispatcher) skip(n *node, cause string) {
	if n.done {
		return
	}
	n.result.Cause = cause
	d.w.emit(Event{Type: EventSkipped, Address: n.step.Address, Action: n.action, Cause: cause})
	d.finish(n, ResultSkipped)
}

// report ends every step that never started as not started and sums the
// steps up, in plan order.
func (d *dispatcher) report() *Report {
	rep := &Report{Interrupted: d.interrupted, MaxInFlight: int(d.w.maxFlight.Load())}
	for _, n := range d.w.nodes {
		if n.barrier {
			continue
		}
		if !n.done {
			n.done = true
			n.result.Result = ResultNotStarted
			d.w.emit(Event{Type: EventNotStarted, Address: n.step.Address, Action: n.action})
		}
		rep.Steps = append(rep.Steps, n.result)
		rep.count(n.result)
	}
	return rep
}
