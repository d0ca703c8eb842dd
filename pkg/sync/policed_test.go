package sync

import (
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// TestStepResultRunsThePoliciesThatReadIt: XOS's changed_by_step >
// policed. db's create reports an address, which a model policy reads
// (its feedback): the engine compiles the goal again at once (the
// policies run on the new feedback), records policed, and settles; cache,
// which only a policy that does not read feedback reads, asks for
// nothing.
func TestStepResultRunsThePoliciesThatReadIt(t *testing.T) {
	h := newHarness(t, []string{"cache", "db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	h.drv.report = map[string]map[string]graph.Value{"db": {"ip": "10.0.0.1"}, "cache": {"ip": "10.0.0.2"}}
	h.stack.policed = map[string]bool{"db": true, "cache": false}
	h.stack.policedFrom = h.store
	h.start()
	// The reconcile the step's result asks for.
	h.wait()
	h.stack.mu.Lock()
	goals := h.stack.goals
	h.stack.mu.Unlock()
	if goals != 2 {
		t.Errorf("the goal was compiled %d times, want 2: once, then once for the feedback db's create reported", goals)
	}
	st := h.e.Status()
	if st.Reconciles != 2 {
		t.Errorf("%d reconciles, want 2", st.Reconciles)
	}
	db := h.status("db")
	if db.Policed == nil || db.ChangedByStep == nil || db.ChangedByStep.After(*db.Policed) {
		t.Errorf("db: policed %v, changed_by_step %v: the policies have not seen the step's result", db.Policed, db.ChangedByStep)
	}
}

// TestPolicyFeedbackLoopIsBounded: policies that never settle with the
// steps they trigger (here: the policed version never catches up) are
// run again at most workflow.PolicyMaxRounds times in a row, then the
// status reports policy.no_fixed_point and the engine waits.
func TestPolicyFeedbackLoopIsBounded(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	h.drv.report = map[string]map[string]graph.Value{"db": {"ip": "10.0.0.1"}}
	h.stack.policed = map[string]bool{"db": true}
	h.start()
	for range workflow.PolicyMaxRounds {
		h.wait()
	}
	h.stack.mu.Lock()
	goals := h.stack.goals
	h.stack.mu.Unlock()
	if goals != 1+workflow.PolicyMaxRounds {
		t.Errorf("the goal was compiled %d times, want %d", goals, 1+workflow.PolicyMaxRounds)
	}
	if !slices.ContainsFunc(h.e.Status().Diagnostics, func(d Diagnostic) bool { return d.Code == workflow.CodePolicyNoFixedPoint }) {
		t.Errorf("no %s in the status: %+v", workflow.CodePolicyNoFixedPoint, h.e.Status().Diagnostics)
	}
	// A change of the configuration gives the policies a new bound: one
	// reconcile for it, and as many again as the bound allows.
	h.e.ConfigurationChanged("file changed")
	for range 1 + workflow.PolicyMaxRounds {
		h.wait()
	}
	h.stack.mu.Lock()
	goals = h.stack.goals
	h.stack.mu.Unlock()
	if want := 2 * (1 + workflow.PolicyMaxRounds); goals != want {
		t.Errorf("after a change, the goal was compiled %d times in all, want %d", goals, want)
	}
}
