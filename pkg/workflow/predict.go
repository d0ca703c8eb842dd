package workflow

import (
	"context"
	"path/filepath"

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
		pd, ok := reg[r.Driver.Name].(driver.Predictor)
		if !ok {
			continue
		}
		var rec *state.Resource
		if prior != nil {
			rec, _ = prior.Lookup(c.Address)
		}
		lookup := func(addr string) (*state.Resource, bool) {
			if prior != nil {
				if r, ok := prior.Lookup(addr); ok {
					return r, true
				}
			}
			if addr == c.Address {
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
		for _, key := range pd.PredictedOperations(action, r.Driver) {
			if ctx.Err() != nil {
				return out
			}
			pr := Prediction{Address: c.Address, Prediction: driver.Prediction{Operation: key, Changed: -1}}
			inputs, err := executor.ResolveMap(r.Driver.Operations[key].Inputs, lookup)
			if err != nil {
				pr.Skipped = red.String("its inputs are known only after apply (" + err.Error() + ")")
				out = append(out, pr)
				continue
			}
			req := executor.Request{Action: action, Address: c.Address, Resource: r, Prior: rec, WorkDir: dir,
				Inputs: map[string]map[string]graph.Value{key: inputs}, Redactor: red}
			pr.Prediction, pr.Err = pd.Predict(ctx, req, key)
			pr.Err = red.Error(pr.Err)
			out = append(out, pr)
		}
	}
	return out
}
