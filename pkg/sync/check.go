package sync

import (
	"context"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// check runs the health checks of addrs (every recorded resource when
// addrs is nil: a resync), or with discover the discovery of the factory
// addrs[0], through the refresh-only plan `xosplan refresh` makes, and
// records the drift found as refresh does. It reports whether a resource
// was found changed (failed, gone, converging no more), which the next
// reconcile repairs.
func (e *Engine) check(ctx context.Context, addrs []string, discover bool) bool {
	prior, ok := e.current(ctx)
	if !ok {
		return false
	}
	e.mu.Lock()
	drivers, scriptRoot := e.opts.Drivers, ""
	if e.goal != nil {
		drivers, scriptRoot = e.goal.Drivers, e.goal.ScriptRoot
	}
	e.mu.Unlock()
	if drivers == nil {
		return false
	}
	rf := &executor.Refresher{Drivers: drivers, ScriptRoot: scriptRoot, Timeout: e.opts.Timeout, WorkDir: e.opts.WorkDir,
		State: prior, Redactor: executor.NewRedactorFor(prior, nil), NoDiscovery: !discover}
	p, diags := planner.Diff(ctx, nil, prior, checkOptions(rf, addrs))
	now := e.opts.Clock.Now()
	e.reschedule(e.checkedAddrs(prior, addrs, discover), discover, now)
	if p == nil || ctx.Err() != nil {
		return false
	}
	for _, d := range dropTargeting(diags) {
		e.opts.Logger.Warn("health check could not run", "code", d.Code, "summary", d.Summary, "detail", d.Detail)
		if discover && d.Code == planner.CodeRefresh {
			e.emit(Event{Type: EventScriptFailed, Address: addrs[0], Message: d.Detail})
		}
	}
	if m := e.opts.Metrics; m != nil {
		m.checks.Add(float64(len(e.checkedAddrs(prior, addrs, discover))))
	}
	if len(p.Drift) == 0 {
		if discover {
			e.emitDiscovery(prior, addrs[0])
		}
		return false
	}
	return e.recordDrift(ctx, p, drivers, now, addrs, discover)
}

// current returns the recorded state. The state changes only through
// this engine, which holds its lock: the copy read last is current.
func (e *Engine) current(ctx context.Context) (*state.State, bool) {
	e.mu.Lock()
	prior := e.recorded
	e.mu.Unlock()
	if prior == nil {
		var err error
		if prior, err = e.load(ctx); err != nil {
			e.opts.Logger.Warn("health checks skipped", "error", err.Error())
			return nil, false
		}
	}
	return prior, true
}

// checkOptions are the options of the refresh-only plan that checks addrs
// with rf, or every recorded resource when addrs is nil.
func checkOptions(rf *executor.Refresher, addrs []string) planner.Options {
	opts := planner.Options{RefreshOnly: true, Refresher: rf}
	if addrs != nil {
		// Only these are checked; the planner's selection adds their
		// dependencies, which the filter passes over.
		opts.Targets = addrs
		set := make(map[string]bool, len(addrs))
		for _, a := range addrs {
			set[a] = true
		}
		opts.Refresher = &only{inner: rf, addrs: set}
	}
	return opts
}

// reschedule notes that the resources checked were checked at now and
// sets their next health check or, with discover, their next discovery.
func (e *Engine) reschedule(checked []string, discover bool, now time.Time) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, a := range checked {
		if t := e.tracked[a]; t != nil {
			t.lastCheck = now
			if t.checkable && !discover {
				t.nextCheck = wholeSecond(now.Add(e.jitter(t.interval)))
			}
			if discover && t.schedule != nil {
				t.nextDiscover = t.schedule.Next(now)
			}
		}
	}
}

// recordDrift applies the refresh-only plan p, which found drift, then
// reports each drifted resource and, with discover, what the discovery of
// addrs[0] found. It reports whether drift was recorded: results of
// command invocations a script reported are recorded and reported
// (EventCommand), but are no drift.
func (e *Engine) recordDrift(ctx context.Context, p *planner.Plan, drivers executor.Registry, now time.Time, addrs []string, discover bool) bool {
	after, ok := e.applyDrift(ctx, p, drivers, now)
	if !ok {
		return false
	}
	drifted := false
	for _, d := range p.Drift {
		cmds, paths := commandPaths(d.Paths)
		if len(cmds) > 0 {
			for _, ev := range commandEvents(d) {
				e.emit(ev)
				e.opts.Logger.Info("command result", "address", d.Address, "message", ev.Message)
			}
		}
		if len(paths) == 0 {
			continue
		}
		by := "health check"
		if discover && d.Address != addrs[0] {
			by = "discovery"
		}
		e.noteCheckFailure(d, by)
		drifted = true
		e.emit(Event{Type: EventDrift, Address: d.Address, Message: "changed outside xosplan: " + strings.Join(paths, ", ")})
		e.opts.Logger.Info("drift found", "address", d.Address, "paths", strings.Join(paths, ","))
		if m := e.opts.Metrics; m != nil {
			m.drift.Inc()
		}
	}
	if discover {
		e.emitDiscovery(after, addrs[0])
	}
	return drifted
}

// applyDrift applies the refresh-only plan p, which found drift, and
// returns the state it left, tracked at now.
func (e *Engine) applyDrift(ctx context.Context, p *planner.Plan, drivers executor.Registry, now time.Time) (*state.State, bool) {
	aopts := e.opts.Apply
	aopts.Events = nil
	if _, err := executor.Apply(ctx, p, e.opts.Store, drivers, aopts); err != nil {
		e.opts.Logger.Warn("recording the drift failed", "error", err.Error())
		return nil, false
	}
	after, err := e.load(context.WithoutCancel(ctx))
	if err != nil {
		return nil, false
	}
	e.track(after, now)
	e.policyFeedbackChanged(after)
	return after, true
}

// checkedAddrs lists the resources a check of addrs looked at.
func (e *Engine) checkedAddrs(prior *state.State, addrs []string, discover bool) []string {
	if addrs != nil {
		return addrs
	}
	out := make([]string, 0, len(prior.Resources))
	for i := range prior.Resources {
		out = append(out, prior.Resources[i].Address)
	}
	return out
}

// emitDiscovery reports what a factory's discovery found, as recorded.
func (e *Engine) emitDiscovery(st *state.State, addr string) {
	n := 0
	for i := range st.Resources {
		if r := &st.Resources[i]; r.Address == addr {
			if found, ok := r.Feedback.Attributes[executor.AttrDiscovered].([]any); ok {
				n = len(found)
			}
		}
	}
	e.emit(Event{Type: EventDiscovery, Address: addr, Count: n, Message: "discovery ran"})
	e.opts.Logger.Info("discovery ran", "factory", addr, "unmanaged_instances", n)
}

// only is a Refresher that checks the listed resources and reports the
// others as recorded.
type only struct {
	inner planner.Refresher
	addrs map[string]bool
}

// Observed passes on what the checks observed of other resources (a
// factory's discovery of the instances xosplan manages).
func (o *only) Observed() map[string]state.Feedback {
	if obs, ok := o.inner.(planner.Observer); ok {
		return obs.Observed()
	}
	return nil
}

func (o *only) Refresh(ctx context.Context, r *state.Resource) (state.Feedback, error) {
	if !o.addrs[r.Address] {
		return r.Feedback, nil
	}
	return o.inner.Refresh(ctx, r)
}

// recordResync keeps the time of the full check just made in the state,
// so that a restart schedules the next one from it, and schedules it.
func (e *Engine) recordResync(ctx context.Context) {
	now := e.opts.Clock.Now()
	e.mu.Lock()
	e.lastResync = now
	e.nextResync = now.Add(e.jitter(e.opts.Resync))
	e.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	st, err := e.opts.Store.Read(ctx)
	if err == nil {
		st.Sync = &state.SyncInfo{LastResync: now.UTC().Truncate(time.Second)}
		err = e.opts.Store.Write(ctx, st)
	}
	if err == nil {
		_, err = e.load(ctx)
	}
	if err != nil {
		e.opts.Logger.Warn("recording the resync time failed", "error", err.Error())
	}
}
