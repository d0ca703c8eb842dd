package tosca

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestModelPolicyCompilesToAGraphPolicy(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "policies"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policies", "ifaces.sh"), []byte("echo '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `tosca_definitions_version: tosca_simple_yaml_1_2
topology_template:
  node_templates:
    n1: {type: tosca.nodes.network.Network}
    n2: {type: tosca.nodes.network.Network}
    vm: {type: tosca.nodes.Compute}
  groups:
    nets: {type: tosca.groups.Root, members: [n2, n1]}
  policies:
    - ifaces:
        type: xosplan.policies.ModelPolicy
        targets: [nets, n1, vm]
        properties:
          implementation: policies/ifaces.sh
          types: [tosca.nodes.network.Port]
          timeout: 7
`
	path := filepath.Join(dir, "service.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{Root: []string{dir}})
	if len(diags) > 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	ps := g.Policies()
	if len(ps) != 1 {
		t.Fatalf("policies %+v", ps)
	}
	p := ps[0]
	abs, _ := filepath.Abs(filepath.Join(dir, "policies", "ifaces.sh"))
	if p.Name != "ifaces" || p.Implementation != abs || p.Timeout != 7*time.Second || p.Range.Start.Line != 10 {
		t.Errorf("policy %+v", p)
	}
	if want := []string{"n1", "n2", "vm"}; !slices.Equal(p.Targets, want) {
		t.Errorf("targets %v, want %v", p.Targets, want)
	}
	if types, _ := p.Properties["types"].([]graph.Value); len(types) != 1 || types[0] != "tosca.nodes.network.Port" || len(p.Properties) != 1 {
		t.Errorf("properties %v", p.Properties)
	}
}
