package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestHealthCheck: the check operation of an interface of type
// xosplan.interfaces.Health (xosplan's own type, loaded without an import)
// is the exec driver's health check, graph.OpHealthCheck, rendered as any
// operation is (a template's assignment overrides the type's, inputs are
// kept); metadata xosplan.health_interval is the driver option
// graph.OptionHealthInterval.
func TestHealthCheck(t *testing.T) {
	dir := t.TempDir()
	main := filepath.Join(dir, "main.yaml")
	if err := os.WriteFile(main, []byte(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  my.Db:
    derived_from: tosca.nodes.Root
    interfaces:
      Standard:
        create: scripts/create.sh
      Health:
        type: xosplan.interfaces.Health
        operations:
          check:
            implementation: scripts/check.sh
            inputs:
              port: { type: integer, default: 5432 }
topology_template:
  node_templates:
    db:
      type: my.Db
      metadata:
        xosplan.health_interval: 5m
    other:
      type: my.Db
      interfaces:
        Health:
          operations:
            check: scripts/other-check.sh
    plain:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          create: scripts/create.sh
`), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), main, Options{Root: rootAt(t, dir)})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	tests := []struct {
		addr, impl string
		port       graph.Value
		interval   graph.Value
	}{
		{"db", "scripts/check.sh", int64(5432), "5m"},
		{"other", "scripts/other-check.sh", int64(5432), nil},
		{"plain", "", nil, nil},
	}
	for _, tt := range tests {
		r, ok := g.Resource(tt.addr)
		if !ok {
			t.Fatalf("no resource %s", tt.addr)
		}
		if r.Driver.Name != graph.DriverExec {
			t.Errorf("%s: driver %q, want exec", tt.addr, r.Driver.Name)
		}
		check, has := r.Driver.Operations[graph.OpHealthCheck]
		if has != (tt.impl != "") || check.Implementation != tt.impl || check.Inputs["port"] != tt.port {
			t.Errorf("%s: health check %v (%+v), want %q with port %v", tt.addr, has, check, tt.impl, tt.port)
		}
		if got := r.Driver.Options[graph.OptionHealthInterval]; got != tt.interval {
			t.Errorf("%s: health interval %v, want %v", tt.addr, got, tt.interval)
		}
		if _, ok := r.Driver.Operations["Health.check"]; ok {
			t.Errorf("%s: the check is also a Health.check operation", tt.addr)
		}
	}
}
