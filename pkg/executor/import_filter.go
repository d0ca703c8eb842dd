package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// ErrIDFilter: an import filter names an ID field (graph.IsIDField). ORC's
// rule: a filter finds an object by what it is; an id is given as such.
var ErrIDFilter = errors.New("an import filter never names an ID field")

// CheckFilter refuses an empty filter and one that names an ID field.
func CheckFilter(filter map[string]graph.Value) error {
	if len(filter) == 0 {
		return errors.New("the import filter is empty")
	}
	for k := range filter {
		if graph.IsIDField(k) {
			return fmt.Errorf("%w: %s (import it by id instead: xosplan import ADDRESS ID)", ErrIDFilter, k)
		}
	}
	return nil
}

// findByFilter finds the one existing object of req.Resource whose fields
// equal every key of filter, and returns what is known of it (its
// instance id, its attributes): through the resource's lookup operation
// (a read with the filter as its keys, driver.LookupOutcome), or among
// its factory's recorded discoveries (req.Factory), whose health check
// then confirms it. None is driver.ErrNotFound, several are
// driver.ErrAmbiguous, each listing what was found; a resource that
// nothing can look up needs a change.
func findByFilter(ctx context.Context, d Driver, req Request, filter map[string]graph.Value) (Outcome, error) {
	res := req.Resource
	by := driver.KeysText(filter)
	switch {
	case res.Driver.HasOperation(graph.OpLookup):
		r := *res
		r.Lookup = filter
		req.Resource, req.Action = &r, ActionRead
		out, err := callDriver(ctx, d, req)
		if err == nil && out.Feedback.InstanceID == "" {
			return driver.Failed(req, &out.Feedback, fmt.Errorf("the lookup found the object with %s, but reported no id", by))
		}
		return out, err
	case req.Factory != nil:
		return findDiscovered(ctx, d, req, filter, by)
	}
	return driver.Failed(req, nil, driver.NeedsChange(fmt.Errorf(
		"nothing can find the object its import filter (%s) names: give its type a lookup operation (xosplan.interfaces.Lookup), or import it by id (xosplan import ADDRESS ID)", by)))
}

// findDiscovered is findByFilter among the factory's recorded
// discoveries: their fields are id, name and status.
func findDiscovered(ctx context.Context, d Driver, req Request, filter map[string]graph.Value, by string) (Outcome, error) {
	all := FactoryDiscoveries(req.Factory)
	var found []DiscoveredInstance
	for _, e := range all {
		if driver.Matches(map[string]graph.Value{"name": e.Name, "status": e.Status}, filter) {
			found = append(found, e)
		}
	}
	switch {
	case len(found) == 0 && len(all) == 0:
		return driver.Failed(req, nil, fmt.Errorf("%w: no instance with %s: the factory's discovery has reported none (xosplan refresh runs it)", driver.ErrNotFound, by))
	case len(found) == 0:
		return driver.Failed(req, nil, fmt.Errorf("%w: no instance with %s among those discovered: %s", driver.ErrNotFound, by, listDiscovered(all)))
	case len(found) > 1:
		return driver.Failed(req, nil, fmt.Errorf("%w: %d instances with %s: %s", driver.ErrAmbiguous, len(found), by, listDiscovered(found)))
	}
	id := found[0].ID
	if !req.Resource.Driver.HasOperation(graph.OpHealthCheck) {
		fb := state.Feedback{InstanceID: id, Status: state.Status{Active: true}, BackendCode: state.BackendOK}
		return Outcome{Feedback: fb}, nil
	}
	res := req.Resource
	req.Action = ActionHealth
	req.Prior = &state.Resource{Address: req.Address, Type: res.Type, Driver: res.Driver, Spec: res.Spec,
		Feedback: state.Feedback{InstanceID: id, Resolved: req.Resolved}}
	out, err := callDriver(ctx, d, req)
	if err != nil {
		return out, fmt.Errorf("the health check of %q: %w", id, err)
	}
	if out.Feedback.InstanceID == "" {
		out.Feedback.InstanceID = id
	}
	return out, nil
}

// listDiscovered names discovered instances for a message: `"i-1" (name
// "vm one")`, at most ten of them.
func listDiscovered(list []DiscoveredInstance) string {
	var parts []string
	for i, e := range list {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(list)-i))
			break
		}
		parts = append(parts, strconv.Quote(e.ID)+" (name "+strconv.Quote(e.Name)+")")
	}
	return strings.Join(parts, ", ")
}

// adopt is the create of a resource whose import filter adopts an
// existing object (planner.ResourceChange.Imports): the object
// findByFilter finds, recorded with what it reported, nothing created.
func adopt(ctx context.Context, d Driver, req Request, filter map[string]graph.Value) (Outcome, error) {
	out, err := findByFilter(ctx, d, req, filter)
	if err != nil {
		return out, err
	}
	fb := out.Feedback
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "imported "+fb.InstanceID+" by filter "+driver.KeysText(filter)
	fb.Extra = maps.Clone(fb.Extra)
	delete(fb.Extra, driver.ExtraLookup)
	if len(fb.Extra) == 0 {
		fb.Extra = nil
	}
	return Outcome{Feedback: fb, Converging: out.Converging}, nil
}

// ImportByFilter adopts, as the configured resource addr of g, the one
// existing object whose fields equal every key of filter (ORC's
// spec.import.filter), found as findByFilter finds it, and returns the
// record to add to cur, as Import does with the object's id. A filter
// naming an ID field is refused (ErrIDFilter); so are none or several
// objects, the error listing them.
func ImportByFilter(ctx context.Context, g *graph.Graph, cur *state.State, addr string, filter map[string]graph.Value, drivers Registry, opts ImportOptions) (*state.Resource, error) {
	if err := CheckFilter(filter); err != nil {
		return nil, err
	}
	res, _, err := importable(g, cur, addr, "by filter", drivers, opts)
	if err != nil {
		return nil, err
	}
	d, ok := drivers.Lookup(res.Driver.Name)
	if !ok {
		return nil, fmt.Errorf("%s: no driver %q", addr, res.Driver.Name)
	}
	resolved, err := ResolveMap(res.Spec, cur.Lookup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; import or apply what it reads first", addr, err)
	}
	req := Request{Address: addr, Resource: res, Resolved: resolved, ScriptRoot: opts.ScriptRoot,
		Timeout: opts.Timeout, WorkDir: sourceDir(res)}
	if req.WorkDir == "" {
		req.WorkDir = opts.WorkDir
	}
	req.Factory = importFactory(g, cur, &state.Resource{Address: addr, Driver: res.Driver})
	red := NewRedactorFor(cur, g)
	red.AddPaths(resolved, res.Sensitive)
	req.Redactor = red
	out, err := findByFilter(ctx, d, req, filter)
	out.Feedback, err = red.Feedback(out.Feedback), red.Error(err)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", addr, ErrNotConfirmed, err)
	}
	o := opts
	if _, confirms := d.(driver.InstanceConfirmer); !confirms {
		o.Attributes = out.Feedback.Attributes
	}
	return Import(ctx, g, cur, addr, out.Feedback.InstanceID, drivers, o)
}
