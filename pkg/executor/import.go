package executor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Errors of Import; compare with errors.Is.
var (
	// ErrNotConfigured: the address is not a resource of the
	// configuration, which says what the object is and how to run it.
	ErrNotConfigured = errors.New("no such resource in the configuration")
	// ErrAlreadyRecorded: the state records the address already.
	ErrAlreadyRecorded = errors.New("the resource is in the state already")
	// ErrNotImportable: the resource is one xosplan does not manage
	// (unmanaged: it is read, not imported) or has no object of its own
	// (a factory).
	ErrNotImportable = errors.New("the resource cannot be imported")
	// ErrNotConfirmed: the object could not be confirmed to exist.
	ErrNotConfirmed = errors.New("the object could not be confirmed")
)

// ImportOptions tune Import.
type ImportOptions struct {
	// ScriptRoot is where a scripted component's scripts are; WorkDir is
	// the folder an exec resource without a source file runs from.
	ScriptRoot string
	WorkDir    string
	Timeout    time.Duration
	// Attributes are recorded as the object's attributes: what dependents
	// read of an exec or noop resource, which no driver can ask about.
	Attributes map[string]graph.Value
	// Now stamps the record; nil means time.Now.
	Now func() time.Time
}

// Import adopts the existing object id as the configured resource addr
// of g, as terraform import does, and returns the record to add to cur:
// managed, with the configured spec as enacted (as Tonomi adopts a
// discovered instance with its component's manifest), so that the next
// plan changes the object only where the configuration does.
//
// A scripted component's object (that of a driver.InstanceConfirmer) is
// an instance of its factory, id its natural id (as a discovery script
// reports it, see AttrDiscovered); its health check must report it active
// or converging, and what it reports is recorded. A component without a
// health check is confirmed by its factory's recorded discovery instead.
// An exec or noop resource cannot be asked about: it is recorded with id
// as its instance id and opts.Attributes. Values the spec reads from other resources are
// resolved from cur, so those must be recorded first. What the health
// check reports passes through a Redactor of cur's and g's secrets.
func Import(ctx context.Context, g *graph.Graph, cur *state.State, addr, id string, drivers Registry, opts ImportOptions) (*state.Resource, error) {
	res, confirms, err := importable(g, cur, addr, id, drivers, opts)
	if err != nil {
		return nil, err
	}
	lookup := func(a string) (*state.Resource, bool) {
		if a == addr {
			// Its own attributes are those given or reported.
			return &state.Resource{Address: a, Feedback: state.Feedback{Attributes: opts.Attributes}}, true
		}
		return cur.Lookup(a)
	}
	resolved, err := ResolveMap(res.Spec, lookup)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; import or apply what it reads first", addr, err)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	rec := &state.Resource{
		Address: addr, Type: res.Type, TypeChain: res.TypeChain, Management: graph.Managed,
		Driver: res.Driver, Dependencies: dependencies(g, addr), Spec: res.Spec, Sensitive: res.Sensitive,
	}
	if rec.Spec == nil {
		rec.Spec = map[string]graph.Value{}
	}
	fb := state.Feedback{InstanceID: id, Attributes: opts.Attributes, Status: state.Status{Active: true}}
	req := Request{Action: ActionHealth, Address: addr, Resource: res, Resolved: resolved, ScriptRoot: opts.ScriptRoot,
		Timeout: opts.Timeout, WorkDir: cmp.Or(sourceDir(res), opts.WorkDir)}
	if confirms {
		if fb, err = confirmInstance(ctx, g, cur, rec, id, req, drivers); err != nil {
			return nil, err
		}
	}
	t := now().UTC()
	fb.Resolved = resolved
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "imported "+id
	fb.Created, fb.Enacted, fb.LastAttempt = t, t, t
	d, _ := drivers.Lookup(res.Driver.Name)
	fb.Extra = withSource(fb.Extra, d, req)
	rec.Feedback = fb
	return rec, nil
}

// importable returns the configured resource addr, once it is known that
// the object id can be imported there with opts, and whether its driver
// confirms the instance.
func importable(g *graph.Graph, cur *state.State, addr, id string, drivers Registry, opts ImportOptions) (*graph.Resource, bool, error) {
	res, ok := g.Resource(addr)
	var confirms bool
	if ok {
		d, _ := drivers.Lookup(res.Driver.Name)
		_, confirms = d.(driver.InstanceConfirmer)
	}
	switch {
	case !ok:
		return nil, false, fmt.Errorf("%w: %s", ErrNotConfigured, addr)
	case id == "":
		return nil, false, fmt.Errorf("%s: %w: the id is empty", addr, ErrNotConfirmed)
	case res.Management == graph.Unmanaged:
		return nil, false, fmt.Errorf("%s: %w: it is unmanaged, so xosplan only reads it (plan records it)", addr, ErrNotImportable)
	case confirms && !res.Driver.HasOperation(graph.OpLaunch) && res.Driver.HasOperation(graph.OpDiscovery):
		return nil, false, fmt.Errorf("%s: %w: it is a factory, which has no object of its own (apply records it)", addr, ErrNotImportable)
	}
	if len(opts.Attributes) > 0 && confirms {
		return nil, false, fmt.Errorf("%s: %w: attributes are given for exec and noop resources; a scripted component's health check reports its own", addr, ErrNotImportable)
	}
	if _, ok := cur.Lookup(addr); ok {
		return nil, false, fmt.Errorf("%w: %s (xosplan state rm it first to import another object there)", ErrAlreadyRecorded, addr)
	}
	return res, confirms, nil
}

// confirmInstance runs the health check of the scripted component rec on
// the instance id and returns the feedback it reports; without a health
// check, the instance must be among its factory's recorded discoveries.
func confirmInstance(ctx context.Context, g *graph.Graph, cur *state.State, rec *state.Resource, id string, req Request, drivers Registry) (state.Feedback, error) {
	factory := importFactory(g, cur, rec)
	if !rec.Driver.HasOperation(graph.OpHealthCheck) {
		if factory != nil && slices.Contains(DiscoveredIDs(factory), id) {
			return state.Feedback{InstanceID: id, Status: state.Status{Active: true}}, nil
		}
		return state.Feedback{}, fmt.Errorf("%s: %w: it has no healthCheck script, and its factory's last discovery (xosplan refresh) did not report %q",
			rec.Address, ErrNotConfirmed, id)
	}
	d, ok := drivers.Lookup(rec.Driver.Name)
	if !ok {
		return state.Feedback{}, fmt.Errorf("%s: no driver %q", rec.Address, rec.Driver.Name)
	}
	prior := *rec
	prior.Feedback = state.Feedback{InstanceID: id, Resolved: req.Resolved}
	req.Prior, req.Factory = &prior, factory
	red := NewRedactorFor(cur, g)
	red.AddPaths(req.Resolved, rec.Sensitive)
	req.Redactor = red
	out, err := callDriver(ctx, d, req)
	out.Feedback, err = red.Feedback(out.Feedback), red.Error(err)
	if err != nil {
		return state.Feedback{}, fmt.Errorf("%s: %w: the health check of %q: %w", rec.Address, ErrNotConfirmed, id, err)
	}
	fb := out.Feedback
	if fb.InstanceID == "" {
		fb.InstanceID = id
	}
	return fb, nil
}

// importFactory returns the factory of a scripted component as its
// scripts see it (scriptFactory), or, before the factory was ever applied,
// its configured form.
func importFactory(g *graph.Graph, cur *state.State, rec *state.Resource) *state.Resource {
	fa, ok := rec.Driver.Options[OptionFactoryAddress].(string)
	if !ok {
		return nil
	}
	if f := scriptFactory(fa, StateLookup(cur)); f != nil {
		return f
	}
	if r, ok := g.Resource(fa); ok {
		return &state.Resource{Address: fa, Type: r.Type, Driver: r.Driver, Spec: r.Spec}
	}
	return nil
}

// DiscoveredIDs returns the natural ids of the instances a factory's last
// discovery reported and no recorded component manages (the entries of
// its AttrDiscovered attribute), in their recorded order.
func DiscoveredIDs(factory *state.Resource) []string {
	var ids []string
	for _, e := range FactoryDiscoveries(factory) {
		ids = append(ids, e.ID)
	}
	return ids
}

// DiscoveredInstance is one entry of a factory's AttrDiscovered attribute.
type DiscoveredInstance struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// FactoryDiscoveries returns the entries of a factory's AttrDiscovered
// attribute, sorted by id; entries without an id are left out.
func FactoryDiscoveries(factory *state.Resource) []DiscoveredInstance {
	list, _ := factory.Feedback.Attributes[AttrDiscovered].([]graph.Value)
	var out []DiscoveredInstance
	for _, v := range list {
		m, _ := v.(map[string]graph.Value)
		id, _ := m["id"].(string)
		if id == "" {
			continue
		}
		name, _ := m["name"].(string)
		status, _ := m["status"].(string)
		out = append(out, DiscoveredInstance{ID: id, Name: name, Status: status})
	}
	slices.SortFunc(out, func(a, b DiscoveredInstance) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// WithoutDiscovered returns a copy of a factory's record whose
// AttrDiscovered no longer lists id: an imported instance is managed now,
// as refresh would find it.
func WithoutDiscovered(factory *state.Resource, id string) state.Resource {
	f := *factory
	list, _ := f.Feedback.Attributes[AttrDiscovered].([]graph.Value)
	kept := slices.DeleteFunc(slices.Clone(list), func(v graph.Value) bool {
		m, _ := v.(map[string]graph.Value)
		return m["id"] == id
	})
	attrs := make(map[string]graph.Value, len(f.Feedback.Attributes))
	for k, v := range f.Feedback.Attributes {
		attrs[k] = v
	}
	if len(kept) == 0 {
		delete(attrs, AttrDiscovered)
	} else {
		attrs[AttrDiscovered] = kept
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	f.Feedback.Attributes = attrs
	return f
}

// RecordImport adds rec, the object id Import adopted, to st, and drops
// id from the discovered instances of its factory: it is managed now.
func RecordImport(st *state.State, rec *state.Resource, id string) {
	st.Resources = append(st.Resources, *rec)
	if fa, ok := rec.Driver.Options[OptionFactoryAddress].(string); ok {
		for i := range st.Resources {
			if st.Resources[i].Address == fa {
				st.Resources[i] = WithoutDiscovered(&st.Resources[i], id)
			}
		}
	}
}

// dependencies are the addresses addr depends on in g, sorted, as the
// walk records them.
func dependencies(g *graph.Graph, addr string) []string {
	var out []string
	for _, e := range g.Edges() {
		if e.Source == addr && e.Target != addr {
			out = append(out, e.Target)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
