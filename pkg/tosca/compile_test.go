package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

func TestLooksLike(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"tosca_definitions_version: tosca_simple_yaml_1_3\n", true},
		{"node_types:\n  a: {}\n", true},
		{"topology_template: {}\n", true},
		{"application:\n  interfaces: {}\n", false},
		{"application: {}\ntopology_template: {}\n", false},
		{"- a\n", false},
		{"name: x\n", false},
	}
	for _, tt := range tests {
		root, _ := yamlsrc.Parse("t.yaml", []byte(tt.text), yamlsrc.Limits{})
		if got := LooksLike(root); got != tt.want {
			t.Errorf("LooksLike(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	if LooksLike(nil) {
		t.Error("LooksLike(nil) = true")
	}
}

const inputsTemplate = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    cpus:
      type: integer
      constraints:
        - valid_values: [ 1, 2, 4 ]
    image:
      type: string
      default: ubuntu
  node_templates:
    server:
      type: tosca.nodes.Compute
      capabilities:
        host:
          properties:
            num_cpus: { get_input: cpus }
  outputs:
    image:
      value: { get_input: image }
`

// TestInputs covers input values given through Options: type checks,
// constraints, --var strings read as YAML, RequireInputs, and undeclared
// names.
func TestInputs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte(inputsTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		opts     Options
		code     string // expected error code, "" for none
		warnCode string
		cpus     any
	}{
		{"no inputs", Options{}, "", "", nil},
		{"required missing", Options{RequireInputs: true}, CodeMissingInput, "", nil},
		{"integer value", Options{Inputs: map[string]any{"cpus": 2}, RequireInputs: true}, "", "", int64(2)},
		{"string from --var", Options{Inputs: map[string]any{"cpus": "4"}, RequireInputs: true}, "", "", int64(4)},
		{"wrong type", Options{Inputs: map[string]any{"cpus": "many"}}, CodeValue, "", nil},
		{"constraint", Options{Inputs: map[string]any{"cpus": 3}}, CodeConstraint, "", nil},
		{"undeclared", Options{Inputs: map[string]any{"cpus": 1, "disk": 3}}, CodeUnknownInput, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, diags := Compile(context.Background(), path, tt.opts)
			if !hasCode(diags, tt.code, diag.Error) || (tt.code == "" && diags.HasErrors()) {
				t.Fatalf("want error %q, got %v", tt.code, diags)
			}
			if tt.warnCode != "" && !hasCode(diags, tt.warnCode, diag.Warning) {
				t.Errorf("want warning %q, got %v", tt.warnCode, diags)
			}
			if tt.code != "" {
				return
			}
			r, _ := g.Resource("server")
			caps := r.Spec["capabilities"].(map[string]any)["host"].(map[string]any)["properties"].(map[string]any)
			if caps["num_cpus"] != tt.cpus {
				t.Errorf("num_cpus = %#v, want %#v", caps["num_cpus"], tt.cpus)
			}
			if g.Outputs["image"] != "ubuntu" {
				t.Errorf("outputs = %v", g.Outputs)
			}
		})
	}
}

func hasCode(ds diag.Diagnostics, code string, sev diag.Severity) bool {
	if code == "" {
		return true
	}
	for _, d := range ds {
		if d.Code == code && d.Severity == sev {
			return true
		}
	}
	return false
}

// TestMissingFile reports an unreadable root file as a diagnostic and no
// graph.
func TestMissingFile(t *testing.T) {
	g, diags := Compile(context.Background(), filepath.Join(t.TempDir(), "nope.yaml"), Options{})
	if g != nil || !hasCode(diags, CodeRead, diag.Error) {
		t.Errorf("got %v, %v", g, diags)
	}
}

// TestTypesOnly compiles a type-definitions file to an empty graph.
func TestTypesOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "types.yaml")
	text := "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.Node:\n    derived_from: tosca.nodes.Root\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	requireNoErrors(t, diags)
	if g == nil || g.Len() != 0 {
		t.Errorf("want an empty graph, got %v", g)
	}
}
