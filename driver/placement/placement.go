package placement

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	pl "github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/state"
)

// ErrNoEndpoint is matched by the failure of a placement object applied
// without a Placement API to apply it to.
var ErrNoEndpoint = errors.New("the placement driver needs a Placement API: give --placement-url (the token comes from --placement-token or $OS_AUTH_TOKEN)")

// errUnknownName marks a trait or resource class the service does not know.
var errUnknownName = errors.New("unknown to Placement")

// Driver reconciles Placement objects against one Placement API. It is
// safe for concurrent use; the client (and its negotiated microversion)
// is made on first use and kept.
type Driver struct {
	opts driver.Options

	mu     sync.Mutex
	client *pl.Client
}

// New returns the placement driver for opts.Placement.
func New(opts driver.Options) *Driver {
	return &Driver{opts: opts.WithDefaults()}
}

// connect returns the client, negotiating the microversion on first use.
func (d *Driver) connect(ctx context.Context) (*pl.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.client != nil {
		return d.client, nil
	}
	ep := d.opts.Placement
	if ep.URL == "" {
		return nil, driver.NeedsChange(ErrNoEndpoint)
	}
	c, err := pl.NewClient(ctx, ep.URL, pl.ClientOptions{Token: ep.Token, HTTPClient: ep.HTTPClient})
	if err != nil {
		return nil, err
	}
	d.client = c
	return c, nil
}

// Apply runs one action on one Placement object.
func (d *Driver) Apply(ctx context.Context, req driver.Request) (driver.Outcome, error) {
	o, err := parseObject(req)
	if err != nil {
		return driver.Failed(req, nil, err)
	}
	var prior state.Feedback
	if req.Prior != nil {
		prior = req.Prior.Feedback
	}
	if req.Action == driver.ActionDelete && !o.managed {
		// Never delete what xosplan only reads: forget it.
		return driver.Outcome{Gone: true, Feedback: state.Feedback{BackendCode: state.BackendOK, BackendStatus: "forgotten (unmanaged)"}}, nil
	}
	timeout := driver.FirstPositive(req.Timeout, d.opts.Timeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := d.connect(ctx)
	if err != nil {
		return driver.Failed(req, &prior, err)
	}
	a := &action{d: d, c: c, req: req, o: o}
	var fb state.Feedback
	switch {
	case req.Action == driver.ActionDelete:
		if err := a.delete(ctx, prior); err != nil {
			return driver.Failed(req, &prior, err)
		}
		return driver.Outcome{Gone: true, Feedback: state.Feedback{BackendCode: state.BackendOK, BackendStatus: "deleted"}}, nil
	case req.Action == driver.ActionRead || !o.managed:
		fb, err = a.read(ctx)
		if err != nil {
			return driver.Failed(req, &prior, err)
		}
	case req.Action == driver.ActionHealth:
		return a.health(ctx, prior)
	case req.Action == driver.ActionCreate || req.Action == driver.ActionUpdate:
		fb, err = a.ensure(ctx, prior)
		if errors.Is(err, pl.ErrBadRequest) || errors.Is(err, errUnknownName) {
			// Placement refused what the configuration says: no retry
			// can mend it.
			err = driver.NeedsChange(err)
		}
		if err != nil {
			return driver.Failed(req, &prior, err)
		}
	default:
		return driver.Failed(req, &prior, driver.NeedsChange(fmt.Errorf("%s: the placement driver has no action %q", req.Address, req.Action)))
	}
	fb.Status = state.Status{Active: true}
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok"
	return driver.Outcome{Feedback: fb}, nil
}

// action is one request being carried out.
type action struct {
	d   *Driver
	c   *pl.Client
	req driver.Request
	o   object
}

func (a *action) say(format string, args ...any) {
	if a.req.Output != nil {
		a.req.Output(fmt.Sprintf(format, args...))
	}
}

// what names the object in messages.
func (a *action) what() string {
	switch a.o.kind {
	case graph.PlacementKindTrait:
		return "custom trait " + a.o.name
	case graph.PlacementKindResourceClass:
		return "custom resource class " + a.o.name
	}
	return "resource provider " + a.o.name
}

// read finds the object by name (the import filter) and reports it.
func (a *action) read(ctx context.Context) (state.Feedback, error) {
	var fb state.Feedback
	switch a.o.kind {
	case graph.PlacementKindTrait, graph.PlacementKindResourceClass:
		ok, err := a.nameExists(ctx)
		if err != nil {
			return fb, fmt.Errorf("read %s: %w", a.what(), err)
		}
		if !ok {
			return fb, fmt.Errorf("no %s in Placement (import filter name=%s)", a.what(), a.o.name)
		}
		fb.InstanceID = a.o.name
		fb.Attributes = map[string]graph.Value{"name": a.o.name}
		return fb, nil
	}
	uuid, ok, err := a.c.FindProvider(ctx, a.o.name)
	if err != nil {
		return fb, fmt.Errorf("read %s: %w", a.what(), err)
	}
	if !ok {
		return fb, fmt.Errorf("no %s in Placement (import filter name=%s)", a.what(), a.o.name)
	}
	rec, err := a.c.ReadProvider(ctx, uuid)
	if err != nil || rec == nil {
		return fb, fmt.Errorf("read %s: %w", a.what(), errors.Join(err, errors.New("deleted while read")))
	}
	fb.InstanceID = rec.UUID
	fb.Attributes = status(rec)
	return fb, nil
}

// ensure creates or updates the object until it is as declared.
func (a *action) ensure(ctx context.Context, prior state.Feedback) (state.Feedback, error) {
	var fb state.Feedback
	switch a.o.kind {
	case graph.PlacementKindTrait, graph.PlacementKindResourceClass:
		put := a.c.EnsureTrait
		if a.o.kind == graph.PlacementKindResourceClass {
			put = a.c.EnsureResourceClass
		}
		if err := put(ctx, a.o.name); err != nil {
			return fb, fmt.Errorf("create %s: %w", a.what(), err)
		}
		if old := priorName(prior); old != "" && old != a.o.name {
			// Renamed: the old object goes once nothing uses it.
			if err := a.deleteNamed(ctx, old); err != nil {
				return fb, err
			}
		}
		fb.InstanceID = a.o.name
		fb.Attributes = map[string]graph.Value{"name": a.o.name}
		return fb, nil
	}
	return a.ensureProvider(ctx, prior)
}

// priorName is the name recorded for a trait or resource class.
func priorName(prior state.Feedback) string {
	s, _ := prior.Attributes["name"].(string)
	return s
}

// parentUUID finds the UUID of o's parent; "" for a root.
func (a *action) parentUUID(ctx context.Context) (string, error) {
	if a.o.parent == "" {
		return "", nil
	}
	u, ok, err := a.c.FindProvider(ctx, a.o.parent)
	if err != nil {
		return "", fmt.Errorf("%s: find parent %s: %w", a.what(), a.o.parent, err)
	}
	if !ok {
		return "", fmt.Errorf("%s: its parent provider %s does not exist in Placement", a.what(), a.o.parent)
	}
	return u, nil
}

// findProvider finds the provider the object is: by its given UUID, else
// by the UUID recorded for it (a rename), else by name. nil when none.
func (a *action) findProvider(ctx context.Context, prior state.Feedback) (*pl.ProviderRecord, error) {
	var ids []string
	if a.o.uuid != "" {
		ids = append(ids, strings.ToLower(a.o.uuid))
	} else if u, _ := prior.Attributes["uuid"].(string); u != "" {
		ids = append(ids, u)
	}
	if a.o.uuid == "" {
		u, ok, err := a.c.FindProvider(ctx, a.o.name)
		if err != nil {
			return nil, err
		}
		if ok {
			ids = append(ids, u)
		}
	}
	for _, id := range ids {
		rec, err := a.c.ReadProvider(ctx, id)
		if err != nil || rec != nil {
			return rec, err
		}
	}
	return nil, nil
}

// ensureProvider creates the provider or updates it, field by field,
// writing only what differs, each write under the provider generation.
func (a *action) ensureProvider(ctx context.Context, prior state.Feedback) (state.Feedback, error) {
	var fb state.Feedback
	parent, err := a.parentUUID(ctx)
	if err != nil {
		return fb, err
	}
	if a.o.hasTraits {
		if err := a.checkTraits(ctx); err != nil {
			return fb, err
		}
	}
	if err := a.checkClasses(ctx); err != nil {
		return fb, err
	}
	rec, err := a.findProvider(ctx, prior)
	if err != nil {
		return fb, fmt.Errorf("%s: %w", a.what(), err)
	}
	if rec == nil {
		u, err := a.c.CreateProvider(ctx, a.o.name, a.o.uuid, parent)
		if err != nil {
			return fb, fmt.Errorf("create %s: %w", a.what(), err)
		}
		a.say("created resource provider %s (%s)", a.o.name, u)
		if rec, err = a.c.ReadProvider(ctx, u); err != nil || rec == nil {
			return fb, fmt.Errorf("read %s after creating it: %w", a.what(), errors.Join(err, errors.New("not found")))
		}
	} else if rec.Name != a.o.name || (parent != "" && rec.Parent != parent) {
		if err := a.c.UpdateProvider(ctx, rec.UUID, a.o.name, parent); err != nil {
			return fb, fmt.Errorf("update %s: %w", a.what(), err)
		}
		a.say("updated resource provider %s (name, parent)", a.o.name)
	}
	uuid := rec.UUID
	conflicts := 0
	write := func(what string, n int, err error) error {
		conflicts += n
		if n > 0 {
			a.say("%s of %s: %d generation conflict(s) (409 placement.concurrent_update): read the provider again and retried", what, a.o.name, n)
		}
		if err != nil {
			return fmt.Errorf("set %s of %s: %w", what, a.what(), err)
		}
		a.say("set %s of resource provider %s", what, a.o.name)
		return nil
	}
	if a.o.hasInv && !maps.Equal(a.o.inventories, rec.Inventories) {
		n, err := a.c.SetInventories(ctx, uuid, a.o.inventories)
		if err := write("inventories", n, err); err != nil {
			return fb, err
		}
	}
	if a.o.hasTraits {
		if missing, extra := setDiff(a.o.traits, rec.Traits); len(missing)+len(extra) > 0 {
			n, err := a.c.SetProviderTraits(ctx, uuid, a.o.traits)
			if err := write("traits", n, err); err != nil {
				return fb, err
			}
		}
	}
	if a.o.hasAggregate {
		want := pl.AggregateUUIDs(a.o.aggregates)
		if missing, extra := setDiff(want, rec.Aggregates); len(missing)+len(extra) > 0 {
			n, err := a.c.SetAggregates(ctx, uuid, want)
			if err := write("aggregates", n, err); err != nil {
				return fb, err
			}
		}
	}
	rec, err = a.c.ReadProvider(ctx, uuid)
	if err != nil || rec == nil {
		return fb, fmt.Errorf("read %s back: %w", a.what(), errors.Join(err, errors.New("not found")))
	}
	fb.InstanceID = rec.UUID
	fb.Attributes = status(rec)
	if conflicts > 0 {
		fb.Attributes["generation_conflicts"] = int64(conflicts)
	}
	return fb, nil
}

// nameExists reports whether the custom trait or resource class a.o
// names is in Placement.
func (a *action) nameExists(ctx context.Context) (bool, error) {
	if a.o.kind == graph.PlacementKindResourceClass {
		return a.c.ResourceClassExists(ctx, a.o.name)
	}
	return a.c.TraitExists(ctx, a.o.name)
}

// checkTraits asks the service which of the provider's traits it knows
// (GET /traits?name=in:): a standard trait its os-traits lacks, or a
// custom trait nobody created, is refused here with its name rather than
// by the 400 of the write.
func (a *action) checkTraits(ctx context.Context) error {
	if len(a.o.traits) == 0 {
		return nil
	}
	known, err := a.c.ListTraits(ctx, pl.TraitFilter{Names: a.o.traits})
	if err != nil {
		return fmt.Errorf("%s: check its traits: %w", a.what(), err)
	}
	missing, _ := setDiff(a.o.traits, known)
	if len(missing) > 0 {
		return fmt.Errorf("%s: Placement does not know the trait(s) %s (GET /traits?name=in: did not list them; a custom trait must be created first, a standard one must be in the service's os-traits): %w",
			a.what(), strings.Join(missing, ", "), errUnknownName)
	}
	return nil
}

// checkClasses asks the service for each custom resource class the
// inventories name, so that a missing one is named (the inventory write
// would be a 400).
func (a *action) checkClasses(ctx context.Context) error {
	var missing []string
	for _, rc := range slices.Sorted(maps.Keys(a.o.inventories)) {
		if !strings.HasPrefix(rc, "CUSTOM_") {
			continue
		}
		ok, err := a.c.ResourceClassExists(ctx, rc)
		if err != nil {
			return fmt.Errorf("%s: check resource class %s: %w", a.what(), rc, err)
		}
		if !ok {
			missing = append(missing, rc)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: Placement does not know the resource class(es) %s (declare each as a xosplan.nodes.placement.CustomResourceClass): %w",
			a.what(), strings.Join(missing, ", "), errUnknownName)
	}
	return nil
}

// health reads the object back and reports it active, missing, or
// failed with how it drifted.
func (a *action) health(ctx context.Context, prior state.Feedback) (driver.Outcome, error) {
	fb := prior
	switch a.o.kind {
	case graph.PlacementKindTrait, graph.PlacementKindResourceClass:
		ok, err := a.nameExists(ctx)
		if err != nil {
			return driver.Failed(a.req, &fb, fmt.Errorf("read %s: %w", a.what(), err))
		}
		if !ok {
			return driver.HealthOutcome(a.req, fb, "missing", a.what()+" is not in Placement")
		}
		return driver.HealthOutcome(a.req, fb, "active", "")
	}
	rec, err := a.findProvider(ctx, prior)
	if err != nil {
		return driver.Failed(a.req, &fb, fmt.Errorf("read %s: %w", a.what(), err))
	}
	if rec == nil {
		return driver.HealthOutcome(a.req, fb, "missing", a.what()+" is not in Placement")
	}
	fb.InstanceID = rec.UUID
	fb.Attributes = status(rec)
	parent := ""
	if a.o.parent != "" {
		if u, ok, err := a.c.FindProvider(ctx, a.o.parent); err == nil && ok {
			parent = u
		}
	}
	if d := drift(a.o, rec, parent); len(d) > 0 {
		return driver.HealthOutcome(a.req, fb, "failed", "drifted: "+strings.Join(d, "; "))
	}
	return driver.HealthOutcome(a.req, fb, "active", "")
}

// delete deletes the object.
func (a *action) delete(ctx context.Context, prior state.Feedback) error {
	switch a.o.kind {
	case graph.PlacementKindTrait, graph.PlacementKindResourceClass:
		return a.deleteNamed(ctx, a.o.name)
	}
	rec, err := a.findProvider(ctx, prior)
	if err != nil {
		return fmt.Errorf("delete %s: %w", a.what(), err)
	}
	if rec == nil {
		return nil
	}
	if err := a.c.DeleteProvider(ctx, rec.UUID); err != nil {
		return fmt.Errorf("delete %s: %w", a.what(), err)
	}
	a.say("deleted resource provider %s (%s)", a.o.name, rec.UUID)
	return nil
}

// deleteNamed deletes a custom trait or resource class called name. A
// trait still on some provider is a 409: the deletion waits for the
// providers to drop it (ORC's deletion guard), asking again every
// PollInterval and saying which providers hold it, until ctx ends.
func (a *action) deleteNamed(ctx context.Context, name string) error {
	del := a.c.DeleteTrait
	if a.o.kind == graph.PlacementKindResourceClass {
		del = a.c.DeleteResourceClass
	}
	var said []string
	for {
		err := del(ctx, name)
		if err == nil {
			return nil
		}
		if !errors.Is(err, pl.ErrConflict) || a.o.kind != graph.PlacementKindTrait {
			return fmt.Errorf("delete %s: %w", name, err)
		}
		holders, lerr := a.c.ProvidersWithTrait(ctx, name)
		if lerr != nil {
			return fmt.Errorf("delete %s: %w", name, errors.Join(err, lerr))
		}
		if !slices.Equal(holders, said) || said == nil {
			a.say("waiting for %s to drop trait %s before deleting it (Placement: %v)", providerList(holders), name, err)
			said = holders
			if said == nil {
				said = []string{}
			}
		}
		t := time.NewTimer(a.d.opts.PollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("delete %s: still used by %s: %w", name, providerList(holders), context.Cause(ctx))
		case <-t.C:
		}
	}
}

func providerList(names []string) string {
	if len(names) == 0 {
		return "the providers that use it"
	}
	return "provider(s) " + strings.Join(names, ", ")
}
