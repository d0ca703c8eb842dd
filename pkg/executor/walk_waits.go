package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Operation waits (planner.ResourceChange.OperationWaits): two resources
// configured with each other's attributes both start, and each operation
// that reads what an operation of the other reports waits, in
// Request.InputsOf (which the driver calls just before the operation),
// until that operation has run. The graph admits such waits only when the
// lifecycle phases order them (graph.Index.Waits), so the waits cannot
// deadlock; a waiting operation gives its slot back while it waits, so
// that the operation it waits for can run at any parallelism.

// opProgress is how far the create lifecycle of a resource of the walk
// has come.
type opProgress struct {
	// phases counts the graph.CreatePhases done; attrs are the
	// attributes their operations reported, placed (placeOutputs).
	phases int
	attrs  map[string]graph.Value
	// ended: the step ended (ok: applied); cause says why not.
	ended, ok bool
	cause     string
}

// waitState holds the progress of the resources other operations wait
// for, under walker.mu.
type waitState struct {
	progress map[string]*opProgress
	// changed is closed, and replaced, whenever progress changes.
	changed chan struct{}
}

// initWaits notes the resources of the walk whose operations another
// waits for: those whose create or update runs in this walk. A resource
// the walk does not run has run every operation already.
func (w *walker) initWaits() {
	waited := map[string]bool{}
	for i := range w.plan.Changes {
		for _, wt := range w.plan.Changes[i].OperationWaits {
			waited[wt.Address] = true
		}
	}
	if len(waited) == 0 {
		return
	}
	w.waits = waitState{progress: map[string]*opProgress{}, changed: make(chan struct{})}
	for _, n := range w.nodes {
		if !n.barrier && !n.deposed && waited[n.step.Address] && (n.step.Op == planner.StepCreate || n.step.Op == planner.StepUpdate) {
			w.waits.progress[n.step.Address] = &opProgress{}
		}
	}
}

// waitedOps lists the operations of n that wait for a resource the walk
// runs.
func (w *walker) waitedOps(n *node) map[string]bool {
	var out map[string]bool
	for _, wt := range n.change.OperationWaits {
		if _, ok := w.waits.progress[wt.Address]; ok {
			if out == nil {
				out = map[string]bool{}
			}
			out[wt.Operation] = true
		}
	}
	return out
}

// advance records that the resource at addr is about to run operation
// key: every phase before key's has run, reporting attrs.
func (w *walker) advance(addr, key string, attrs map[string]graph.Value) {
	rank, ok := graph.PhaseRank(key)
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.waits.progress[addr]
	if !ok || p == nil || p.ended || rank < p.phases {
		return
	}
	p.phases, p.attrs = rank, maps.Clone(attrs)
	close(w.waits.changed)
	w.waits.changed = make(chan struct{})
}

// ended records the end of the step of n for the operations waiting for
// it.
func (w *walker) ended(n *node, ok bool, cause string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.waits.progress[n.step.Address]
	if p == nil || n.deposed || p.ended {
		return
	}
	p.ended, p.ok, p.cause = true, ok, cause
	close(w.waits.changed)
	w.waits.changed = make(chan struct{})
}

// waitFor holds operation key of n until every operation it waits for
// has run, giving back the slots of driver drvName meanwhile. It returns
// the attributes reported so far by the resources it waited for that have
// not ended (their records do not hold them yet).
func (w *walker) waitFor(ctx context.Context, n *node, drvName, key string) (map[string]map[string]graph.Value, error) {
	var waits []graph.OpWait
	for _, wt := range n.change.OperationWaits {
		if _, ok := w.waits.progress[wt.Address]; ok && wt.Operation == key {
			waits = append(waits, wt)
		}
	}
	if len(waits) == 0 {
		return nil, nil
	}
	released := false
	defer func() {
		if released {
			w.reacquire(drvName)
		}
	}()
	for {
		w.mu.Lock()
		partial, pending, err := w.waitsMet(waits)
		changed := w.waits.changed
		w.mu.Unlock()
		if err != nil || !pending {
			return partial, err
		}
		if !released {
			w.release(drvName)
			released = true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil, fmt.Errorf("%s waited for %s: %w", key, waits[0].Address, context.Cause(ctx))
		case <-w.stopping:
			return nil, fmt.Errorf("%s waited for %s: %w", key, waits[0].Address, errWaitStopped)
		}
	}
}

// Errors of an operation that waits for another resource's: the apply
// stopped first; the resource waited for failed or was skipped, which
// another attempt would not change (the failure is permanent).
var (
	errWaitStopped  = errors.New("the apply stopped before the operation it reads ran")
	errWaitedFailed = errors.New("the resource it reads did not apply")
)

// waitsMet, under mu, reports whether any of waits is still pending, and
// the attributes reported so far by the resources waited for that have
// not ended. A resource waited for whose step failed or was skipped fails
// the wait.
func (w *walker) waitsMet(waits []graph.OpWait) (partial map[string]map[string]graph.Value, pending bool, err error) {
	for _, wt := range waits {
		p := w.waits.progress[wt.Address]
		rank, _ := graph.PhaseRank(wt.After)
		switch {
		case p.ended && !p.ok:
			why := "failed"
			if p.cause != "" {
				why = "was skipped: " + p.cause + " failed"
			}
			return nil, false, fmt.Errorf("%s reads what %s of %s reports, and %s %s%w", wt.Operation, wt.After, wt.Address, wt.Address, why, silent{errWaitedFailed})
		case p.ended:
		case p.phases > rank:
			if partial == nil {
				partial = map[string]map[string]graph.Value{}
			}
			partial[wt.Address] = p.attrs
		default:
			pending = true
		}
	}
	return partial, pending, nil
}

// reacquire takes back the slots a waiting operation gave up, whether or
// not the walk stopped meanwhile: the driver call that holds them goes on
// and gives them back when it ends. It cannot block for ever: every
// holder of a slot is a driver call that ends (its timeout, the walk's
// cancellation), or an operation that gave its slot back to wait.
func (w *walker) reacquire(drvName string) {
	if sem := w.driverSem[drvName]; sem != nil {
		sem <- struct{}{}
	}
	w.slots <- struct{}{}
}

// withPartial overlays on lookup the attributes partial holds.
func withPartial(lookup Lookup, partial map[string]map[string]graph.Value) Lookup {
	if len(partial) == 0 {
		return lookup
	}
	return func(addr string) (*state.Resource, bool) {
		attrs, ok := partial[addr]
		if !ok {
			return lookup(addr)
		}
		r := &state.Resource{Address: addr}
		if rec, found := lookup(addr); found {
			c := *rec
			r = &c
		}
		r.Feedback.Attributes = maps.Clone(r.Feedback.Attributes)
		if r.Feedback.Attributes == nil {
			r.Feedback.Attributes = map[string]graph.Value{}
		}
		maps.Copy(r.Feedback.Attributes, attrs)
		return r, true
	}
}

// silent wraps an error for errors.Is without adding to the message.
type silent struct{ err error }

func (s silent) Error() string { return "" }
func (s silent) Unwrap() error { return s.err }
