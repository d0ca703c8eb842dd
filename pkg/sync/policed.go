package sync

import (
	"slices"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// reasonPolicyFeedback is the reconcile reason of a step that changed
// what a model policy reads.
const reasonPolicyFeedback = "a step changed feedback a model policy reads"

// policyFeedbackChanged runs the model policies again (XOS: a policy runs
// when changed_by_step > policed) when a step changed the recorded
// feedback of a resource that a policy reading feedback read: it asks for
// a reconcile that compiles the goal again. Consecutive reconciles asked
// for that way are bounded by the policies' own fixed-point bound
// (workflow.PolicyMaxRounds, the policies' own); past it the engine stops asking and reports
// policy.no_fixed_point among the configuration's diagnostics, until a
// reconcile finds the policies in line with the feedback again.
func (e *Engine) policyFeedbackChanged(st *state.State) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.goal == nil || st == nil {
		return
	}
	var pending []string
	for addr, pr := range e.goal.Desired.Policed {
		if !pr.Feedback {
			continue
		}
		if r, ok := st.Lookup(addr); ok && r.CurrentVersions().NeedsPolicy() {
			pending = append(pending, addr)
		}
	}
	if len(pending) == 0 {
		e.policyRounds = 0
		return
	}
	slices.Sort(pending)
	e.policyRounds++
	if e.policyRounds > workflow.PolicyMaxRounds {
		if e.policyRounds == workflow.PolicyMaxRounds+1 {
			e.configDiags = e.configDiags.Warnf(diag.Range{}, "", workflow.CodePolicyNoFixedPoint,
				"the model policies that read feedback and the steps they trigger still change each other after %d reconciles (%s): a cycle that does not terminate; the synchronizer stops running them again until the configuration changes",
				workflow.PolicyMaxRounds, pending[0])
			e.opts.Logger.Warn("model policies do not settle", "code", workflow.CodePolicyNoFixedPoint, "resources", pending)
		}
		return
	}
	e.dirty = true
	e.reasons[reasonPolicyFeedback] = true
	e.signal()
}
