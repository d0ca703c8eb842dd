package tosca

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// compileText compiles text as a file of its own, without errors.
func compileText(t *testing.T, text string) *graph.Graph {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	requireNoErrors(t, diags)
	return g
}

// TestSensitivePathsPerTemplate: the sensitive paths a type gives its
// templates are computed once per type, but each resource holds its own
// list: what a reader of a secret gains is its own (core.SpreadSecrets
// appends to it).
func TestSensitivePathsPerTemplate(t *testing.T) {
	g := compileText(t, `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    host: { type: tosca.nodes.Compute }
    a: { type: tosca.nodes.SoftwareComponent, requirements: [ { host: host } ] }
    b: { type: tosca.nodes.SoftwareComponent, requirements: [ { host: host } ] }
    reader:
      type: tosca.nodes.SoftwareComponent
      attributes:
        tosca_name: { get_attribute: [ a, admin_credential ] }
      requirements: [ { host: host } ]
`)
	get := func(addr string) *graph.Resource {
		r, ok := g.Resource(addr)
		if !ok {
			t.Fatalf("no resource %s", addr)
		}
		return r
	}
	a, b, reader := get("a"), get("b"), get("reader")
	want := []string{"properties.admin_credential"}
	if !slices.Equal(a.Sensitive, want) || !slices.Equal(b.Sensitive, want) {
		t.Fatalf("a: %v, b: %v; want %v", a.Sensitive, b.Sensitive, want)
	}
	if &a.Sensitive[0] == &b.Sensitive[0] {
		t.Error("two resources share one list of sensitive paths")
	}
	if got := reader.Sensitive; !slices.Equal(got, []string{"attributes.tosca_name", "properties.admin_credential"}) {
		t.Errorf("reader: %v", got)
	}
	a.Sensitive = append(a.Sensitive[:1], "x")
	if !slices.Equal(b.Sensitive, want) {
		t.Errorf("changing a's list changed b's: %v", b.Sensitive)
	}
}

// TestCapabilityDefaultWithoutAssignments: get_property of a capability
// property reads its type's default on a template that assigns no
// capability at all (whose capability values are made lazily).
func TestCapabilityDefaultWithoutAssignments(t *testing.T) {
	requireOutputs(t, `tosca_definitions_version: tosca_simple_yaml_1_3
capability_types:
  my.Endpoint:
    derived_from: tosca.capabilities.Root
    properties:
      port: { type: integer, default: 8080 }
node_types:
  my.Server:
    derived_from: tosca.nodes.Root
    capabilities:
      api: { type: my.Endpoint }
topology_template:
  node_templates:
    server: { type: my.Server }
    tuned: { type: my.Server, capabilities: { api: { properties: { port: 9090 } } } }
  outputs:
    default: { value: { get_property: [ server, api, port ] } }
    assigned: { value: { get_property: [ tuned, api, port ] } }
`, map[string]graph.Value{"default": int64(8080), "assigned": int64(9090)})
}
