package tosca

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdversarial feeds inputs built to be slow or to loop: each must
// compile to a bounded result with the expected diagnostic code.
func TestAdversarial(t *testing.T) {
	const head = "tosca_definitions_version: tosca_simple_yaml_1_3\n"
	deep := func() string {
		var b strings.Builder
		b.WriteString(head + "node_types:\n  T0:\n    derived_from: tosca.nodes.Root\n")
		for i := 1; i < 400; i++ {
			fmt.Fprintf(&b, "  T%d:\n    derived_from: T%d\n", i, i-1)
		}
		return b.String()
	}
	tests := []struct {
		name, text, code string
	}{
		{"recursive defaults", head + `data_types:
  R:
    derived_from: tosca.datatypes.Root
    properties:
      a: {type: R, default: {}}
      b: {type: R, default: {}}
      c: {type: R, default: {}}
node_types:
  N:
    derived_from: tosca.nodes.Root
    properties:
      r: {type: R}
      x: {type: integer}
topology_template:
  node_templates:
    n: {type: N, properties: {r: {}, x: bad}}
`, CodeValue},
		{"deep derivation", deep(), CodeTooDeep},
		{"get_property cycle", head + `node_types:
  N:
    derived_from: tosca.nodes.Root
    properties:
      a: {type: string}
      b: {type: string}
topology_template:
  node_templates:
    n: {type: N, properties: {a: {get_property: [SELF, b]}, b: {get_property: [n, a]}}}
`, CodeFunction},
		{"copy cycle", head + `topology_template:
  node_templates:
    a: {copy: b, type: tosca.nodes.Compute}
    b: {copy: a, type: tosca.nodes.Compute}
`, CodeCopy},
		{"derivation cycle of three", head + `node_types:
  A: {derived_from: B}
  B: {derived_from: C}
  C: {derived_from: A}
topology_template:
  node_templates:
    a: {type: A}
`, CodeDerivationCycle},
		{"binary garbage", "\x00\x01\x02tosca", "yaml.not_text"},
		{"alias bomb", "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n", "yaml.alias_expansion"},
		{"not a map", "- a\n- b\n", CodeWrongKind},
		{"empty file", "", CodeWrongKind},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "self.yaml")
			if err := os.WriteFile(path, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags := Compile(context.Background(), path, Options{})
			found := false
			for _, d := range diags {
				found = found || d.Code == tt.code
			}
			if !found {
				t.Errorf("no %s diagnostic; got %v", tt.code, diags)
			}
		})
	}
}

// TestCanceled checks that a canceled context stops compilation with a
// diagnostic instead of running on.
func TestCanceled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen.yaml")
	if err := os.WriteFile(path, genTemplate(100), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, diags := Compile(ctx, path, Options{})
	if g != nil || !diags.HasErrors() || diags[0].Code != CodeCanceled {
		t.Errorf("got graph %v, diagnostics %v", g != nil, diags)
	}
}
