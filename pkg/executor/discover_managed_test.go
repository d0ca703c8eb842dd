package executor

import (
	"context"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// discoverDriver's discovery reports the managed instance n-1 with a new
// signal, a status and a new name, n-2 with a signal and no status, and
// the unmanaged i-9 under name.
type discoverDriver struct{ name string }

func (d discoverDriver) Apply(_ context.Context, req Request) (Outcome, error) {
	if req.Action != ActionDiscover {
		return Outcome{Feedback: state.Feedback{Status: state.Status{Active: true}}}, nil
	}
	return Outcome{Discovered: []Discovered{
		{NaturalID: "n-1", Name: "renamed", StatusReported: true, Feedback: state.Feedback{Status: state.Status{Active: true, Failed: true, Message: "degraded"},
			Signals: map[string]graph.Value{"compute.ip": "10.0.0.9"}}},
		{NaturalID: "n-2", Name: "other", Feedback: state.Feedback{Signals: map[string]graph.Value{"compute.ip": "10.0.0.8"}}},
		{NaturalID: "i-9", Name: d.name, StatusReported: true, Feedback: state.Feedback{Status: state.Status{Active: true}}},
	}}, nil
}

// TestDiscoveryUpdatesManagedInstances: a factory's discovery updates the
// signals, and the status when it reports one, of the instances xosplan
// manages (never their name), through the refresh-only plan, for the
// components not refreshed themselves; the name of an unmanaged instance
// is the first one reported.
func TestDiscoveryUpdatesManagedInstances(t *testing.T) {
	component := func(addr, nid string) state.Resource {
		return state.Resource{Address: addr, Type: "scripted.Component", Management: graph.Managed,
			Driver: graph.Driver{Name: fakeName, Options: map[string]graph.Value{OptionFactoryAddress: "F.factory"},
				Operations: map[string]graph.Operation{graph.OpHealthCheck: {Implementation: "/check"}}},
			Feedback: state.Feedback{InstanceID: nid, BackendCode: state.BackendOK, Status: state.Status{Active: true},
				Attributes: map[string]graph.Value{"name": "first"}, Signals: map[string]graph.Value{"compute.ip": "10.0.0.1", "compute.port": int64(80)}}}
	}
	factory := state.Resource{Address: "F.factory", Type: "scripted.ComponentFactory", Management: graph.Managed,
		Driver: graph.Driver{Name: fakeName, Operations: map[string]graph.Operation{graph.OpDiscovery: {Implementation: "/discover"}}},
		Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true},
			Attributes: map[string]graph.Value{AttrDiscovered: []graph.Value{map[string]graph.Value{"id": "i-9", "name": "hand-1", "status": "active"}}}}}
	prior := &state.State{Lineage: "l", Serial: 1, Resources: []state.Resource{component("A.vm", "n-1"), component("B.vm", "n-2"), factory}}
	rf := &Refresher{Drivers: Registry{fakeName: discoverDriver{name: "hand-2"}}, State: prior}
	p, diags := planner.Diff(context.Background(), nil, prior, planner.Options{RefreshOnly: true, Refresher: rf, Targets: []string{"F.factory"}})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	j := &memJournal{}
	if _, err := Walk(context.Background(), p, prior, j, Registry{fakeName: discoverDriver{}}, fastOpts()); err != nil {
		t.Fatal(err)
	}
	after := j.state(prior)
	a, _ := after.Lookup("A.vm")
	if a.Feedback.Signals["compute.ip"] != "10.0.0.9" || a.Feedback.Signals["compute.port"] != int64(80) || !a.Feedback.Status.Failed ||
		a.Feedback.Status.Message != "degraded" || a.Feedback.Attributes["name"] != "first" || a.Feedback.BackendCode != state.BackendError {
		t.Errorf("A.vm recorded %+v", a.Feedback)
	}
	b, _ := after.Lookup("B.vm")
	if b.Feedback.Signals["compute.ip"] != "10.0.0.8" || !b.Feedback.Status.Active || b.Feedback.Status.Failed {
		t.Errorf("B.vm recorded %+v: a discovery without a status keeps the recorded one", b.Feedback)
	}
	f, _ := after.Lookup("F.factory")
	found, _ := f.Feedback.Attributes[AttrDiscovered].([]graph.Value)
	if len(found) != 1 || found[0].(map[string]graph.Value)["name"] != "hand-1" {
		t.Errorf("discovered %v: the unmanaged instance keeps its first name", found)
	}

	// Refreshed itself by its health check, a component keeps what the
	// check observed.
	rf = &Refresher{Drivers: Registry{fakeName: discoverDriver{}}, State: prior}
	p, _ = planner.Diff(context.Background(), nil, prior, planner.Options{RefreshOnly: true, Refresher: rf})
	for _, d := range p.Drift {
		if d.Address == "A.vm" || d.Address == "B.vm" {
			t.Errorf("%s drifted by discovery though its own check ran: %v", d.Address, d.Paths)
		}
	}
}
