package executor

import (
	"context"
	"fmt"
	"maps"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// inputsOf returns the Request.InputsOf of req, a request that runs the
// operations of drv on the resource at req.Address: the inputs of one
// operation resolved again, just before it runs, over the current
// records with what the request's earlier operations reported (reported:
// the resource's attributes, recorded ones included, under the names
// Operation.Outputs gives them) placed where they belong — the
// resource's own attributes, its relationships', its relationships'
// targets' (placeOutputs). So Standard.configure reads the attribute
// Standard.create's output set in this run, and a relationship's
// operation the one an earlier operation set, not what the previous
// apply recorded. self stands for the resource before its first apply
// (its resolved spec's attribute values).
//
// Inputs that call a TOSCA 2.0 custom function keep the values resolved
// when the request was built: an implementation runs once per request.
// The resolution runs inside the driver's call, which holds a slot of
// the walk, so it takes none.
func (w *walker) inputsOf(req Request, n *node, drvName string, self *state.Resource) func(context.Context, string, map[string]graph.Value) (map[string]graph.Value, error) {
	drv := req.Resource.Driver
	return func(ctx context.Context, key string, reported map[string]graph.Value) (map[string]graph.Value, error) {
		own, ok := w.lookup(req.Address)
		if !ok {
			own = self
		}
		attrs, rels, toTargets := placeOutputs(state.Feedback{Attributes: reported}, own)
		// The operations before key have run: those waiting for them
		// (walk_waits.go) may go on, and key may wait in turn.
		w.advance(req.Address, key, attrs)
		partial, err := w.waitFor(ctx, n, drvName, key)
		if err != nil {
			return nil, err
		}
		op, ok := drv.Operations[key]
		if !ok || len(op.Inputs) == 0 || callsFunction(op.Inputs) {
			return req.Inputs[key], nil
		}
		records := withPartial(w.lookupOrDesired, partial)
		lookup := func(addr string) (*state.Resource, bool) {
			if addr == req.Address {
				r := *own
				r.Feedback.Attributes, r.Feedback.Relationships = attrs, rels
				return &r, true
			}
			r, ok := records(addr)
			if !ok || len(toTargets[addr]) == 0 {
				return r, ok
			}
			t := *r
			t.Feedback.Attributes = maps.Clone(t.Feedback.Attributes)
			if t.Feedback.Attributes == nil {
				t.Feedback.Attributes = map[string]graph.Value{}
			}
			maps.Copy(t.Feedback.Attributes, toTargets[addr])
			return &t, true
		}
		rv := Resolver{Lookup: lookup, WorkDir: req.WorkDir, Address: req.Address}
		in, err := rv.ResolveMap(ctx, op.Inputs)
		if err != nil {
			return nil, fmt.Errorf("inputs of %s: %w", key, err)
		}
		w.addSensitiveInputs(drv, map[string]map[string]graph.Value{key: in})
		return in, nil
	}
}

// callsFunction reports whether v holds a TOSCA 2.0 custom function call.
func callsFunction(v graph.Value) bool {
	return anyUnknown(v, func(u graph.Unknown) bool { return u.Func == "function" })
}

// anyUnknown reports whether fn holds for an Unknown in v, at any depth,
// its arguments included.
func anyUnknown(v graph.Value, fn func(graph.Unknown) bool) bool {
	switch x := v.(type) {
	case graph.Unknown:
		if fn(x) {
			return true
		}
		for _, a := range x.Args {
			if anyUnknown(a, fn) {
				return true
			}
		}
	case []graph.Value:
		for _, e := range x {
			if anyUnknown(e, fn) {
				return true
			}
		}
	case map[string]graph.Value:
		for _, e := range x {
			if anyUnknown(e, fn) {
				return true
			}
		}
	}
	return false
}
