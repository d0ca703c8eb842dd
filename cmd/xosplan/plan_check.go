package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/all"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// defaultCheckTimeout bounds each check-mode run of plan --check without
// --check-timeout.
const defaultCheckTimeout = 2 * time.Minute

// prediction is one operation's prediction under plan --check.
type prediction struct {
	address string
	driver.Prediction
	err error
}

// predictChanges runs, for plan --check, each operation the plan would
// run whose driver can predict (driver.Predictor: the Ansible driver's
// playbooks, in check mode with --diff), for every create and update in
// plan order: what it would change on its host, nothing changed. An operation whose inputs read what
// only the apply will record is skipped with the reason. Each run is
// bounded by timeout; the walk stops when ctx ends.
func predictChanges(ctx context.Context, p *planner.Plan, desired *graph.Graph, prior *state.State, opts executor.DriverOptions) []prediction {
	reg := all.NewRegistry(opts)
	red := executor.NewRedactorFor(prior, desired)
	var out []prediction
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
			pr := prediction{address: c.Address, Prediction: driver.Prediction{Operation: key, Changed: -1}}
			inputs, err := executor.ResolveMap(r.Driver.Operations[key].Inputs, lookup)
			if err != nil {
				pr.Skipped = "its inputs are known only after apply (" + err.Error() + ")"
				out = append(out, pr)
				continue
			}
			req := executor.Request{Action: action, Address: c.Address, Resource: r, Prior: rec, WorkDir: dir,
				Inputs: map[string]map[string]graph.Value{key: inputs}, Redactor: red}
			pr.Prediction, pr.err = pd.Predict(ctx, req, key)
			out = append(out, pr)
		}
	}
	return out
}

// writePredictions prints plan --check's predictions under the plan.
func writePredictions(w io.Writer, preds []prediction) error {
	var b strings.Builder
	b.WriteString("\nCheck mode: what the playbooks would change on their hosts, as ansible-playbook --check --diff\npredicts it. A prediction: nothing was changed.\n")
	if len(preds) == 0 {
		b.WriteString("\nNo playbook to check.\n")
	}
	for _, p := range preds {
		fmt.Fprintf(&b, "\n  # %s: %s", p.address, p.Operation)
		switch {
		case p.Skipped != "":
			fmt.Fprintf(&b, " not checked: %s\n", p.Skipped)
			continue
		case p.err != nil:
			fmt.Fprintf(&b, " could not be checked: %v\n", p.err)
		case p.Changed == 0:
			b.WriteString(" would change nothing\n")
			continue
		case p.Changed > 0:
			fmt.Fprintf(&b, " would change %d task(s)\n", p.Changed)
		default:
			b.WriteString("\n")
		}
		for _, l := range strings.Split(strings.TrimRight(p.Output, "\n"), "\n") {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "PLAY") || strings.HasPrefix(l, "ok: ") {
				continue
			}
			b.WriteString("      " + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
