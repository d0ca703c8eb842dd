package tosca

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestAnsibleDriverAndHosts compiles a stack of playbooks (xOpera's
// layout): nodes whose implementations are all playbooks get the Ansible
// driver, and each operation the host it runs on: the Compute below the
// node, the target's for the target-side relationship operations, none
// (this machine) for the Compute's own; operation_host overrides it
// (ORCHESTRATOR: this machine; TARGET: the target's).
func TestAnsibleDriverAndHosts(t *testing.T) {
	dir := t.TempDir()
	src := `tosca_definitions_version: tosca_simple_yaml_1_3
artifact_types:
  tosca.artifacts.Implementation.Ansible:
    derived_from: tosca.artifacts.Implementation
relationship_types:
  my.Wire:
    derived_from: tosca.relationships.ConnectsTo
    interfaces:
      Configure:
        operations:
          pre_configure_source: playbooks/source.yml
          pre_configure_target: playbooks/target.yml
          post_configure_source:
            implementation:
              primary: playbooks/source.yml
              operation_host: TARGET
node_types:
  my.VM:
    derived_from: tosca.nodes.Compute
    interfaces:
      Standard:
        create: playbooks/vm.yml
  my.App:
    derived_from: tosca.nodes.SoftwareComponent
    artifacts:
      setup:
        type: tosca.artifacts.Implementation.Ansible
        file: playbooks/setup.play
    interfaces:
      Standard:
        create: setup
        configure:
          implementation:
            primary: playbooks/local.yml
            operation_host: ORCHESTRATOR
    requirements:
      - peer:
          capability: tosca.capabilities.Endpoint
          relationship: my.Wire
          occurrences: [0, 1]
  my.Db:
    derived_from: tosca.nodes.SoftwareComponent
    capabilities:
      api: tosca.capabilities.Endpoint
    interfaces:
      Standard:
        create: playbooks/db.yaml
  my.Script:
    derived_from: tosca.nodes.Root
    interfaces:
      Standard:
        create: scripts/create.sh
topology_template:
  node_templates:
    vm:
      type: my.VM
      attributes:
        public_address: 10.0.0.5
    other:
      type: tosca.nodes.Compute
    app:
      type: my.App
      requirements:
        - host: vm
        - peer: db
    db:
      type: my.Db
      requirements:
        - host: other
    local:
      type: my.Script
`
	p := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), p, Options{Root: []string{dir}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	host := func(c string, extra ...graph.Value) graph.Value {
		addrs := []graph.Value{graph.Unknown{Func: "attribute", Args: []graph.Value{c, "public_address"}}}
		addrs = append(addrs, extra...)
		addrs = append(addrs, graph.Unknown{Func: "attribute", Args: []graph.Value{c, "private_address"}})
		return map[string]graph.Value{"address": addrs,
			"user": graph.Unknown{Func: "attribute", Args: []graph.Value{c, "endpoint", "credential", "user"}}}
	}
	for _, tc := range []struct {
		addr, driver, op string
		host             graph.Value
	}{
		{"vm", graph.DriverAnsible, "Standard.create", nil},
		{"app", graph.DriverAnsible, "Standard.create", host("vm", "10.0.0.5")},
		{"app", graph.DriverAnsible, "Configure.pre_configure_source", host("vm", "10.0.0.5")},
		{"app", graph.DriverAnsible, "Configure.pre_configure_target", host("other")},
		{"app", graph.DriverAnsible, "Configure.post_configure_source", host("other")},
		{"app", graph.DriverAnsible, "Standard.configure", nil},
		{"db", graph.DriverAnsible, "Standard.create", host("other")},
		{"local", graph.DriverExec, "Standard.create", nil},
	} {
		r, ok := g.Resource(tc.addr)
		if !ok {
			t.Fatalf("no resource %s", tc.addr)
		}
		if r.Driver.Name != tc.driver {
			t.Errorf("%s: driver %q, want %q", tc.addr, r.Driver.Name, tc.driver)
		}
		op, ok := r.Driver.Operations[tc.op]
		if !ok {
			t.Errorf("%s: no operation %s", tc.addr, tc.op)
			continue
		}
		if got := op.Inputs[graph.InputAnsibleHost]; !reflect.DeepEqual(got, tc.host) {
			t.Errorf("%s %s: host %#v, want %#v", tc.addr, tc.op, got, tc.host)
		}
	}
}

// TestAnsibleDriver2: in TOSCA 2.0 too, an operation whose artifact type
// derives from an Ansible implementation type runs with the Ansible
// driver, on the Compute the node is hosted on.
func TestAnsibleDriver2(t *testing.T) {
	dir := t.TempDir()
	src := `tosca_definitions_version: tosca_2_0
imports: [ { profile: org.oasis-open.simple:2.0 } ]
artifact_types:
  Ansible: { derived_from: Implementation }
node_types:
  App:
    derived_from: SoftwareComponent
    requirements:
      - host: { capability: Compute, relationship: HostedOn }
    interfaces:
      Standard:
        operations:
          create:
            implementation:
              primary: { type: Ansible, file: playbooks/create.play }
  Other:
    derived_from: Root
    interfaces:
      Standard:
        operations:
          create: scripts/create.sh
service_template:
  node_templates:
    vm:
      type: Compute
    app:
      type: App
      requirements:
        - host: vm
    other:
      type: Other
`
	p := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), p, Options{Root: []string{dir}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	app, _ := g.Resource("app")
	if app == nil || app.Driver.Name != graph.DriverAnsible {
		t.Fatalf("app: %+v, want the ansible driver", app)
	}
	want := map[string]graph.Value{"address": []graph.Value{
		graph.Unknown{Func: "attribute", Args: []graph.Value{"vm", "public_address"}},
		graph.Unknown{Func: "attribute", Args: []graph.Value{"vm", "private_address"}}},
		"user": graph.Unknown{Func: "attribute", Args: []graph.Value{"vm", "endpoint", "credential", "user"}}}
	if got := app.Driver.Operations["Standard.create"].Inputs[graph.InputAnsibleHost]; !reflect.DeepEqual(got, want) {
		t.Errorf("host %#v, want %#v", got, want)
	}
	if other, _ := g.Resource("other"); other == nil || other.Driver.Name != graph.DriverExec {
		t.Errorf("other: %+v, want exec", other)
	}
}
