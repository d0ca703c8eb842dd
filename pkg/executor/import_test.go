package executor

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver/all"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestImportRecordsTheConfiguredResource: an exec resource is recorded as
// managed with its configured spec as enacted, the id and the attributes
// given, its dependencies and the values it reads resolved from the
// state; what cannot be imported is refused with the reason.
func TestImportRecordsTheConfiguredResource(t *testing.T) {
	g := graph.New()
	for _, r := range []*graph.Resource{
		{Address: "db", Type: "demo.Db", Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverExec},
			Spec: map[string]graph.Value{"host": graph.Unknown{Func: "attribute", Args: []graph.Value{"host", "ip"}}}},
		{Address: "host", Type: "tosca.nodes.Compute", Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverNoop}},
		{Address: "site", Type: "site", Management: graph.Unmanaged, Driver: graph.Driver{Name: graph.DriverNoop}},
		{Address: "factory", Type: "f", Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverScripted,
			Operations: map[string]graph.Operation{graph.OpDiscovery: {Implementation: "/f/discover.py"}}}},
		{Address: "vm", Type: "c", Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverScripted,
			Operations: map[string]graph.Operation{graph.OpLaunch: {Implementation: "/vm/launch.py"}},
			Options:    map[string]graph.Value{OptionFactoryAddress: "factory"}}},
	} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddEdge(graph.Edge{Source: "db", Target: "host", Kind: graph.HostedOn}); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hostRec := state.Resource{Address: "host", Type: "tosca.nodes.Compute", Management: graph.Managed,
		Feedback: state.Feedback{Attributes: map[string]graph.Value{"ip": "10.0.0.1"}, BackendCode: state.BackendOK}}
	withHost := &state.State{Version: state.FormatVersion, Lineage: "l", Resources: []state.Resource{hostRec}}
	opts := ImportOptions{Attributes: map[string]graph.Value{"port": int64(5432)}, Now: func() time.Time { return now }}

	rec, err := Import(context.Background(), g, withHost, "db", "db-42", all.NewRegistry(DriverOptions{}), opts)
	if err != nil {
		t.Fatal(err)
	}
	fb := rec.Feedback
	switch {
	case rec.Management != graph.Managed || rec.Type != "demo.Db" || !graph.Equal(rec.Spec["host"], graph.Unknown{Func: "attribute", Args: []graph.Value{"host", "ip"}}):
		t.Errorf("record %+v", rec)
	case len(rec.Dependencies) != 1 || rec.Dependencies[0] != "host":
		t.Errorf("dependencies %v", rec.Dependencies)
	case fb.InstanceID != "db-42" || fb.Attributes["port"] != int64(5432) || fb.Resolved["host"] != "10.0.0.1":
		t.Errorf("feedback %+v", fb)
	case fb.BackendCode != state.BackendOK || !fb.Enacted.Equal(now) || !fb.Status.Active:
		t.Errorf("feedback status %+v", fb)
	}

	recorded := &state.State{Version: state.FormatVersion, Lineage: "l", Resources: []state.Resource{hostRec, *rec}}
	empty := &state.State{Version: state.FormatVersion}
	for _, tc := range []struct {
		name, addr string
		cur        *state.State
		opts       ImportOptions
		want       error
	}{
		{"not configured", "nosuch", empty, ImportOptions{}, ErrNotConfigured},
		{"recorded", "db", recorded, ImportOptions{}, ErrAlreadyRecorded},
		{"unmanaged", "site", empty, ImportOptions{}, ErrNotImportable},
		{"factory", "factory", empty, ImportOptions{}, ErrNotImportable},
		{"attributes of a scripted component", "vm", empty, opts, ErrNotImportable},
		{"scripted component without a health check or discovery", "vm", empty, ImportOptions{}, ErrNotConfirmed},
	} {
		if _, err := Import(context.Background(), g, tc.cur, tc.addr, "x", all.NewRegistry(DriverOptions{}), tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// What it reads must be recorded first.
	if _, err := Import(context.Background(), g, empty, "db", "db-42", all.NewRegistry(DriverOptions{}), ImportOptions{}); err == nil {
		t.Error("imported a resource whose spec reads an unrecorded one")
	}
}

// TestImportOfADiscoveredInstanceWithoutHealthCheck: a scripted component
// without a health check is confirmed by its factory's recorded discovery,
// which then no longer lists it.
func TestImportOfADiscoveredInstanceWithoutHealthCheck(t *testing.T) {
	g := graph.New()
	vm := &graph.Resource{Address: "vm", Type: "c", Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverScripted,
		Operations: map[string]graph.Operation{graph.OpLaunch: {Implementation: "/vm/launch.py"}},
		Options:    map[string]graph.Value{OptionFactoryAddress: "factory"}}}
	if err := g.AddResource(vm); err != nil {
		t.Fatal(err)
	}
	found := []graph.Value{
		map[string]graph.Value{"id": "i-2", "name": "two", "status": "active"},
		map[string]graph.Value{"id": "i-1", "name": "one", "status": "ok"},
	}
	factory := state.Resource{Address: "factory", Management: graph.Managed, Driver: graph.Driver{Name: graph.DriverScripted},
		Feedback: state.Feedback{Attributes: map[string]graph.Value{AttrDiscovered: found}}}
	cur := &state.State{Version: state.FormatVersion, Lineage: "l", Resources: []state.Resource{factory}}
	if got := DiscoveredIDs(&factory); len(got) != 2 || got[0] != "i-1" || got[1] != "i-2" {
		t.Errorf("DiscoveredIDs = %v", got)
	}
	rec, err := Import(context.Background(), g, cur, "vm", "i-2", all.NewRegistry(DriverOptions{}), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Feedback.InstanceID != "i-2" {
		t.Errorf("instance id %q", rec.Feedback.InstanceID)
	}
	if _, err := Import(context.Background(), g, cur, "vm", "i-3", all.NewRegistry(DriverOptions{}), ImportOptions{}); !errors.Is(err, ErrNotConfirmed) {
		t.Errorf("an undiscovered id: %v", err)
	}
	after := WithoutDiscovered(&factory, "i-2")
	if got := DiscoveredIDs(&after); len(got) != 1 || got[0] != "i-1" {
		t.Errorf("after the import the factory lists %v", got)
	}
	if got := DiscoveredIDs(&factory); len(got) != 2 {
		t.Errorf("WithoutDiscovered changed its argument: %v", got)
	}
	gone := WithoutDiscovered(&after, "i-1")
	if gone.Feedback.Attributes != nil {
		t.Errorf("no discovery left, attributes %v", gone.Feedback.Attributes)
	}
}
