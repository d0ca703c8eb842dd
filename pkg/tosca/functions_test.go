package tosca

import (
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
	requireOutputs(t, text, map[string]graph.Value{
		"concat_known": "a1-true",
		"concat_unknown": graph.Unknown{Func: "concat", Args: []graph.Value{"ip=",
			graph.Unknown{Func: "attribute", Args: []graph.Value{"server", "private_address"}}}},
		"join":         "x,y,z",
		"token":        "c",
		"nested_input": "b",
		"artifact":     "images/ubuntu.qcow2",
		"nodes":        []graph.Value{"server", "other"},
		"op_output":    graph.Unknown{Func: "operation_output", Args: []graph.Value{"server", "Standard", "create", "id"}},
	})
}

// requireOutputs compiles text without errors and checks the values its
// outputs evaluate to.
func requireOutputs(t *testing.T, text string, want map[string]graph.Value) {
	t.Helper()
	g := compileText(t, text)
	for name, w := range want {
		if got := g.Outputs[name]; !graph.Equal(got, w) {
			t.Errorf("%s = %s, want %s", name, graph.Render(got), graph.Render(w))
		}
	}
}

// TestGetPropertyThroughARequirementReadsNodeThenCapabilityThenRelationship
// checks what get_property of [node, requirement, name] evaluates to: a
// property of the target node, else of the capability targeted there, else
// of the requirement's relationship (a default of its type when the
// assignment gives it no value), as testdata/errors/get_property_requirement.yaml
// shows with its diagnostics.
func TestGetPropertyThroughARequirementReadsNodeThenCapabilityThenRelationship(t *testing.T) {
	const text = `tosca_definitions_version: tosca_simple_yaml_1_3
capability_types:
  my.Api:
    derived_from: tosca.capabilities.Node
    properties:
      api_port: { type: integer, default: 8443 }
relationship_types:
  my.Uses:
    derived_from: tosca.relationships.DependsOn
    properties:
      timeout: { type: integer, default: 30 }
node_types:
  my.Server:
    derived_from: tosca.nodes.Root
    properties:
      hostname: { type: string }
    capabilities:
      api: my.Api
  my.Client:
    derived_from: tosca.nodes.Root
    requirements:
      - server: { capability: my.Api, node: my.Server, relationship: my.Uses }
      - other: { capability: my.Api, node: my.Server, relationship: my.Uses }
topology_template:
  node_templates:
    server:
      type: my.Server
      properties: { hostname: api.internal }
    client:
      type: my.Client
      requirements:
        - server: server
        - other:
            node: server
            relationship:
              type: my.Uses
              properties: { timeout: 5 }
  outputs:
    node: { value: { get_property: [ client, server, hostname ] } }
    capability: { value: { get_property: [ client, server, api_port ] } }
    relationship_default: { value: { get_property: [ client, server, timeout ] } }
    relationship_assigned: { value: { get_property: [ client, other, timeout ] } }
`
	requireOutputs(t, text, map[string]graph.Value{
		"node":                  "api.internal",
		"capability":            int64(8443),
		"relationship_default":  int64(30),
		"relationship_assigned": int64(5),
	})
}
