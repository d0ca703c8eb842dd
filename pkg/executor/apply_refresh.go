package executor

import (
	"context"
	"fmt"
	"github.com/xosplan/xosplan/driver"
	"maps"
	"sync"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Refresher observes the real object behind a recorded resource with its
// driver: a health check for a managed resource, a read for an unmanaged
// one. It implements planner.Refresher, so `plan --refresh-only` and
// `refresh` show the drift it finds; applying such a plan records it.
type Refresher struct {
	Drivers    Registry
	ScriptRoot string
	Timeout    time.Duration
	// WorkDir is the working folder of a resource that recorded none.
	WorkDir string
	// State is the recorded state the resources come from; it supplies a
	// scripted component's factory. Nil: no factory is passed.
	State *state.State
	// Redactor removes secrets from what the checks report (output,
	// messages, errors); nil: those of the refreshed resource alone
	// (NewRedactorFor(State, nil) knows every recorded one).
	Redactor *Redactor
	// NoDiscovery runs a factory's health check without its discovery
	// script, keeping the instances discovered last (a synchronizer runs
	// discovery on the factory's own schedule).
	NoDiscovery bool

	lookupOnce sync.Once
	lookup     Lookup

	mu sync.Mutex
	// observed holds, by address, what a factory's discovery reported of
	// the instances xosplan manages (planner.Observer).
	observed map[string]state.Feedback
}

var _ planner.Observer = (*Refresher)(nil)

// Observed returns what the discoveries run so far reported of the
// instances xosplan manages, by the address of their component: the
// recorded feedback with the status (when the discovery reported one)
// and the signals it reported; never the name, which is set once.
func (r *Refresher) Observed() map[string]state.Feedback {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.observed)
}

// observe keeps what a discovery reported of the managed component rec.
func (r *Refresher) observe(rec *state.Resource, inst Discovered) {
	fb := rec.Feedback
	if inst.StatusReported {
		fb.Status = inst.Feedback.Status
	}
	if len(inst.Feedback.Signals) > 0 {
		fb.Signals = maps.Clone(fb.Signals)
		if fb.Signals == nil {
			fb.Signals = map[string]graph.Value{}
		}
		maps.Copy(fb.Signals, inst.Feedback.Signals)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.observed == nil {
		r.observed = map[string]state.Feedback{}
	}
	r.observed[rec.Address] = fb
}

var _ planner.Refresher = (*Refresher)(nil)

// Refresh runs the resource's health check (or read) and returns the
// feedback observed: the recorded feedback with the status, attributes,
// signals, instance id and output the driver reported. A check that fails
// is observed as status failed with the error as its message; only a
// missing driver or the end of ctx is an error.
func (r *Refresher) Refresh(ctx context.Context, rec *state.Resource) (state.Feedback, error) {
	d, ok := r.Drivers.Lookup(rec.Driver.Name)
	if !ok {
		return rec.Feedback, fmt.Errorf("no driver %q", rec.Driver.Name)
	}
	red := r.Redactor
	if red == nil {
		red = NewRedactor()
		red.AddResource(rec)
	}
	req := r.request(rec, red)
	out, err := callDriver(ctx, d, req)
	out.Feedback, err = red.Feedback(out.Feedback), red.Error(err)
	if err != nil {
		if ctx.Err() != nil {
			return rec.Feedback, err
		}
		// A check that fails is the observation: the resource is not
		// healthy. It is drift, recorded as such, not an error of refresh.
		out.Feedback.Status = state.Status{Failed: true, Message: err.Error()}
	}
	fb := observed(rec.Feedback, out.Feedback)
	if found, ok := rec.Feedback.Attributes[AttrDiscovered]; ok && r.NoDiscovery {
		fb.Attributes = maps.Clone(fb.Attributes)
		if fb.Attributes == nil {
			fb.Attributes = map[string]graph.Value{}
		}
		fb.Attributes[AttrDiscovered] = found
	}
	if rec.Driver.HasOperation(graph.OpDiscovery) && !r.NoDiscovery && ctx.Err() == nil {
		found, err := r.discover(ctx, d, req, rec)
		if err != nil {
			return rec.Feedback, err
		}
		fb.Attributes = withDiscovered(fb.Attributes, found)
	}
	return fb, nil
}

// request is the health check (or read, for an unmanaged resource) of
// rec, run where its last apply ran, with its factory and the check's
// inputs resolved where they can be.
func (r *Refresher) request(rec *state.Resource, red *Redactor) Request {
	prior := *rec
	req := Request{
		Action:     ActionHealth,
		Address:    rec.Address,
		Resource:   recordedResource(rec),
		Prior:      &prior,
		Resolved:   rec.Feedback.Resolved,
		ScriptRoot: r.ScriptRoot,
		Timeout:    r.Timeout,
		WorkDir:    r.WorkDir,
		Redactor:   red,
	}
	if rec.Management == graph.Unmanaged {
		req.Action = ActionRead
	}
	if s, ok := rec.Feedback.Extra[ExtraWorkDir].(string); ok && s != "" {
		req.WorkDir = s
	}
	if s, ok := rec.Feedback.Extra[ExtraScriptRoot].(string); ok && s != "" && req.ScriptRoot == "" {
		req.ScriptRoot = s
	}
	if fa, ok := rec.Driver.Options[OptionFactoryAddress].(string); ok && r.State != nil {
		req.Factory = scriptFactory(fa, r.stateLookup())
	}
	if check := rec.Driver.Operations[graph.OpHealthCheck]; req.Action == ActionHealth && len(check.Inputs) > 0 {
		// A check's inputs may read recorded values (TOSCA
		// get_attribute), which the walk resolves for an operation it
		// runs; one that cannot be resolved is left for the driver to
		// report.
		if in, err := ResolveMap(check.Inputs, r.stateLookup()); err == nil {
			req.Inputs = map[string]map[string]graph.Value{graph.OpHealthCheck: in}
		}
	}
	return req
}

// observed is the recorded feedback with what a check reported: its
// status, and the attributes, signals, instance id, output and extra it
// reported at all.
func observed(recorded, reported state.Feedback) state.Feedback {
	fb := recorded
	fb.Status = reported.Status
	if reported.Attributes != nil {
		fb.Attributes = reported.Attributes
	}
	if reported.Signals != nil {
		fb.Signals = reported.Signals
	}
	if reported.InstanceID != "" {
		fb.InstanceID = reported.InstanceID
	}
	if reported.Output != "" {
		fb.Output = reported.Output
	}
	fb.Extra = mergeExtra(fb.Extra, reported.Extra)
	return fb
}

// withDiscovered returns a copy of attrs whose AttrDiscovered is found, or
// absent when found is empty; nil when nothing is left.
func withDiscovered(attrs map[string]graph.Value, found []graph.Value) map[string]graph.Value {
	attrs = maps.Clone(attrs)
	if attrs == nil {
		attrs = map[string]graph.Value{}
	}
	delete(attrs, AttrDiscovered)
	if len(found) > 0 {
		attrs[AttrDiscovered] = found
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	return attrs
}

// AttrDiscovered is the attribute of a factory under which refresh records
// the instances its discovery script reports that xosplan does not manage:
// a list of {id, name, status}, sorted by id. They are adopted as
// unmanaged (read-only) knowledge; the plan never acts on them.
const AttrDiscovered = "discovered"

// discover runs a factory's discovery script and returns the instances
// that no recorded component of the factory manages.
func (r *Refresher) discover(ctx context.Context, d Driver, req Request, rec *state.Resource) ([]graph.Value, error) {
	req.Action = ActionDiscover
	out, err := callDriver(ctx, d, req)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", req.Redactor.Error(err))
	}
	managed := map[string]*state.Resource{}
	if r.State != nil {
		for i := range r.State.Resources {
			c := &r.State.Resources[i]
			if c.Feedback.InstanceID != "" && factoryOf(c.Driver) == rec.Address {
				managed[c.Feedback.InstanceID] = c
			}
		}
	}
	names := discoveredNames(rec)
	var found []graph.Value
	for _, inst := range out.Discovered {
		if c, ok := managed[inst.NaturalID]; ok {
			r.observe(c, inst)
			continue
		}
		name := inst.Name
		if first, ok := names[inst.NaturalID]; ok {
			// A name is set once: the first one reported stays.
			name = first
		}
		st := state.Resource{Feedback: inst.Feedback}
		found = append(found, map[string]graph.Value{"id": inst.NaturalID, "name": name, "status": st.StatusText()})
	}
	return found, nil
}

// discoveredNames maps the instances the factory rec recorded as
// discovered to the names recorded for them.
func discoveredNames(rec *state.Resource) map[string]string {
	out := map[string]string{}
	list, _ := rec.Feedback.Attributes[AttrDiscovered].([]graph.Value)
	for _, v := range list {
		m, _ := v.(map[string]graph.Value)
		id, _ := m["id"].(string)
		name, _ := m["name"].(string)
		if id != "" && name != "" {
			out[id] = name
		}
	}
	return out
}

// mergeExtra returns the Extra a driver reported, keeping the keys the
// walk records (ExtraWorkDir, ExtraScriptRoot) from the recorded one.
func mergeExtra(recorded, reported map[string]graph.Value) map[string]graph.Value {
	if reported == nil {
		return recorded
	}
	out := maps.Clone(reported)
	for _, k := range []string{ExtraWorkDir, ExtraScriptRoot} {
		if v, ok := recorded[k]; ok {
			if _, has := out[k]; !has {
				out[k] = v
			}
		}
	}
	return out
}

// recordedResource rebuilds the configured form of a recorded resource.
func recordedResource(rec *state.Resource) *graph.Resource {
	return &graph.Resource{Address: rec.Address, Type: rec.Type, TypeChain: rec.TypeChain, Driver: rec.Driver,
		Spec: rec.Spec, Sensitive: rec.Sensitive, Management: rec.Management, Lookup: driver.RecordedKeys(rec.Feedback)}
}

// recordDrift writes what a refresh-only plan observed: each drifted
// resource's feedback takes the observed status, attributes, signals and
// instance id. A managed resource whose health check reports it failed
// gets backend_code error, so that the next plan runs its actuator again
// (goal-oriented: the model says it should exist and work); one that was
// left converging and is now active gets backend_code ok.
func (w *walker) recordDrift(rep *Report) error {
	for _, d := range w.plan.Drift {
		w.mu.Lock()
		cur, ok := w.records[d.Address]
		w.mu.Unlock()
		if !ok {
			continue
		}
		r := *cur
		fb := r.Feedback
		if st, ok := d.After["status"].(map[string]graph.Value); ok {
			fb.Status.Active, _ = st["active"].(bool)
			fb.Status.Converging, _ = st["converging"].(bool)
			fb.Status.Failed, _ = st["failed"].(bool)
			fb.Status.Message, _ = st["message"].(string)
		}
		fb.Attributes, _ = d.After["attributes"].(map[string]graph.Value)
		fb.Signals, _ = d.After["signals"].(map[string]graph.Value)
		fb.InstanceID, _ = d.After["instance_id"].(string)
		switch {
		case r.Management == graph.Managed && fb.Status.Failed:
			fb.BackendCode = state.BackendError
			fb.BackendStatus = "refresh: the health check reports the resource failed"
			if fb.Status.Message != "" {
				fb.BackendStatus += ": " + fb.Status.Message
			}
		case fb.BackendCode == state.BackendPending && fb.Status.Active && !fb.Status.Converging:
			fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok"
		}
		r.Feedback = fb
		rec := state.Record{Kind: state.RecordOutcome, Address: d.Address, Action: "refresh", Resource: &r}
		if err := w.appendRecord(rec); err != nil {
			return err
		}
		w.mu.Lock()
		w.records[d.Address] = &r
		w.mu.Unlock()
		rep.Steps = append(rep.Steps, StepResult{Address: d.Address, Action: "refresh", Result: ResultApplied})
		rep.Refreshed++
	}
	return nil
}

// stateLookup returns the lookup of r.State, built once for every check
// of the refresh (a factory's record, a check's inputs).
func (r *Refresher) stateLookup() Lookup {
	r.lookupOnce.Do(func() { r.lookup = StateLookup(r.State) })
	return r.lookup
}
