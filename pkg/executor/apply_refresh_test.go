package executor

import (
	"context"
	"errors"
	"testing"

	"github.com/xosplan/xosplan/driver/noop"
	"github.com/xosplan/xosplan/driver/scripted"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// healthDriver answers health checks from a table: an error, or the
// status and attributes to report.
type healthDriver struct {
	errs  map[string]error
	attrs map[string]map[string]graph.Value
}

func (h healthDriver) Apply(_ context.Context, req Request) (Outcome, error) {
	if err := h.errs[req.Address]; err != nil {
		return Outcome{Feedback: state.Feedback{BackendCode: state.BackendError}}, err
	}
	return Outcome{Feedback: state.Feedback{Status: state.Status{Active: true}, Attributes: h.attrs[req.Address]}}, nil
}

func (h healthDriver) Invoke(_ context.Context, req Request, command string, args map[string]graph.Value) (Outcome, error) {
	if command != "control.reboot" {
		return Outcome{}, errors.New("no such command")
	}
	return Outcome{
		Feedback: state.Feedback{BackendCode: state.BackendOK, Signals: map[string]graph.Value{"control.last": args["mode"]}},
		Results:  []CommandResult{{Values: map[string]graph.Value{"ok": true}}},
	}, nil
}

func refreshRecord(addr string, m graph.Management) state.Resource {
	return state.Resource{Address: addr, Type: "test.T", Management: m, Driver: graph.Driver{Name: fakeName},
		Spec: map[string]graph.Value{}, Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true},
			Attributes: map[string]graph.Value{"ip": "10.0.0.1"}, Extra: map[string]graph.Value{ExtraWorkDir: "/srv/stack"}}}
}

func TestRefreshRecordsDrift(t *testing.T) {
	prior := &state.State{Lineage: "l", Serial: 3, Resources: []state.Resource{
		refreshRecord("gone", graph.Managed), refreshRecord("moved", graph.Managed), refreshRecord("same", graph.Managed), refreshRecord("ref", graph.Unmanaged),
	}}
	h := healthDriver{
		errs: map[string]error{"gone": errors.New("vm not found")},
		attrs: map[string]map[string]graph.Value{
			"moved": {"ip": "10.0.0.2"}, "same": {"ip": "10.0.0.1"}, "ref": {"ip": "10.0.0.1"},
		},
	}
	rf := &Refresher{Drivers: Registry{fakeName: h}, State: prior}
	p, diags := planner.Diff(context.Background(), nil, prior, planner.Options{RefreshOnly: true, Refresher: rf})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	var drifted []string
	for _, d := range p.Drift {
		drifted = append(drifted, d.Address)
	}
	if len(drifted) != 2 || drifted[0] != "gone" || drifted[1] != "moved" {
		t.Fatalf("drift in %v, want gone and moved", drifted)
	}
	j := &memJournal{}
	rep, err := Walk(context.Background(), p, prior, j, Registry{fakeName: h}, fastOpts())
	if err != nil || rep.Refreshed != 2 || !rep.Changes() {
		t.Fatalf("report %+v, %v", rep, err)
	}
	after := j.state(prior)
	gone, _ := after.Lookup("gone")
	if gone.Feedback.BackendCode != state.BackendError || !gone.Feedback.Status.Failed || gone.Feedback.Status.Message != "vm not found" {
		t.Errorf("a failed health check is recorded as %+v; the next plan must repair it", gone.Feedback)
	}
	moved, _ := after.Lookup("moved")
	if moved.Feedback.Attributes["ip"] != "10.0.0.2" || moved.Feedback.BackendCode != state.BackendOK {
		t.Errorf("moved recorded as %+v", moved.Feedback)
	}
	if moved.Feedback.Extra[ExtraWorkDir] != "/srv/stack" {
		t.Errorf("refresh lost the recorded work dir: %v", moved.Feedback.Extra)
	}
}

func TestRefresherErrors(t *testing.T) {
	rec := refreshRecord("a", graph.Managed)
	rf := &Refresher{Drivers: Registry{}}
	if _, err := rf.Refresh(context.Background(), &rec); err == nil {
		t.Errorf("a missing driver is not an observation")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rf = &Refresher{Drivers: Registry{fakeName: healthDriver{errs: map[string]error{"a": context.Canceled}}}}
	if _, err := rf.Refresh(ctx, &rec); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled check gave %v", err)
	}
}

func TestInvoke(t *testing.T) {
	cur := &state.State{Resources: []state.Resource{refreshRecord("vm", graph.Managed)}}
	reg := Registry{fakeName: healthDriver{}, graph.DriverNoop: noop.Driver{}}
	out, rec, err := Invoke(context.Background(), cur, "vm", "control.reboot", map[string]graph.Value{"mode": "soft"}, reg, InvokeOptions{})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("invoke: %+v, %v", out, err)
	}
	if rec.Feedback.Signals["control.last"] != "soft" || rec.Feedback.BackendCode != state.BackendOK || rec.Feedback.Attributes["ip"] != "10.0.0.1" {
		t.Errorf("recorded %+v", rec.Feedback)
	}
	if _, rec, err := Invoke(context.Background(), cur, "vm", "control.nosuch", nil, reg, InvokeOptions{}); err == nil || rec != nil {
		t.Errorf("a failed command: rec %v, err %v", rec, err)
	}
	if _, _, err := Invoke(context.Background(), cur, "nosuch", "control.reboot", nil, reg, InvokeOptions{}); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("unknown address: %v", err)
	}
	cur.Resources[0].Driver.Name = graph.DriverNoop
	if _, _, err := Invoke(context.Background(), cur, "vm", "control.reboot", nil, reg, InvokeOptions{}); !errors.Is(err, ErrNoCommands) {
		t.Errorf("a driver without commands: %v", err)
	}
}

// TestRefreshResolvesReferencesWhoseMappingArrived: a component reference
// recorded before its factory's mapping held the referenced instance
// resolves at the next refresh, even without a health-check script: the
// factory's consume-signal pin is resolved again from the records as they
// are now, not as they were at the factory's last apply.
func TestRefreshResolvesReferencesWhoseMappingArrived(t *testing.T) {
	ok := state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}
	factory := func(addr string, spec map[string]graph.Value, resolved map[string]graph.Value) state.Resource {
		fb := ok
		fb.Resolved = resolved
		return state.Resource{Address: addr, Type: "scripted.ComponentFactory", Management: graph.Managed,
			Driver: graph.Driver{Name: graph.DriverScripted}, Spec: spec, Feedback: fb}
	}
	member := func(addr, fa, natural string, model map[string]graph.Value, attrs map[string]graph.Value) state.Resource {
		fb := ok
		fb.InstanceID, fb.Attributes = natural, attrs
		fb.Extra = map[string]graph.Value{ExtraInstanceID: "synthetic-" + natural, scripted.ExtraModel: model}
		return state.Resource{Address: addr, Type: "scripted.Component", Management: graph.Managed,
			Driver: graph.Driver{Name: graph.DriverScripted, Options: map[string]graph.Value{OptionFactoryAddress: fa},
				Operations: map[string]graph.Operation{graph.OpLaunch: {Implementation: "/p/launch.py"}, graph.OpDestroy: {Implementation: "/p/destroy.py"}}},
			Feedback: fb}
	}
	ref := map[string]graph.Value{"mapping": "vms.vm-by-id", "key": "i-1"}
	model := map[string]graph.Value{"components": map[string]graph.Value{"vm": map[string]graph.Value{"reference": ref}}}
	st := &state.State{Resources: []state.Resource{
		factory("P.factory", map[string]graph.Value{"vms.vm-by-id": graph.Unknown{Func: "signal", Args: []graph.Value{"VM.factory", "factory", "instances"}}},
			map[string]graph.Value{"vms.vm-by-id": map[string]graph.Value{}}),
		member("P.p", "P.factory", "p-1", model, map[string]graph.Value{scripted.AttrComponents: map[string]graph.Value{"vm": ref}}),
		factory("VM.factory", map[string]graph.Value{}, nil),
		member("VM.vm", "VM.factory", "i-1", map[string]graph.Value{}, nil),
	}}
	rf := &Refresher{Drivers: Registry{graph.DriverScripted: scripted.New(DriverOptions{})}, State: st}
	fb, err := rf.Refresh(context.Background(), &st.Resources[1])
	if err != nil {
		t.Fatal(err)
	}
	got, _ := fb.Attributes[scripted.AttrComponents].(map[string]graph.Value)["vm"].(map[string]graph.Value)
	if got["instance"] != "synthetic-i-1" {
		t.Errorf("reference after refresh: %v, want instance synthetic-i-1", got)
	}
}
