package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestRequirementMatching checks which template a requirement lands on:
// by name, by node type, by capability type, through a node_filter,
// implicitly for an unassigned required one, and the edge kind its
// relationship gives.
func TestRequirementMatching(t *testing.T) {
	const text = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    small:
      type: tosca.nodes.Compute
      capabilities:
        host: { properties: { num_cpus: 1 } }
    big:
      type: tosca.nodes.Compute
      capabilities:
        host: { properties: { num_cpus: 8 } }
    by_name:
      type: tosca.nodes.WebServer
      requirements:
        - host: small
    by_type:
      type: tosca.nodes.WebServer
      requirements:
        - host: tosca.nodes.Compute
    by_filter:
      type: tosca.nodes.WebServer
      requirements:
        - host:
            node: tosca.nodes.Compute
            node_filter:
              capabilities:
                - host:
                    properties:
                      - num_cpus: { greater_or_equal: 4 }
    implicit:
      type: tosca.nodes.WebServer
    by_capability:
      type: tosca.nodes.SoftwareComponent
      requirements:
        - host:
            capability: tosca.capabilities.Compute
        - dependency: by_name
`
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	requireNoErrors(t, diags)
	want := map[string][]graph.Edge{
		"by_name":       {{Source: "by_name", Target: "small", Kind: graph.HostedOn, Name: "host"}},
		"by_type":       {{Source: "by_type", Target: "small", Kind: graph.HostedOn, Name: "host"}},
		"by_filter":     {{Source: "by_filter", Target: "big", Kind: graph.HostedOn, Name: "host"}},
		"implicit":      {{Source: "implicit", Target: "small", Kind: graph.HostedOn, Name: "host"}},
		"by_capability": {{Source: "by_capability", Target: "by_name", Kind: graph.DependsOn, Name: "dependency"}, {Source: "by_capability", Target: "small", Kind: graph.HostedOn, Name: "host"}},
	}
	if !hasCode(diags, CodeImplicitRequirement, diag.Warning) {
		t.Errorf("no %s warning for the ambiguous implicit match", CodeImplicitRequirement)
	}
	for src, edges := range want {
		got := edgesFrom(g, src)
		if len(got) != len(edges) {
			t.Errorf("%s: edges %v, want %v", src, got, edges)
			continue
		}
		for i, e := range edges {
			if got[i].Target != e.Target || got[i].Kind != e.Kind || got[i].Name != e.Name {
				t.Errorf("%s: edge %d = %+v, want %+v", src, i, got[i], e)
			}
		}
	}
}

// edgesFrom returns the edges leaving addr (what it depends on), in the
// order of Graph.Edges.
func edgesFrom(g *graph.Graph, addr string) []graph.Edge {
	var out []graph.Edge
	for _, e := range g.Edges() {
		if e.Source == addr {
			out = append(out, e)
		}
	}
	return out
}
