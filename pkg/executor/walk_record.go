package executor

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// appendIntent records that n's driver call is about to start. It is
// written only once the call holds its slot, right before the call, so
// that an intent without an outcome always means a call that started.
func (w *walker) appendIntent(n *node, req Request) error {
	return w.appendRecord(state.Record{Kind: state.RecordIntent, Address: n.step.Address, Action: req.Action, Attempt: n.attempts + 1})
}

// appendRecord appends rec to the journal and returns once it is durable.
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

// record appends the outcome record of t's driver call (or of its failure
// before the call) and returns the task's result; a journal that fails is
// fatal.
func (w *walker) record(t task, req Request, out Outcome, err error, permanent bool) taskResult {
	rec, targets := w.outcomeRecord(t.n, req, out, err)
	for _, r := range append([]state.Record{rec}, targets...) {
		if jerr := w.appendRecord(r); jerr != nil {
			return taskResult{t: t, fatal: jerr}
		}
	}
	return taskResult{t: t, out: out, err: err, permanent: permanent}
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
	return withInstances(r, recs), true
}

// lookupOrDesired is lookup, but a resource of the plan that nothing
// records yet reads as its desired spec: the values its template assigns
// to its attributes (TOSCA 1.3 §3.8.3; known() leaves out those known
// only after apply). An operation reads it so only where no ordering
// holds it until the resource has run: a read of an attribute no
// operation maps that would otherwise close a dependency cycle
// (graph.Index's soft reads).
func (w *walker) lookupOrDesired(addr string) (*state.Resource, bool) {
	if r, ok := w.lookup(addr); ok {
		return r, true
	}
	spec, ok := w.unrecorded[addr]
	if !ok {
		return nil, false
	}
	return &state.Resource{Address: addr, Spec: spec}, true
}

// outcomeRecord builds the journal record of a driver call (or of a
// failure before it) and updates the current records. The outputs the
// call mapped onto attributes of the resource's relationships are
// recorded with the resource; those mapped onto a relationship's target
// update the target's record, each in a record of its own (targets).
func (w *walker) outcomeRecord(n *node, req Request, out Outcome, err error) (rec state.Record, targets []state.Record) {
	addr := n.step.Address
	now := w.opts.Now().UTC()
	rec = state.Record{Kind: state.RecordOutcome, Address: addr, Action: req.Action, Attempt: n.attempts, Time: now}
	w.mu.Lock()
	defer w.mu.Unlock()
	cur := w.records[addr]
	fb := outcomeFeedback(out.Feedback, n.attempts, now, err)
	if req.Action == ActionDelete {
		w.deleteOutcome(&rec, n, cur, fb, err)
		return rec, nil
	}
	var toTargets map[string]map[string]graph.Value
	fb.Attributes, fb.Relationships, toTargets = placeOutputs(fb, req.Prior)
	if err == nil && (req.Action == ActionCreate || req.Action == ActionUpdate) {
		fb.Attributes, fb.Relationships = withAssigned(fb.Attributes, fb.Relationships, req.Resolved, req.Prior)
	}
	targets = w.setTargetAttributes(toTargets, now)
	var r state.Resource
	if err != nil && cur != nil && req.Action != ActionCreate {
		// A failed update keeps the spec last enacted: the next plan shows
		// the change again.
		r = *cur
		fb.Resolved, fb.Created, fb.Enacted = cur.Feedback.Resolved, cur.Feedback.Created, cur.Feedback.Enacted
		fb.Allocations = cur.Feedback.Allocations
	} else {
		r, fb = w.enacted(n, req, cur, out, fb, now, err)
	}
	d, _ := w.drivers.Lookup(r.Driver.Name)
	fb.Extra = withSource(fb.Extra, d, req)
	r.Feedback = fb
	r.Versions = nextVersions(cur, &r, req.Action, err != nil, now)
	rec.Resource = &r
	w.records[addr] = &r
	return rec, targets
}

// outcomeFeedback is the feedback a driver call reported, with its
// attempt counted and, when it failed, marked failed with err.
func outcomeFeedback(fb state.Feedback, attempts int, now time.Time, err error) state.Feedback {
	fb.Attempts = attempts
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
	return fb
}

// deleteOutcome completes rec, the record of a delete of n, and the
// current records: the resource is gone, or, after a failure, kept as it
// was enacted with the failure's feedback. w.mu is held.
func (w *walker) deleteOutcome(rec *state.Record, n *node, cur *state.Resource, fb state.Feedback, err error) {
	switch {
	case n.deposed:
		// The new object stays recorded at the address, whether the old
		// one went or not (a failure is in the report).
		if cur != nil {
			c := *cur
			rec.Resource = &c
		} else {
			rec.Removed = true
		}
	case err == nil:
		rec.Removed = true
		delete(w.records, rec.Address)
	case cur == nil:
		rec.Removed = true
	default:
		r := *cur
		keep := r.Feedback
		fb.Resolved, fb.Created, fb.Enacted = keep.Resolved, keep.Created, keep.Enacted
		fb.Extra = keep.Extra
		if fb.InstanceID == "" {
			fb.InstanceID = keep.InstanceID
		}
		r.Feedback = fb
		rec.Resource = &r
		w.records[rec.Address] = &r
	}
}

// enacted is the record of n after a create, update, read or health check
// that enacted the configured resource, or that failed with nothing
// enacted before: the resource as configured and its feedback (fb
// completed).
func (w *walker) enacted(n *node, req Request, cur *state.Resource, out Outcome, fb state.Feedback, now time.Time, err error) (state.Resource, state.Feedback) {
	res := req.Resource
	r := state.Resource{
		Address: n.step.Address, Type: res.Type, TypeChain: res.TypeChain, Management: res.Management,
		Driver: res.Driver, Dependencies: n.change.Dependencies, Spec: res.Spec, Sensitive: res.Sensitive,
		DerivedBy: res.DerivedBy, SetByPolicy: n.change.SetByPolicy,
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
		// Not done until a health check says active: a crash now leaves
		// it pending, so the next apply checks it again.
		fb.BackendCode = state.BackendPending
		fb.Status.Converging = true
		if fb.BackendStatus == "" {
			fb.BackendStatus = "converging"
		}
	default:
		fb.BackendCode = state.BackendOK
		fb.Enacted = now
	}
	return r, fb
}

// withSource returns extra with where the resource's scripts are, so that
// later deletes, refreshes and commands find them without the
// configuration: the folder its driver d names (driver.SourceRecorder;
// an exec resource's work folder, a scripted one's script root).
func withSource(extra map[string]graph.Value, d Driver, req Request) map[string]graph.Value {
	sr, ok := d.(driver.SourceRecorder)
	if !ok {
		return extra
	}
	key, val := sr.Source(req)
	if val == "" {
		return extra
	}
	if abs, err := filepath.Abs(val); err == nil {
		val = abs
	}
	extra = maps.Clone(extra)
	if extra == nil {
		extra = map[string]graph.Value{}
	}
	extra[key] = val
	return extra
}
