package executor

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// desired returns the configured resource of n: from Options.Desired
// when given, else rebuilt from the plan.
func (w *walker) desired(n *node) *graph.Resource {
	c := n.change
	if w.opts.Desired != nil {
		if r, ok := w.opts.Desired.Resource(c.Address); ok {
			return r
		}
	}
	return &graph.Resource{Address: c.Address, Type: c.Type, Driver: c.Driver, Spec: c.After,
		Management: c.Management, Sensitive: c.Sensitive}
}

// skeleton builds the request of a task without resolving anything: the
// action, the resources and where scripts are. It is cheap enough for the
// dispatcher to compute batch keys with.
func (w *walker) skeleton(t task) (Request, string, error) {
	n := t.n
	addr := n.step.Address
	w.mu.Lock()
	var prior *state.Resource
	if n.deposed {
		prior = w.prior[addr]
	} else if r, ok := w.records[addr]; ok {
		c := *r
		prior = &c
	}
	w.mu.Unlock()
	req := Request{Address: addr, ScriptRoot: w.opts.ScriptRoot, Timeout: w.opts.Timeout}
	if n.step.Op == planner.StepDelete {
		req.Action = ActionDelete
		req.Prior = prior
		if prior == nil {
			return req, "", fmt.Errorf("%s is not recorded: nothing to delete", addr)
		}
		req.WorkDir = w.workDir(nil, prior)
		if req.ScriptRoot == "" {
			req.ScriptRoot, _ = prior.Feedback.Extra[ExtraScriptRoot].(string)
		}
		return req, prior.Driver.Name, nil
	}
	res := w.desired(n)
	req.Resource = res
	req.WorkDir = w.workDir(res, prior)
	switch {
	case t.kind == taskHealth:
		req.Action = ActionHealth
		req.Prior = prior
	case n.step.Op == planner.StepCreate:
		req.Action = ActionCreate
		if n.change.Reruns() {
			// The create runs again over the recorded object (its last
			// apply failed, or a health check found it failed): the
			// actuators are idempotent, and goal-oriented repair runs the
			// whole actuator rather than guess which part failed. Prior
			// stays, so the object keeps its id.
			req.Prior = prior
		}
	case n.step.Op == planner.StepUpdate:
		req.Action = ActionUpdate
		req.Prior = prior
		// An update of a resource that was never enacted (a record
		// written by hand) runs the create.
		if prior == nil || prior.Feedback.Enacted.IsZero() {
			req.Action = ActionCreate
		} else if n.change.Reason == planner.ReasonTargetChanged {
			// Only the target_changed operations run (TOSCA 1.3 §5.8.4).
			req.Operations = n.change.ReasonPaths
		}
	case n.step.Op == planner.StepRead:
		req.Action = ActionRead
		req.Prior = prior
	}
	return req, res.Driver.Name, nil
}

// request builds the driver request of a task; the Unknowns in the spec
// and the operation inputs are resolved from the current records.
func (w *walker) request(t task) (Request, namedDriver, error) {
	n := t.n
	req, drvName, err := w.skeleton(t)
	if err != nil {
		return req, namedDriver{}, err
	}
	req.Redactor = w.redact
	req.Output = func(line string) {
		w.emit(Event{Type: EventOutput, Address: req.Address, Action: n.action, Line: w.redact.String(line)})
	}
	if t.kind == taskRun {
		// The intent is repeated with the process group the operation
		// started, so that the run after a crash finds what to end. A
		// journal that fails here fails the outcome record too, which
		// stops the walk.
		addr, action, attempt := req.Address, req.Action, n.attempts+1
		req.Started = func(p state.Process) {
			_ = w.appendRecord(state.Record{Kind: state.RecordIntent, Address: addr, Action: action, Attempt: attempt, Process: &p})
		}
	}
	if req.Action == ActionDelete {
		if in, err := w.resolveInputs(w.resolver(w.lookup, req), req.Prior.Driver, nil); err == nil {
			req.Inputs = in
			w.addSensitiveInputs(req.Prior.Driver, in)
		}
		req.Resolved = req.Prior.Feedback.Resolved
	} else {
		res := req.Resource
		// A resource may read its own attributes (TOSCA get_attribute
		// SELF): before its first apply they have only the values its
		// spec assigns, once resolved; others are null, not an error.
		self := &state.Resource{Address: req.Address}
		lookup := func(addr string) (*state.Resource, bool) {
			if addr == req.Address {
				if r, ok := w.lookup(addr); ok {
					return r, true
				}
				return self, true
			}
			return w.lookupOrDesired(addr)
		}
		rv := w.resolver(lookup, req)
		if req.Resolved, err = rv.ResolveMap(w.driverCtx, res.Spec); err != nil {
			return req, namedDriver{}, err
		}
		self.Feedback.Resolved = req.Resolved
		// An operation that waits for another resource's is resolved
		// only when it runs (inputsOf): what it reads is not there yet.
		if req.Inputs, err = w.resolveInputs(rv, res.Driver, w.waitedOps(n)); err != nil {
			return req, namedDriver{}, err
		}
		// A secret joined at apply time with what another resource
		// reported is known whole only now.
		w.redact.AddPaths(req.Resolved, res.Sensitive)
		w.addSensitiveInputs(res.Driver, req.Inputs)
		req.InputsOf = w.inputsOf(req, n, drvName, self)
		if fa, ok := res.Driver.Options[OptionFactoryAddress].(string); ok {
			req.Factory = scriptFactory(fa, w.lookup)
		}
	}
	d, ok := w.drivers.Lookup(drvName)
	if !ok {
		return req, namedDriver{}, fmt.Errorf("no driver %q", drvName)
	}
	return req, namedDriver{name: drvName, d: d}, nil
}

// resolver resolves the values of req's resource: recorded state through
// lookup, custom functions with the registry's runner (Registry.Functions:
// the exec driver in xosplan's), each run holding one of the walk's
// slots, so that the functions of many resources resolved at once run no
// more than Parallelism at a time.
func (w *walker) resolver(lookup Lookup, req Request) Resolver {
	rv := Resolver{Lookup: lookup, WorkDir: req.WorkDir, Address: req.Address}
	if fr, ok := w.drivers.Functions(); ok {
		rv.Functions = slottedFunctions{w: w, run: fr}
	}
	return rv
}

// slottedFunctions runs custom functions holding a slot of the walk.
// Requests are built before their task takes its own slot, so the two
// never nest.
type slottedFunctions struct {
	w   *walker
	run FunctionRunner
}

func (s slottedFunctions) RunFunction(ctx context.Context, call FunctionCall) (graph.Value, error) {
	select {
	case s.w.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	defer func() { <-s.w.slots }()
	return s.run.RunFunction(ctx, call)
}

// resolveInputs resolves the inputs of every operation of drv but those
// later names (resolved just before they run).
func (w *walker) resolveInputs(rv Resolver, drv graph.Driver, later map[string]bool) (map[string]map[string]graph.Value, error) {
	var out map[string]map[string]graph.Value
	for _, key := range slices.Sorted(maps.Keys(drv.Operations)) {
		op := drv.Operations[key]
		if len(op.Inputs) == 0 || later[key] && !callsFunction(op.Inputs) {
			continue
		}
		in, err := rv.ResolveMap(w.driverCtx, op.Inputs)
		if err != nil {
			return nil, fmt.Errorf("inputs of %s: %w", key, err)
		}
		if out == nil {
			out = map[string]map[string]graph.Value{}
		}
		out[key] = in
	}
	return out, nil
}

// addSensitiveInputs registers the resolved values of drv's sensitive
// operation inputs with the walk's Redactor.
func (w *walker) addSensitiveInputs(drv graph.Driver, resolved map[string]map[string]graph.Value) {
	for key, in := range resolved {
		for _, name := range drv.Operations[key].Sensitive {
			w.redact.AddValue(in[name])
		}
	}
}

// workDir is the source folder of the configured resource, else the one
// recorded when it was applied, else Options.WorkDir.
func (w *walker) workDir(res *graph.Resource, prior *state.Resource) string {
	if d := sourceDir(res); d != "" {
		return d
	}
	if prior != nil {
		if s, ok := prior.Feedback.Extra[ExtraWorkDir].(string); ok && s != "" {
			return s
		}
	}
	return w.opts.WorkDir
}

// sourceDir is the folder of the file res was configured in, absolute
// ("" for none): where its operations run.
func sourceDir(res *graph.Resource) string {
	if res == nil || res.Range.File == "" {
		return ""
	}
	abs, err := filepath.Abs(filepath.Dir(res.Range.File))
	if err != nil {
		return ""
	}
	return abs
}
