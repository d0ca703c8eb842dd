package sync

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// DefaultCheckDriftTimeout bounds each check-mode run of the drift check
// when Options.CheckDriftTimeout is not set.
const DefaultCheckDriftTimeout = 2 * time.Minute

// checkDrift runs the drift check of each of addrs (Options.CheckDrift):
// the operations an update would run, in check mode (workflow.CheckDrift),
// changing nothing. A resource whose run predicts changes has drifted:
// it is reported as a health check's drift is (an EventDrift, the log,
// the drift metric) and its status says so until a check finds it in
// line again. Only a configured resource whose last apply succeeded, that
// no reconcile is about to change, is checked. Each run is bounded by
// Options.CheckDriftTimeout; the checks stop when ctx ends. With
// Options.CheckDriftRepair the drift is recorded in the state (the
// resource failed) and checkDrift reports whether it recorded any, which
// the next reconcile repairs.
func (e *Engine) checkDrift(ctx context.Context, addrs []string) bool {
	prior, ok := e.current(ctx)
	if !ok {
		return false
	}
	recorded := false
	e.mu.Lock()
	goal := e.goal
	e.mu.Unlock()
	for _, addr := range addrs {
		if ctx.Err() != nil {
			return recorded
		}
		now := e.opts.Clock.Now()
		e.mu.Lock()
		t := e.tracked[addr]
		if t != nil {
			t.nextDriftCheck = wholeSecond(now.Add(e.jitter(e.opts.CheckDrift)))
		}
		e.mu.Unlock()
		if t == nil || goal == nil || !e.driftCheckable(goal, addr) {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, e.opts.CheckDriftTimeout)
		preds := workflow.CheckDrift(rctx, goal.Drivers, goal.Desired, prior, addr, e.opts.CheckDriftTimeout)
		cancel()
		if ctx.Err() != nil {
			return recorded
		}
		if msg := e.driftFound(addr, preds, now); msg != "" && e.opts.CheckDriftRepair {
			recorded = e.recordCheckDrift(ctx, goal, addr, msg, now) || recorded
			if prior, ok = e.current(ctx); !ok {
				return recorded
			}
		}
	}
	return recorded
}

// recordCheckDrift records addr, which the drift check found drifted
// (msg says how), as failed through a refresh-only plan, as refresh
// records a failed health check: the next reconcile runs it again.
func (e *Engine) recordCheckDrift(ctx context.Context, goal *Goal, addr, msg string, now time.Time) bool {
	prior, ok := e.current(ctx)
	if !ok {
		return false
	}
	opts := planner.Options{RefreshOnly: true, Targets: []string{addr}, Refresher: drifted{addr: addr, msg: msg}}
	p, _ := planner.Diff(ctx, nil, prior, opts)
	if p == nil || len(p.Drift) == 0 || ctx.Err() != nil {
		return false
	}
	_, ok = e.applyDrift(ctx, p, goal.Drivers, now)
	return ok
}

// drifted is the Refresher of recordCheckDrift: addr is observed failed
// with msg, every other resource as recorded.
type drifted struct{ addr, msg string }

func (d drifted) Refresh(_ context.Context, r *state.Resource) (state.Feedback, error) {
	fb := r.Feedback
	if r.Address == d.addr {
		fb.Status = state.Status{Failed: true, Message: "drifted: " + d.msg}
	}
	return fb, nil
}

// driftCheckable reports whether addr is a configured, managed resource
// whose last apply succeeded and which no retry or reconcile is about to
// change: what its operations made of its host can be checked.
func (e *Engine) driftCheckable(goal *Goal, addr string) bool {
	r, ok := goal.Desired.Resource(addr)
	if !ok || r.Management != graph.Managed {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	t := e.tracked[addr]
	if t == nil || t.failures > 0 || t.needsChange != "" {
		return false
	}
	if e.recorded == nil {
		return false
	}
	rec, ok := e.recorded.Lookup(addr)
	return ok && !rec.Feedback.Status.Failed
}

// driftFound records what the drift check of addr at now predicted and
// returns what it found would change ("" for nothing). A drift is
// reported (event, log, metric) when found, not again at every check
// that finds it unchanged.
func (e *Engine) driftFound(addr string, preds []workflow.Prediction, now time.Time) string {
	var changed []string
	checked := false
	for _, p := range preds {
		switch {
		case p.Skipped != "":
			e.opts.Logger.Info("drift check skipped an operation", "address", addr, "operation", p.Operation, "reason", p.Skipped)
		case p.Err != nil:
			e.opts.Logger.Warn("drift check could not run", "address", addr, "operation", p.Operation, "error", p.Err.Error())
		default:
			checked = true
			if p.Changed > 0 {
				changed = append(changed, p.Operation+" would change "+strconv.Itoa(p.Changed)+" task(s)")
			}
		}
	}
	if !checked {
		return ""
	}
	msg := ""
	if len(changed) > 0 {
		msg = "check mode: " + strings.Join(changed, ", ")
	}
	e.mu.Lock()
	t := e.tracked[addr]
	known := false
	if t != nil {
		t.lastDriftCheck = now
		known = t.drift == msg
		t.drift = msg
	}
	e.mu.Unlock()
	if msg == "" {
		return ""
	}
	if known && !e.opts.CheckDriftRepair {
		// Reported when found; status keeps showing it.
		return msg
	}
	e.emit(Event{Type: EventDrift, Address: addr, Message: "changed outside xosplan: " + msg})
	e.opts.Logger.Info("drift found", "address", addr, "check_mode", msg)
	if m := e.opts.Metrics; m != nil {
		m.drift.Inc()
	}
	return msg
}

// takeDriftDue returns the resources whose drift check is due at now.
func (e *Engine) takeDriftDue(now time.Time) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var due []string
	for addr, t := range e.tracked {
		if !t.nextDriftCheck.IsZero() && !t.nextDriftCheck.After(now) {
			due = append(due, addr)
		}
	}
	return due
}
