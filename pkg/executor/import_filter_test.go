package executor

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// confirmer is a scripted-like driver: its health check confirms any
// instance, reporting an attribute.
type confirmer struct{ checked []string }

func (c *confirmer) Apply(_ context.Context, req driver.Request) (driver.Outcome, error) {
	c.checked = append(c.checked, req.Prior.Feedback.InstanceID)
	return driver.Outcome{Feedback: state.Feedback{Status: state.Status{Active: true}, BackendCode: state.BackendOK,
		Attributes: map[string]graph.Value{"seen": req.Prior.Feedback.InstanceID}}}, nil
}

func (*confirmer) ConfirmsInstances() {}

// TestImportByFilterAmongDiscoveries: a scripted component's object is
// found among its factory's recorded discoveries by name or status, then
// confirmed by its health check; an ID field, none or several are
// refused, naming what was discovered.
func TestImportByFilterAmongDiscoveries(t *testing.T) {
	g := graph.New()
	comp := &graph.Resource{Address: "VM.vm", Type: "vm", Management: graph.Managed, Spec: map[string]graph.Value{},
		Driver: graph.Driver{Name: "fake", Options: map[string]graph.Value{OptionFactoryAddress: "F.f"},
			Operations: map[string]graph.Operation{graph.OpLaunch: {Implementation: "/l"}, graph.OpHealthCheck: {Implementation: "/h"}}}}
	if err := g.AddResource(comp); err != nil {
		t.Fatal(err)
	}
	disc := []graph.Value{
		map[string]graph.Value{"id": "i-1", "name": "web one", "status": "active"},
		map[string]graph.Value{"id": "i-2", "name": "web two", "status": "active"},
	}
	cur := &state.State{Resources: []state.Resource{{Address: "F.f", Type: "factory", Management: graph.Managed,
		Feedback: state.Feedback{Attributes: map[string]graph.Value{AttrDiscovered: disc}}}}}
	d := &confirmer{}
	reg := Registry{"fake": d}
	ctx := context.Background()
	for _, tc := range []struct {
		filter map[string]graph.Value
		err    error
		text   string
	}{
		{filter: map[string]graph.Value{"instanceId": "i-1"}, err: ErrIDFilter},
		{filter: map[string]graph.Value{}, text: "empty"},
		{filter: map[string]graph.Value{"name": "web three"}, err: driver.ErrNotFound, text: `"i-1" (name "web one"), "i-2" (name "web two")`},
		{filter: map[string]graph.Value{"status": "active"}, err: driver.ErrAmbiguous, text: `2 instances with status = "active"`},
	} {
		_, err := ImportByFilter(ctx, g, cur, "VM.vm", tc.filter, reg, ImportOptions{})
		if err == nil || tc.err != nil && !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("filter %v: error %v, want %v %q", tc.filter, err, tc.err, tc.text)
		}
	}
	if len(d.checked) != 0 {
		t.Errorf("refused filters ran health checks: %v", d.checked)
	}
	rec, err := ImportByFilter(ctx, g, cur, "VM.vm", map[string]graph.Value{"name": "web two", "status": "active"}, reg, ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Feedback.InstanceID != "i-2" || rec.Management != graph.Managed || rec.Feedback.Attributes["seen"] != "i-2" {
		t.Errorf("record %+v", rec)
	}
}
