package executor

import (
	"context"
	"fmt"

	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Placer claims and releases the placement of resources during apply. It
// is declared here, where it is consumed; planner.Claimer implements it
// over a placement backend (the embedded model rebuilt from the inventory
// and the state's allocations, or a real Placement API).
type Placer interface {
	// Claim takes the planned allocations of the resource at address
	// before its create or update runs, replacing prior (what it holds
	// now); it may re-place when they no longer fit. It returns what the
	// resource holds afterwards. Claiming again what is held is a no-op.
	Claim(ctx context.Context, address string, d *planner.PlacementDecision, prior []state.Allocation) ([]state.Allocation, error)
	// Held returns what Claim took for address in this apply.
	Held(address string) ([]state.Allocation, bool)
	// Undo gives back what Claim took after the action failed, holding
	// prior again.
	Undo(ctx context.Context, address string, prior []state.Allocation)
	// Release frees what the resource holds, after its delete.
	Release(ctx context.Context, address string)
}

// claimsPlacement reports whether a run of n claims a placement: the
// create or update of a resource the plan placed anew.
func (w *walker) claimsPlacement(n *node) bool {
	return w.opts.Placer != nil && n.change != nil && n.change.Placement != nil && !n.change.Placement.Kept &&
		(n.step.Op == planner.StepCreate || n.step.Op == planner.StepUpdate)
}

// priorAllocations is what the resource held when the apply began; the
// old half of a replacement gave its allocations back with its delete.
func (w *walker) priorAllocations(n *node) []state.Allocation {
	if n.change.Action.IsReplace() && n.change.Action != planner.CreateThenDelete {
		return nil
	}
	if r := w.prior[n.step.Address]; r != nil {
		return r.Feedback.Allocations
	}
	return nil
}

// claimPlacement claims n's placement before its driver runs; an error
// fails the action without running it (its dependents are skipped).
func (w *walker) claimPlacement(n *node) error {
	if !w.claimsPlacement(n) {
		return nil
	}
	if _, err := w.opts.Placer.Claim(w.driverCtx, n.step.Address, n.change.Placement, w.priorAllocations(n)); err != nil {
		return fmt.Errorf("placement: %w", err)
	}
	return nil
}

// settlePlacement runs after a driver call of n: a failed create or update
// gives back what it claimed; a finished delete releases the resource's
// allocations, except the old half of a create-then-delete, whose consumer
// the replacement already holds.
func (w *walker) settlePlacement(n *node, err error) {
	if w.opts.Placer == nil || n.change == nil {
		return
	}
	switch {
	case err != nil && w.claimsPlacement(n):
		w.opts.Placer.Undo(w.driverCtx, n.step.Address, w.priorAllocations(n))
	case err == nil && n.step.Op == planner.StepDelete && !n.deposed && n.change.Action != planner.CreateThenDelete:
		if r := w.prior[n.step.Address]; r != nil && len(r.Feedback.Allocations) > 0 {
			w.opts.Placer.Release(w.driverCtx, n.step.Address)
		}
	}
}

// abandonPlacement gives back n's claim when its step is abandoned (the
// walk stopped before the driver ran).
func (w *walker) abandonPlacement(n *node) {
	if w.claimsPlacement(n) {
		w.opts.Placer.Undo(w.driverCtx, n.step.Address, w.priorAllocations(n))
	}
}

// recordedAllocations is what the state records for n after a driver call
// that leaves a new record: what was claimed, else the plan's decision,
// else (an update, or a create run again over the recorded object, without
// a decision) what the resource held. After a failure the claim was given
// back (Undo): the resource holds what it held before, nothing for a new
// object.
func (w *walker) recordedAllocations(n *node, cur *state.Resource, failed bool) []state.Allocation {
	if w.opts.Placer != nil {
		if held, ok := w.opts.Placer.Held(n.step.Address); ok && !failed {
			return held
		}
	}
	switch {
	case failed && w.claimsPlacement(n):
		return w.priorAllocations(n)
	case n.change.Placement != nil:
		return n.change.Placement.Allocations
	case cur != nil && (n.step.Op == planner.StepUpdate || n.step.Op == planner.StepCreate && n.change.Reruns()):
		return cur.Feedback.Allocations
	}
	return nil
}
