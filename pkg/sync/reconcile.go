package sync

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// reconcile plans the goal against the state and applies what differs,
// leaving out the resources that wait (a retry not yet due, a failure
// that waits for a change of the configuration) and what depends on them.
func (e *Engine) reconcile(ctx context.Context, reason string) {
	start := e.opts.Clock.Now()
	e.setReconciling(true)
	defer e.setReconciling(false)
	e.emit(Event{Type: EventReconcileStart, Message: reason})
	e.opts.Logger.Info("reconcile started", "reason", reason)
	outcome, rep, err := e.reconcileOnce(ctx, start)
	end := e.opts.Clock.Now()
	e.mu.Lock()
	e.run.reconciles++
	e.run.lastReconcile = end
	e.run.lastOutcome = outcome
	e.run.lastError = ""
	if err != nil {
		e.run.lastError = err.Error()
	}
	if outcome == OutcomeApplied || outcome == OutcomeNoChanges {
		e.run.lastSuccess = end
		e.run.ready = true
	}
	e.recordReconcile(start, end.Sub(start), reason, outcome, rep, err)
	e.mu.Unlock()
	ev := Event{Type: EventReconcileEnd, Outcome: outcome, Report: rep, Elapsed: end.Sub(start)}
	if err != nil {
		ev.Message = err.Error()
	}
	e.emit(ev)
	attrs := []any{"outcome", outcome, "elapsed", end.Sub(start).Round(time.Millisecond)}
	if rep != nil {
		attrs = append(attrs, "added", rep.Added, "changed", rep.Changed, "destroyed", rep.Destroyed, "failed", rep.Failed, "skipped", rep.Skipped)
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
		e.opts.Logger.Warn("reconcile ended", attrs...)
	} else {
		e.opts.Logger.Info("reconcile ended", attrs...)
	}
	if m := e.opts.Metrics; m != nil {
		m.reconciled(outcome, end.Sub(start), e.run.lastSuccess)
		if rep != nil {
			m.applied(rep, e.goalDrivers())
		}
		e.observe()
	}
}

func (e *Engine) setReconciling(on bool) {
	e.mu.Lock()
	e.run.reconciling = on
	e.mu.Unlock()
}

// goalDrivers maps each address of the goal to its driver name.
func (e *Engine) goalDrivers() map[string]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := map[string]string{}
	if e.recorded != nil {
		for i := range e.recorded.Resources {
			out[e.recorded.Resources[i].Address] = e.recorded.Resources[i].Driver.Name
		}
	}
	if e.goal != nil {
		for _, r := range e.goal.Desired.Resources() {
			out[r.Address] = r.Driver.Name
		}
	}
	return out
}

// errConfiguration is the error of a reconcile whose configuration has
// errors; the diagnostics say which.
var errConfiguration = errors.New("the configuration has errors; waiting for it to change")

func (e *Engine) reconcileOnce(ctx context.Context, now time.Time) (string, *executor.Report, error) {
	goal, err := e.currentGoal(ctx, now)
	if err != nil {
		if errors.Is(err, errConfiguration) {
			return OutcomeInvalid, nil, err
		}
		return OutcomeError, nil, err
	}
	if err := e.touch(ctx, now); err != nil {
		return OutcomeError, nil, err
	}
	prior, err := e.load(ctx)
	if err != nil {
		e.retryGoal(now)
		return OutcomeError, nil, err
	}
	p, excludes, diags := e.plan(ctx, goal, prior, now)
	if p == nil || diags.HasErrors() {
		e.setDiags(diags)
		if ctx.Err() != nil {
			return OutcomeStopped, nil, ctx.Err()
		}
		return OutcomeInvalid, nil, errConfiguration
	}
	e.forgetSettled(p, excludes)
	if len(p.Steps()) == 0 {
		return e.nothingToRun(ctx, goal, now)
	}
	aopts, drivers := e.applyOptions(goal)
	rep, applyErr := executor.Apply(ctx, p, e.opts.Store, drivers, aopts)
	after := e.opts.Clock.Now()
	if rep != nil {
		e.settle(rep, after, ctx.Err() != nil)
	}
	if st, err := e.load(context.WithoutCancel(ctx)); err == nil {
		e.track(st, after)
		e.releaseConverged(st)
	}
	switch {
	case applyErr != nil:
		e.retryGoal(after)
		return OutcomeError, rep, applyErr
	case rep.Interrupted || ctx.Err() != nil:
		return OutcomeStopped, rep, nil
	case !rep.OK():
		return OutcomeFailed, rep, nil
	}
	if _, _, err := executor.RecordOutputs(context.WithoutCancel(ctx), e.opts.Store, goal.Desired); err != nil {
		return OutcomeError, rep, err
	}
	// The copy health checks read must be the state as written.
	st, err := e.load(context.WithoutCancel(ctx))
	if err != nil {
		return OutcomeError, rep, err
	}
	e.policyFeedbackChanged(st)
	return OutcomeApplied, rep, nil
}

// nothingToRun ends a reconcile whose plan has no step as apply does: a
// journal a killed run left is folded into the snapshot, and the outputs
// may have changed without any resource.
func (e *Engine) nothingToRun(ctx context.Context, goal *Goal, now time.Time) (string, *executor.Report, error) {
	bg := context.WithoutCancel(ctx)
	if _, err := e.opts.Store.Compact(bg); err != nil {
		return OutcomeError, nil, fmt.Errorf("saving state: %w", err)
	}
	if _, _, err := executor.RecordOutputs(bg, e.opts.Store, goal.Desired); err != nil {
		return OutcomeError, nil, err
	}
	st, err := e.load(bg)
	if err != nil {
		return OutcomeError, nil, err
	}
	e.track(st, now)
	e.policyFeedbackChanged(st)
	return OutcomeNoChanges, nil, nil
}

// applyOptions are the options and drivers a reconcile applies the plan
// of goal with: no retry within the apply (the engine retries on its own
// schedule), events as the engine's, and a cluster's dispatch.
func (e *Engine) applyOptions(goal *Goal) (executor.Options, executor.Registry) {
	aopts := e.opts.Apply
	aopts.Retries = -1
	aopts.Desired = goal.Desired
	aopts.ScriptRoot = goal.ScriptRoot
	aopts.Placer = goal.Placer
	aopts.Events = func(ev executor.Event) {
		e.emit(Event{Type: EventApply, Address: ev.Address, Apply: &ev, Time: ev.Time})
		e.noteApplyFailure(ev)
	}
	if e.opts.WorkDir != "" {
		aopts.WorkDir = e.opts.WorkDir
	}
	drivers := goal.Drivers
	if c := e.opts.Cluster; c != nil {
		var parallelism int
		drivers, parallelism = c.Dispatch(goal)
		if parallelism > 0 {
			aopts.Parallelism = parallelism
		}
	}
	return aopts, drivers
}

// plan makes the reconcile's plan: the goal against prior, less what
// waits (blocked), which it returns too.
func (e *Engine) plan(ctx context.Context, goal *Goal, prior *state.State, now time.Time) (*planner.Plan, []string, diag.Diagnostics) {
	excludes := e.blocked(goal, prior, now)
	opts := goal.Plan
	opts.Excludes = excludes
	p, diags := planner.Diff(ctx, goal.Desired, prior, opts)
	return p, excludes, dropTargeting(diags)
}

// currentGoal returns the goal, compiled again when the configuration may
// have changed. An invalid configuration is errConfiguration until it
// changes again.
func (e *Engine) currentGoal(ctx context.Context, now time.Time) (*Goal, error) {
	e.mu.Lock()
	goal, dirty := e.goal, e.dirty
	e.dirty = false
	e.mu.Unlock()
	if !dirty {
		if goal == nil {
			return nil, errConfiguration
		}
		return goal, nil
	}
	g, diags, err := e.opts.Goal(ctx)
	if err != nil {
		e.mu.Lock()
		e.dirty = true
		e.mu.Unlock()
		e.retryGoal(now)
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	e.setDiags(diags)
	for _, d := range diags {
		level := "warning"
		if d.Severity == diag.Error {
			level = "error"
		}
		e.opts.Logger.Warn("configuration "+level, "code", d.Code, "at", d.Range.String(), "summary", d.Summary)
	}
	if !g.usable(diags) {
		e.mu.Lock()
		e.goal, e.reverse = nil, nil
		e.mu.Unlock()
		return nil, errConfiguration
	}
	e.reportHeld(g)
	fp := fingerprintOf(g)
	rev := reverseEdges(g.Desired)
	e.mu.Lock()
	e.goal, e.reverse, e.fingerprint = g, rev, fp
	e.mu.Unlock()
	return g, nil
}

// retryGoal schedules another reconcile after an environment failure.
func (e *Engine) retryGoal(now time.Time) {
	e.mu.Lock()
	e.goalRetry = now.Add(e.jitter(e.opts.RetryBase))
	e.mu.Unlock()
}

func (e *Engine) setDiags(diags diag.Diagnostics) {
	e.mu.Lock()
	e.configDiags = diags
	e.mu.Unlock()
}

// dropTargeting removes the planner's "targeting is in effect" warning,
// which the engine's own excludes would raise on every reconcile.
func dropTargeting(diags diag.Diagnostics) diag.Diagnostics {
	return slices.DeleteFunc(slices.Clone(diags), func(d diag.Diagnostic) bool { return d.Code == planner.CodeTargeting })
}

// blocked returns the addresses to leave out of this reconcile: those
// whose retry is not due, those that wait for the configuration to change,
// and the dependents of a resource that is converging. Whatever depends
// on them (the planner leaves that out too) is marked as waiting on them.
func (e *Engine) blocked(goal *Goal, prior *state.State, now time.Time) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	known := make(map[string]bool, len(prior.Resources))
	for i := range prior.Resources {
		known[prior.Resources[i].Address] = true
	}
	for _, a := range goal.Desired.Addresses() {
		known[a] = true
	}
	for _, t := range e.tracked {
		t.waitingOn, t.waitReason = "", ""
	}
	var excludes []string
	block := func(addr, why string, self bool) {
		if self {
			excludes = append(excludes, addr)
		}
		e.markDependents(addr, why, self, &excludes)
	}
	for _, addr := range slices.Sorted(maps.Keys(e.tracked)) {
		t := e.tracked[addr]
		switch {
		case !known[addr]:
			t.failures, t.nextRetry, t.needsChange = 0, time.Time{}, ""
		case t.needsChange != "" && t.needsChange == e.fingerprint:
			t.waitReason = "waits for a change of the configuration: " + t.lastError
			block(addr, "a change of the configuration of "+addr, true)
		case t.needsChange != "":
			// The configuration changed since: try again now.
			t.needsChange = ""
		case t.nextRetry.After(now):
			t.waitReason = fmt.Sprintf("retry %d at %s", t.failures+1, t.nextRetry.UTC().Format(time.RFC3339))
			block(addr, "the retry of "+addr, true)
		}
	}
	held := e.holdBack(goal, prior, known, block)
	excludes = append(excludes, held...)
	e.converging = e.converging[:0]
	for i := range prior.Resources {
		r := &prior.Resources[i]
		if r.Feedback.Status.Converging && !r.Feedback.Status.Failed {
			e.converging = append(e.converging, r.Address)
			block(r.Address, r.Address+" to become active", false)
		}
	}
	slices.Sort(excludes)
	return slices.Compact(excludes)
}

// markDependents marks everything that depends on addr, directly or not,
// as waiting on it; the direct dependents are excluded when addr itself
// is not (a converging resource stays in the plan).
func (e *Engine) markDependents(addr, why string, self bool, excludes *[]string) {
	seen := map[string]bool{addr: true}
	queue := []string{addr}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range e.reverse[cur] {
			if seen[d] {
				continue
			}
			seen[d] = true
			if !self && cur == addr {
				*excludes = append(*excludes, d)
			}
			t := e.tracked[d]
			if t == nil {
				t = &tracked{}
				e.tracked[d] = t
			}
			if t.waitingOn == "" {
				t.waitingOn, t.waitReason = addr, "waits for "+why
			}
			queue = append(queue, d)
		}
	}
}

// releaseConverged asks for another reconcile when a resource that held
// its dependents (converging) became active in this one: they start now,
// not at the next trigger.
func (e *Engine) releaseConverged(st *state.State) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, addr := range e.converging {
		for i := range st.Resources {
			if r := &st.Resources[i]; r.Address == addr && !r.Feedback.Status.Converging {
				e.reasons["converged"] = true
				e.signal()
				return
			}
		}
	}
}

// forgetSettled drops the retry schedule of resources that no longer
// need action: neither planned now nor left out.
func (e *Engine) forgetSettled(p *planner.Plan, excludes []string) {
	planned := map[string]bool{}
	for _, c := range p.Changes {
		if c.Action != planner.NoOp {
			planned[c.Address] = true
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for addr, t := range e.tracked {
		if !planned[addr] && !slices.Contains(excludes, addr) && t.needsChange == "" {
			t.failures, t.nextRetry, t.lastError = 0, time.Time{}, ""
		}
	}
}

// settle records what became of each step: success clears the failure
// count, a failure schedules its retry (or, when only a change of the
// configuration can mend it, waits for that), a skipped step waits on the
// failure that held it.
func (e *Engine) settle(rep *executor.Report, now time.Time, stopping bool) {
	e.mu.Lock()
	var failed [][3]string
	// A replacement has two steps; the resource succeeded only if both
	// applied.
	failedAddr := map[string]bool{}
	for _, s := range rep.Steps {
		if s.Result == executor.ResultFailed {
			failedAddr[s.Address] = true
		}
	}
	for _, s := range rep.Steps {
		t := e.tracked[s.Address]
		if t == nil {
			t = &tracked{}
			e.tracked[s.Address] = t
		}
		switch s.Result {
		case executor.ResultApplied:
			if !failedAddr[s.Address] {
				t.failures, t.nextRetry, t.lastError, t.needsChange = 0, time.Time{}, "", ""
				t.waitingOn, t.waitReason = "", ""
				// Its playbooks ran: what the drift check found is
				// what they repaired.
				t.drift = ""
			}
		case executor.ResultFailed:
			if stopping && errors.Is(s.Err, executor.ErrInterrupted) {
				continue
			}
			t.lastError = s.Error
			if errors.Is(s.Err, executor.ErrNeedsChange) {
				t.needsChange = e.fingerprint
				t.waitReason = "waits for a change of the configuration: " + s.Error
			} else {
				t.failures++
				t.nextRetry = now.Add(e.backoff(t.failures))
				t.waitReason = fmt.Sprintf("retry %d at %s", t.failures+1, t.nextRetry.UTC().Format(time.RFC3339))
			}
			failed = append(failed, [3]string{s.Address, s.Action, t.waitReason})
		case executor.ResultSkipped:
			cause, _, _ := strings.Cut(s.Cause, " (")
			t.waitingOn, t.waitReason = cause, "waits for "+s.Cause
		}
	}
	e.mu.Unlock()
	for _, f := range failed {
		e.opts.Logger.Warn("resource failed", "address", f[0], "action", f[1], "then", f[2])
	}
}

// holdBack marks the resources the configuration's errors hold
// (Goal.Held) and what depends on them as waiting, and returns the
// addresses to leave out of the plan besides those block leaves out:
// while the configuration has errors, a recorded resource it does not
// declare is not deleted, since a template that does not compile is not
// a removed one. The caller holds e.mu.
func (e *Engine) holdBack(goal *Goal, prior *state.State, known map[string]bool, block func(addr, why string, self bool)) []string {
	if len(goal.Held) == 0 {
		return nil
	}
	for _, addr := range slices.Sorted(maps.Keys(goal.Held)) {
		t := e.trackedOf(addr)
		if known[addr] {
			block(addr, "a fix of the configuration of "+addr, true)
		}
		t.waitReason = heldReason(goal.Held[addr])
	}
	var excludes []string
	for i := range prior.Resources {
		addr := prior.Resources[i].Address
		if _, configured := goal.Desired.Resource(addr); configured || goal.Held[addr] != nil {
			continue
		}
		excludes = append(excludes, addr)
		e.trackedOf(addr).waitReason = "its deletion waits until the configuration has no errors"
	}
	return excludes
}

// trackedOf returns what the engine tracks of addr, made when it tracks
// nothing yet. The caller holds e.mu.
func (e *Engine) trackedOf(addr string) *tracked {
	t := e.tracked[addr]
	if t == nil {
		t = &tracked{}
		e.tracked[addr] = t
	}
	return t
}

// heldReason says why a held resource waits: the first of its errors,
// positioned, with its code.
func heldReason(errs diag.Diagnostics) string {
	if len(errs) == 0 {
		return "held by an error of the configuration"
	}
	msg := "held by an error of the configuration: " + diagnosticText(errs[0])
	if n := len(errs) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// diagnosticText renders d on one line as validate does: where, what, and
// the code.
func diagnosticText(d diag.Diagnostic) string {
	at := d.Range.String()
	if at != "" {
		at += ": "
	}
	return at + d.Summary + " [" + d.Code + "]"
}

// reportHeld logs each resource the goal's configuration errors hold and
// records it in the resource's activity (EventHeld).
func (e *Engine) reportHeld(g *Goal) {
	for _, addr := range slices.Sorted(maps.Keys(g.Held)) {
		errs := g.Held[addr]
		if len(errs) == 0 {
			continue
		}
		e.opts.Logger.Warn("resource held", "address", addr, "code", errs[0].Code, "at", errs[0].Range.String(), "summary", errs[0].Summary)
		e.emit(Event{Type: EventHeld, Address: addr, Message: heldReason(errs)})
	}
}
