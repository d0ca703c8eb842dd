package workflow

import (
	"context"
	"path/filepath"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Prediction is one operation's prediction under plan --check.
type Prediction struct {
	// Address is the resource's.
	Address string
	driver.Prediction
	// Err is why the prediction could not be made.
	Err error
}

// PredictChanges runs, for plan --check, each operation the plan would
// run whose driver can predict (driver.Predictor: the Ansible driver's
// playbooks, in check mode with --diff), for every create and update in
// plan order: what it would change on its host, nothing changed. An operation whose inputs read what
// only the apply will record is skipped with the reason. Each run is
// bounded by timeout; the walk stops when ctx ends.
func PredictChanges(ctx context.Context, p *planner.Plan, desired *graph.Graph, prior *state.State, opts executor.DriverOptions) []Prediction {
	reg := Drivers(opts)
	red := executor.NewRedactorFor(prior, desired)
	var out []Prediction
	for i := range p.Changes {
		c := &p.Changes[i]
		action := ""
		switch c.Action {
		case planner.Create, planner.DeleteThenCreate, planner.CreateThenDelete:
			action = executor.ActionCreate
		case planner.Update:
			action = executor.ActionUpdate
		default:
			continue
		}
		r, ok := desired.Resource(c.Address)
		if !ok {
			continue
		}
		var rec *state.Resource
		if prior != nil {
			rec, _ = prior.Lookup(c.Address)
		}
		preds, done := predictResource(ctx, reg, red, r, rec, prior, action, 0)
		out = append(out, preds...)
		if !done {
			return out
		}
	}
	return out
}

// CheckDrift runs, for sync's drift check, the operations an update of
// the configured resource addr of desired (recorded in prior) would run,
// when its driver in reg can predict (driver.Predictor: Ansible's check
// mode with --diff), changing nothing: a prediction with changes means
// its host no longer is what those operations make it. Each run is
// bounded by timeout (0: the driver's). Nil when addr is not configured
// or recorded, or its driver cannot predict.
func CheckDrift(ctx context.Context, reg executor.Registry, desired *graph.Graph, prior *state.State, addr string, timeout time.Duration) []Prediction {
	r, ok := desired.Resource(addr)
	if !ok || prior == nil {
		return nil
	}
	rec, ok := prior.Lookup(addr)
	if !ok {
		return nil
	}
	preds, _ := predictResource(ctx, reg, executor.NewRedactorFor(prior, desired), r, rec, prior, executor.ActionUpdate, timeout)
	return preds
}

// predictResource predicts each operation action would run on r whose
// driver in reg can predict, in order, and reports whether it went
// through them all (false: ctx ended).
func predictResource(ctx context.Context, reg executor.Registry, red *executor.Redactor, r *graph.Resource, rec *state.Resource, prior *state.State, action string, timeout time.Duration) ([]Prediction, bool) {
	pd, ok := reg[r.Driver.Name].(driver.Predictor)
	if !ok {
		return nil, true
	}
	lookup := func(addr string) (*state.Resource, bool) {
		if prior != nil {
			if r, ok := prior.Lookup(addr); ok {
				return r, true
			}
		}
		if addr == r.Address {
			// Its own attributes before its first apply are null.
			return &state.Resource{Address: addr}, true
		}
		return nil, false
	}
	dir := "."
	if r.Range.File != "" {
		dir = filepath.Dir(r.Range.File)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	var out []Prediction
	for _, key := range pd.PredictedOperations(action, r.Driver) {
		if ctx.Err() != nil {
			return out, false
		}
		pr := Prediction{Address: r.Address, Prediction: driver.Prediction{Operation: key, Changed: -1}}
		inputs, err := executor.ResolveMap(r.Driver.Operations[key].Inputs, lookup)
		if err != nil {
			pr.Skipped = red.String("its inputs are known only after apply (" + err.Error() + ")")
			out = append(out, pr)
			continue
		}
		req := executor.Request{Action: action, Address: r.Address, Resource: r, Prior: rec, WorkDir: dir, Timeout: timeout,
			Inputs: map[string]map[string]graph.Value{key: inputs}, Redactor: red}
		pr.Prediction, pr.Err = pd.Predict(ctx, req, key)
		pr.Err = red.Error(pr.Err)
		out = append(out, pr)
	}
	return out, true
}
