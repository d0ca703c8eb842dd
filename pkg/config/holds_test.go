package config

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

// TestHoldsGivesEachErrorToItsResources compiles, in each of the formats
// a synchronizer reconciles, a configuration in which one template has an
// error, and checks which resources the errors hold: the template's own
// (and nothing else) when the error lies in it, every resource of the
// file when it lies outside any template or in a template the compiler
// could not build, and everything when a file does not parse.
func TestHoldsGivesEachErrorToItsResources(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// held are the addresses held, with the code of their first
		// error; all: everything is held.
		held map[string]string
		all  bool
	}{{
		name: "tosca 1.3 dangling reference",
		files: map[string]string{"stack.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    good:
      type: tosca.nodes.Root
    broken:
      type: tosca.nodes.Root
      requirements:
        - dependency: nowhere
    child:
      type: tosca.nodes.Root
      requirements:
        - dependency: broken
`},
		held: map[string]string{"broken": "tosca.unknown_template"},
	}, {
		name: "tosca 1.3 bad property",
		files: map[string]string{"stack.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    good:
      type: tosca.nodes.Root
    host:
      type: tosca.nodes.Compute
      capabilities:
        host:
          properties:
            num_cpus: many
`},
		held: map[string]string{"host": "tosca.value"},
	}, {
		name: "tosca 1.3 unknown type holds the file",
		files: map[string]string{"stack.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    good:
      type: tosca.nodes.Root
    broken:
      type: NoSuchType
`},
		held: map[string]string{"good": "tosca.unknown_type"},
	}, {
		name: "xos recipe",
		files: map[string]string{"recipe.yaml": `tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - custom_types/site.yaml
topology_template:
  node_templates:
    site_onlab:
      type: tosca.nodes.Site
      properties:
        name: Open Networking Lab
        nosuch: 1
    other:
      type: tosca.nodes.Site
      properties:
        name: Other
`},
		held: map[string]string{"site_onlab": "tosca.unknown_property"},
	}, {
		name: "tosca 2.0 dangling reference",
		files: map[string]string{"stack.yaml": `tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
service_template:
  node_templates:
    good:
      type: Root
    broken:
      type: Root
      requirements:
        - dependency: nowhere
    many:
      type: Root
      count: 2
      properties:
        nosuch: 1
`},
		held: map[string]string{"broken": "tosca.unknown_template", "many[0]": "tosca.unknown_property", "many[1]": "tosca.unknown_property"},
	}, {
		name: "tonomi manifests",
		files: map[string]string{
			"env/VM.yml": `application:
  components:
    vm:
      type: scripted.Component
      configuration:
        factory.name: VM Factory
        factory.launchScript: /vm/launch.py
`,
			"env/Web.yml": `application:
  components:
    web:
      type: scripted.Component
      configuration:
        factory.name: VM Factory
        factory.launchScript: /vm/launch.py
        factory.destroyScript: /vm/destroy.py
`,
			"env/VM Factory.yml": `application:
  components:
    factory:
      type: scripted.ComponentFactory
`},
		held: map[string]string{"VM.vm": "manifest.scripted_missing_script"},
	}, {
		name: "a file that does not parse holds everything",
		files: map[string]string{
			"a.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    good:\n      type: tosca.nodes.Root\n",
			"b.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template: [\n",
		},
		all: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			res := loadTree(t, dir, tt.files, Options{})
			g, _, mergeDiags := res.Merge()
			diags := res.Diags.Extend(mergeDiags)
			if !diags.HasErrors() {
				t.Fatalf("no errors: %v", diags)
			}
			h := res.Holds(diags, g)
			if h.All != tt.all {
				t.Fatalf("All = %v, want %v; diagnostics:\n%s", h.All, tt.all, diagLines(diags))
			}
			if tt.all {
				return
			}
			got := map[string]string{}
			for addr, errs := range h.Resources {
				got[addr] = errs[0].Code
				for _, d := range errs {
					if d.Range.Start.IsZero() || d.Range.File == "" {
						t.Errorf("%s is held by an error without a position: %v", addr, d)
					}
				}
			}
			if !maps.Equal(got, tt.held) {
				t.Errorf("held %v, want %v; resources %v; diagnostics:\n%s", got, tt.held, g.Addresses(), diagLines(diags))
			}
		})
	}
}

// loadTree writes files (by path under dir) and loads dir with opts,
// confined to dir.
func loadTree(t *testing.T, dir string, files map[string]string, opts Options) Result {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	opts.Root = root
	return Load(context.Background(), []string{dir}, opts)
}

func diagLines(diags diag.Diagnostics) string {
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Error()+" ["+d.Code+"] "+d.Path)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// BenchmarkHolds gives the errors of a template of 10,000 node templates,
// every tenth with an unknown property (1,000 errors), to their
// resources: the cost grows with errors plus resources, not their
// product.
func BenchmarkHolds(b *testing.B) {
	var text strings.Builder
	text.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n")
	for i := range 10_000 {
		fmt.Fprintf(&text, "    n%d:\n      type: tosca.nodes.Root\n", i)
		if i%10 == 0 {
			text.WriteString("      properties: {nosuch: 1}\n")
		}
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	root, err := NewRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	res := Load(context.Background(), []string{dir}, Options{Root: root})
	g, _, _ := res.Merge()
	for b.Loop() {
		if h := res.Holds(res.Diags, g); len(h.Resources) != 1_000 {
			b.Fatalf("%d held, want 1000", len(h.Resources))
		}
	}
}
