package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

type taskKind uint8

const (
	taskRun taskKind = iota
	taskHealth
)

// task is one piece of work the dispatcher hands to a worker: a step's
// run (its first attempt or a retry) or a health check of a converging
// resource.
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

type namedDriver struct {
	name string
	d    Driver
}

// work runs one task: its request, its slot, then (for a run) its
// placement claim and intent, the driver call and its outcome record.
func (w *walker) work(t task) taskResult {
	n := t.n
	if n.step.Op == planner.StepForget {
		return w.forget(t)
	}
	if t.kind == taskRun && (n.change.RecordsOnly() || w.targetsUnchanged(n)) {
		return w.recordOnly(t)
	}
	req, drv, err := w.request(t)
	if err != nil {
		return w.unrunnable(t, req, err)
	}
	if t.kind == taskRun && w.isStopping() {
		return taskResult{t: t, notStarted: true}
	}
	if !w.acquire(drv.name, t.kind == taskRun) {
		return taskResult{t: t, notStarted: true}
	}
	if t.kind == taskRun {
		if res, ok := w.admit(t, req); !ok {
			w.release(drv.name)
			return res
		}
		w.begin(n)
	}
	var out Outcome
	w.driverCall(func() {
		if t.kind == taskRun && n.change.Imports() {
			out, err = adopt(w.driverCtx, drv.d, req, n.change.Import)
		} else {
			out, err = callDriver(w.driverCtx, drv.d, req)
		}
		// A sensitive attribute an operation output set (of the
		// resource, of one of its relationships or of a relationship's
		// target) is a secret from now on, in this resource's output
		// tail too.
		w.redact.AddPaths(out.Feedback.Attributes, state.AttributePaths(n.change.Sensitive))
		w.addSensitiveOutputs(out.Feedback.Attributes, n.change.Sensitive)
		out.Feedback, err = w.redact.Feedback(out.Feedback), w.redact.Error(err)
	}, n)
	if t.kind == taskRun {
		w.settle(n, err)
	}
	w.release(drv.name)
	if t.kind == taskHealth {
		return w.checked(t, req, out, err)
	}
	return w.record(t, req, out, err, errors.Is(err, errWaitedFailed))
}

// targetsUnchanged reports whether n is an update that runs the
// target_changed operations of its relationships
// (planner.ReasonTargetChanged) whose targets, in ForcedBy, all ran and
// report the attributes they reported before the walk: nothing changed to
// tell the resource of, and it runs nothing (recordOnly).
func (w *walker) targetsUnchanged(n *node) bool {
	if n.step.Op != planner.StepUpdate || n.change.Reason != planner.ReasonTargetChanged {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, addr := range n.change.ForcedBy {
		before, now := w.prior[addr], w.records[addr]
		if before == nil || now == nil || !graph.Equal(graph.Value(before.Feedback.Attributes), graph.Value(now.Feedback.Attributes)) {
			return false
		}
	}
	return true
}

// recordOnly records an update that runs nothing
// (planner.ResourceChange.RecordsOnly): the resource as recorded, its
// feedback untouched (values resolved and enacted as they were), with the
// operations the configuration now gives it (a health check, discovery or
// command script). A change of the attribute values the spec assigns
// (its only changed paths) records the new spec too, resolved, and the
// new values under what outputs set (withAssigned). Like forget it calls
// no driver, so it takes no slot and writes no intent.
func (w *walker) recordOnly(t task) taskResult {
	n := t.n
	addr := n.step.Address
	res := w.desired(n)
	w.begin(n)
	var resolved map[string]graph.Value
	if len(n.change.ChangedPaths) > 0 {
		var err error
		rv := w.resolver(w.lookup, Request{Address: addr, WorkDir: sourceDir(res)})
		if resolved, err = rv.ResolveMap(w.driverCtx, res.Spec); err != nil {
			return taskResult{t: t, err: w.redact.Error(err), permanent: true}
		}
		w.redact.AddPaths(resolved, res.Sensitive)
	}
	w.mu.Lock()
	cur, ok := w.records[addr]
	var r state.Resource
	if ok {
		r = *cur
		r.Type, r.TypeChain, r.Driver, r.DerivedBy, r.Dependencies = res.Type, res.TypeChain, res.Driver, res.DerivedBy, n.change.Dependencies
		if resolved != nil {
			r.Spec, r.Sensitive, r.Feedback.Resolved = res.Spec, res.Sensitive, resolved
			r.Feedback.Attributes, r.Feedback.Relationships = withAssigned(r.Feedback.Attributes, r.Feedback.Relationships, resolved, cur)
			r.SetByPolicy = n.change.SetByPolicy
			r.Versions = nextVersions(cur, &r, ActionUpdate, false, w.opts.Now().UTC())
		}
		w.records[addr] = &r
	}
	w.mu.Unlock()
	if !ok {
		return taskResult{t: t, err: fmt.Errorf("%s is not recorded: nothing to update", addr), permanent: true}
	}
	rec := state.Record{Kind: state.RecordOutcome, Address: addr, Action: ActionUpdate, Attempt: n.attempts, Resource: &r}
	if err := w.appendRecord(rec); err != nil {
		return taskResult{t: t, fatal: err}
	}
	return taskResult{t: t, out: Outcome{Feedback: r.Feedback}}
}

// forget drops an unmanaged resource from state without a driver call.
func (w *walker) forget(t task) taskResult {
	addr := t.n.step.Address
	if err := w.appendRecord(state.Record{Kind: state.RecordOutcome, Address: addr, Action: stepForget, Removed: true}); err != nil {
		return taskResult{t: t, fatal: err}
	}
	w.mu.Lock()
	delete(w.records, addr)
	w.mu.Unlock()
	return taskResult{t: t}
}

// acquire takes the driver's slot, then a global one; it gives up when
// the walk stops. A run also gives up a slot won in the instant the walk
// stopped: nothing new starts after a stop.
func (w *walker) acquire(name string, run bool) bool {
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
	case <-w.stopping:
		if sem != nil {
			<-sem
		}
		return false
	}
	if run && w.isStopping() {
		w.release(name)
		return false
	}
	return true
}

// release gives back the slots acquire took.
func (w *walker) release(name string) {
	<-w.slots
	if sem := w.driverSem[name]; sem != nil {
		<-sem
	}
}

// admit claims t's placement and writes its intent, once t holds its
// slot: claims then follow the walk's order, and an intent without an
// outcome always means a driver call that started. When ok is false, res
// says why t did not run.
func (w *walker) admit(t task, req Request) (res taskResult, ok bool) {
	if err := w.claimPlacement(t.n); err != nil {
		return w.unrunnable(t, req, err), false
	}
	if err := w.appendIntent(t.n, req); err != nil {
		w.abandonPlacement(t.n)
		return taskResult{t: t, fatal: err}, false
	}
	return taskResult{}, true
}

// begin counts the attempt of a run that is about to call its driver and
// announces it.
func (w *walker) begin(n *node) {
	n.attempt()
	w.emit(Event{Type: EventStart, Address: n.step.Address, Action: n.action, Attempt: n.attempts})
}

// driverCall runs call, one driver call for nodes, counted in
// Report.MaxInFlight and reported as still running (EventProgress) while
// it lasts.
func (w *walker) driverCall(call func(), nodes ...*node) {
	cur := w.inFlight.Add(1)
	for {
		m := w.maxFlight.Load()
		if cur <= m || w.maxFlight.CompareAndSwap(m, cur) {
			break
		}
	}
	stops := make([]func(), len(nodes))
	for i, n := range nodes {
		stops[i] = w.progress(n)
	}
	call()
	for _, stop := range stops {
		stop()
	}
	w.inFlight.Add(-1)
}

// settle follows a run's driver call, still holding its slot: a failed
// create or update gives its placement back, and a failure for good with
// FailFast stops the walk before the slot goes to a waiting step, so that
// nothing new starts after the first failure.
func (w *walker) settle(n *node, err error) {
	w.settlePlacement(n, err)
	if err != nil && w.opts.FailFast && n.attempts > w.opts.Retries {
		w.stop()
	}
}

// checked reads a health check of a converging resource: it is still
// converging until the check says active, failed when it says so, and
// failed for good (recorded, not retried: another launch would wait as
// long again) past ConvergeTimeout. While it converges nothing is
// recorded.
func (w *walker) checked(t task, req Request, out Outcome, err error) taskResult {
	switch {
	case err != nil:
	case out.Feedback.Status.Failed:
		err = fmt.Errorf("health check: %s", orText(out.Feedback.Status.Message, "the resource failed"))
	case out.Feedback.Status.Active && !out.Converging:
	default:
		out.Converging = true
	}
	if err != nil || !out.Converging {
		return w.record(t, req, out, err, false)
	}
	if time.Since(t.n.converge) <= w.opts.ConvergeTimeout {
		return taskResult{t: t, out: out}
	}
	out.Converging = false
	return w.record(t, req, out, w.convergeTimeout(t.n), true)
}

// convergeTimeout is the failure of n, not active ConvergeTimeout after
// its action returned.
func (w *walker) convergeTimeout(n *node) error {
	return fmt.Errorf("not active %s after its %s returned (converge timeout)", w.opts.ConvergeTimeout, n.action)
}

// unrunnable records a task whose request could not be built or whose
// placement could not be claimed: nothing ran, but the failure is
// recorded so that the next plan acts on the resource again.
func (w *walker) unrunnable(t task, req Request, err error) taskResult {
	t.n.attempt()
	return w.record(t, req, Outcome{}, w.redact.Error(err), true)
}

// batchKey returns the key under which t's driver may serve it together
// with others in one call (BatchDriver), or "".
func (w *walker) batchKey(t task) string {
	if t.n.step.Op == planner.StepForget || t.n.change.RecordsOnly() {
		// Nothing to call the driver for (work).
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

// batchCall is the part of a group of run tasks that one LaunchBatch
// serves.
type batchCall struct {
	tasks []task
	reqs  []Request
	drv   namedDriver
}

// workBatch runs a group of run tasks with equal batch keys as one
// driver call (BatchDriver.LaunchBatch), each with its own intent and
// outcome records, the intents written once the call holds its slot. A
// group of one is an ordinary task.
func (w *walker) workBatch(group []task) []taskResult {
	if len(group) == 1 {
		return []taskResult{w.work(group[0])}
	}
	call, out := w.batchRequests(group)
	if len(call.tasks) == 0 {
		return out
	}
	if !w.acquire(call.drv.name, true) {
		for _, t := range call.tasks {
			out = append(out, taskResult{t: t, notStarted: true})
		}
		return out
	}
	call, out = w.admitBatch(call, out)
	if len(call.tasks) == 0 {
		w.release(call.drv.name)
		return out
	}
	nodes := make([]*node, len(call.tasks))
	for i, t := range call.tasks {
		nodes[i] = t.n
		w.begin(t.n)
	}
	var res []BatchResult
	w.driverCall(func() {
		res = launchBatch(w.driverCtx, call.drv.d.(BatchDriver), call.reqs)
		for i := range res {
			res[i].Outcome.Feedback, res[i].Err = w.redact.Feedback(res[i].Outcome.Feedback), w.redact.Error(res[i].Err)
		}
	}, nodes...)
	for i, t := range call.tasks {
		w.settle(t.n, res[i].Err)
	}
	w.release(call.drv.name)
	for i, t := range call.tasks {
		out = append(out, w.record(t, call.reqs[i], res[i].Outcome, res[i].Err, false))
	}
	return out
}

// batchRequests builds the requests of a group; the results of the tasks
// that will not run (no request, the walk stopped) come back apart.
func (w *walker) batchRequests(group []task) (batchCall, []taskResult) {
	out := make([]taskResult, 0, len(group))
	var call batchCall
	for _, t := range group {
		req, d, err := w.request(t)
		switch {
		case err != nil:
			out = append(out, w.unrunnable(t, req, err))
		case w.isStopping():
			out = append(out, taskResult{t: t, notStarted: true})
		default:
			call.tasks, call.reqs, call.drv = append(call.tasks, t), append(call.reqs, req), d
		}
	}
	return call, out
}

// admitBatch admits each task of call (admit) and keeps those admitted,
// adding the results of the others to out.
func (w *walker) admitBatch(call batchCall, out []taskResult) (batchCall, []taskResult) {
	kept := batchCall{drv: call.drv}
	for i, t := range call.tasks {
		if res, ok := w.admit(t, call.reqs[i]); !ok {
			out = append(out, res)
			continue
		}
		kept.tasks, kept.reqs = append(kept.tasks, t), append(kept.reqs, call.reqs[i])
	}
	return kept, out
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

// progress reports n as still running every ProgressInterval until the
// returned function is called, which waits for the reporter to end.
func (w *walker) progress(n *node) func() {
	if w.opts.ProgressInterval <= 0 || w.opts.Events == nil {
		return func() {}
	}
	start := time.Now()
	return driver.Every(w.opts.ProgressInterval, func() {
		w.emit(Event{Type: EventProgress, Address: n.step.Address, Action: n.action, Attempt: n.attempts, Elapsed: time.Since(start)})
	})
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
