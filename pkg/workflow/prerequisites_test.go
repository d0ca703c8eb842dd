package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// missingDriver is a driver that says it cannot run here.
type missingDriver struct{ err error }

func (missingDriver) Apply(context.Context, driver.Request) (driver.Outcome, error) {
	return driver.Outcome{}, errors.New("not here")
}
func (m missingDriver) Missing() error { return m.err }

// TestDriverDiagnostics: validate and plan warn once per driver that
// cannot run here, at the first of its resources' implementations,
// counting them; a driver that can run, or says nothing, is silent.
func TestDriverDiagnostics(t *testing.T) {
	g := graph.New()
	at := diag.Range{File: "stack.yaml", Start: diag.Pos{Line: 7, Column: 19}}
	for _, addr := range []string{"a", "b"} {
		if err := g.AddResource(&graph.Resource{Address: addr, Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{},
			Driver: graph.Driver{Name: graph.DriverAnsible, Operations: map[string]graph.Operation{"Standard.create": {Implementation: "x.yml", Range: at}}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddResource(&graph.Resource{Address: "c", Type: "t", Management: graph.Managed, Spec: map[string]graph.Value{}, Driver: graph.Driver{Name: graph.DriverExec}}); err != nil {
		t.Fatal(err)
	}
	reg := driver.Registry{graph.DriverAnsible: missingDriver{errors.New("ansible-playbook was not found")}, graph.DriverExec: missingDriver{}}
	diags := DriverDiagnostics([]*graph.Graph{g, nil}, reg)
	if len(diags) != 1 {
		t.Fatalf("diagnostics %v, want one", diags)
	}
	d := diags[0]
	if d.Severity != diag.Warning || d.Code != CodeDriverUnavailable || d.Range != at ||
		!strings.Contains(d.Summary, "2 resource(s) use the ansible driver (a first)") || !strings.Contains(d.Summary, "ansible-playbook was not found") {
		t.Errorf("got %+v", d)
	}
	reg[graph.DriverAnsible] = missingDriver{}
	if diags := DriverDiagnostics([]*graph.Graph{g}, reg); len(diags) != 0 {
		t.Errorf("a driver that can run: %v", diags)
	}
}
