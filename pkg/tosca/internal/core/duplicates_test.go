package core

import (
	"context"
	"slices"
	"testing"
)

// TestCheckDuplicatesSkipsOnlyWhatHoldsNoKey: the walk skips scalars and
// one-key maps of a scalar (a requirement's short form), and still finds
// a repeated key in a sequence's item, in the map of a one-key item, and
// deep in a chain of one-key maps, at its path.
func TestCheckDuplicatesSkipsOnlyWhatHoldsNoKey(t *testing.T) {
	s := NewSession(context.Background())
	root := s.ParseYAML("t.yaml", []byte(`topology_template:
  node_templates:
    a:
      type: T
      requirements:
        - host: b
        - { x: 1, x: 2 }
        - dependency: { node: b, node: c }
    b:
      type: T
      properties: { p: { q: { r: 1, r: 2 } } }
      interfaces: [ 1, 2, [ { k: 1, k: 2 } ] ]
`))
	if root == nil {
		t.Fatalf("parse: %v", s.Diags.Err())
	}
	var stack []string
	s.CheckDuplicates(root, 0, true, &stack)
	var got []string
	for _, d := range s.Diags {
		got = append(got, d.Path)
	}
	want := []string{
		"topology_template.node_templates.a.requirements[1].x",
		"topology_template.node_templates.a.requirements[2].dependency.node",
		"topology_template.node_templates.b.properties.p.q.r",
		"topology_template.node_templates.b.interfaces[2][0].k",
	}
	if !slices.Equal(got, want) {
		t.Errorf("paths %q, want %q", got, want)
	}
	if len(stack) != 0 {
		t.Errorf("stack left %q", stack)
	}
}
