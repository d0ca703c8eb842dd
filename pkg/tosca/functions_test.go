package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestFunctionValues checks what each function evaluates to at compile
// time: known values fold, attribute-based ones stay Unknown.
func TestFunctionValues(t *testing.T) {
	const text = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    site: { type: map, default: { name: paris, zones: [ a, b ] } }
  node_templates:
    server:
      type: tosca.nodes.Compute
      artifacts:
        image: images/ubuntu.qcow2
    other:
      type: tosca.nodes.Compute
  outputs:
    concat_known: { value: { concat: [ "a", 1, "-", true ] } }
    concat_unknown: { value: { concat: [ "ip=", { get_attribute: [ server, private_address ] } ] } }
    join: { value: { join: [ [ x, y, z ], "," ] } }
    token: { value: { token: [ "a:b:c", ":", 2 ] } }
    nested_input: { value: { get_input: [ site, zones, 1 ] } }
    artifact: { value: { get_artifact: [ server, image ] } }
    nodes: { value: { get_nodes_of_type: tosca.nodes.Compute } }
    op_output: { value: { get_operation_output: [ server, Standard, create, id ] } }
`
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	requireNoErrors(t, diags)
	want := map[string]graph.Value{
		"concat_known": "a1-true",
		"concat_unknown": graph.Unknown{Func: "concat", Args: []graph.Value{"ip=",
			graph.Unknown{Func: "attribute", Args: []graph.Value{"server", "private_address"}}}},
		"join":         "x,y,z",
		"token":        "c",
		"nested_input": "b",
		"artifact":     "images/ubuntu.qcow2",
		"nodes":        []graph.Value{"server", "other"},
		"op_output":    graph.Unknown{Func: "operation_output", Args: []graph.Value{"server", "Standard", "create", "id"}},
	}
	for name, w := range want {
		if got := g.Outputs[name]; !graph.Equal(got, w) {
			t.Errorf("%s = %s, want %s", name, graph.Render(got), graph.Render(w))
		}
	}
}
