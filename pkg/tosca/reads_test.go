package tosca

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// readsHeader declares a node type with an attribute and an operation
// output, which the cases below read from other templates.
const readsHeader = `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  my.Base:
    derived_from: tosca.nodes.Root
    properties:
      port: { type: integer, default: 80 }
    attributes:
      token: { type: string }
topology_template:
  node_templates:
    base:
      type: my.Base
      interfaces:
        Standard:
          create: base.sh
`

// TestReadsOrderTheReaderAfterWhatItReads checks that a template naming
// another in get_attribute, get_property or get_operation_output is
// ordered after it by a reads edge even without a requirement, that a
// requirement already joining them adds none, and that reads take part in
// cycle finding.
func TestReadsOrderTheReaderAfterWhatItReads(t *testing.T) {
	tests := []struct {
		name  string
		nodes string
		// want lists the edges as "source -kind-> target (name)".
		want []string
		// cycle, when set, is the dependency cycle reported instead.
		cycle string
	}{
		{
			name: "get_attribute in an operation input",
			nodes: `    reader:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          create:
            implementation: reader.sh
            inputs:
              token: { get_attribute: [ base, token ] }
`,
			want: []string{"reader -reads-> base (interfaces.Standard.create.inputs.token)"},
		},
		{
			name: "get_property in a property",
			nodes: `    reader:
      type: tosca.nodes.WebServer
      properties:
        component_version: { get_property: [ base, port ] }
`,
			want: []string{"reader -reads-> base (properties.component_version)"},
		},
		{
			name: "get_operation_output in an attribute",
			nodes: `    reader:
      type: tosca.nodes.Root
      attributes:
        tosca_id: { get_operation_output: [ base, Standard, create, id ] }
`,
			want: []string{"reader -reads-> base (attributes.tosca_id)"},
		},
		{
			name: "get_attribute in a relationship operation",
			nodes: `    other:
      type: tosca.nodes.Root
    reader:
      type: tosca.nodes.Root
      requirements:
        - dependency:
            node: other
            relationship:
              type: tosca.relationships.DependsOn
              interfaces:
                Configure:
                  pre_configure_source:
                    implementation: pre.sh
                    inputs:
                      token: { get_attribute: [ base, token ] }
`,
			want: []string{
				"reader -reads-> base (requirements[0].dependency.relationship.interfaces.Configure.pre_configure_source.inputs.token)",
				"reader -depends_on-> other (dependency)",
			},
		},
		{
			name: "a requirement already orders the two",
			nodes: `    reader:
      type: tosca.nodes.Root
      requirements:
        - dependency: base
      interfaces:
        Standard:
          configure:
            implementation: reader.sh
            inputs:
              token: { get_attribute: [ base, token ] }
`,
			want: []string{"reader -depends_on-> base (dependency)"},
		},
		{
			name: "SELF, and outputs, read nothing that orders",
			nodes: `    reader:
      type: my.Base
      interfaces:
        Standard:
          configure:
            implementation: reader.sh
            inputs:
              token: { get_attribute: [ SELF, token ] }
  outputs:
    token: { value: { get_attribute: [ base, token ] } }
`,
		},
		{
			name: "two templates reading each other are a cycle",
			nodes: `    reader:
      type: my.Base
      requirements:
        - dependency: base
  outputs:
    loop: { value: 1 }
`,
			cycle: "base -> reader -> base",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := readsHeader + tt.nodes
			if tt.cycle != "" {
				// base reads reader's token back.
				text = strings.Replace(text, "          create: base.sh\n",
					"          create:\n            implementation: base.sh\n            inputs:\n              t: { get_attribute: [ reader, token ] }\n", 1)
			}
			path := filepath.Join(t.TempDir(), "t.yaml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			g, diags := Compile(context.Background(), path, Options{})
			if tt.cycle != "" {
				var found bool
				for _, d := range diags {
					found = found || d.Code == CodeDependencyCycle && strings.Contains(d.Summary, tt.cycle) && strings.Contains(d.Detail, "base reads reader (interfaces.Standard.create.inputs.t at ")
				}
				if !found {
					t.Fatalf("no dependency cycle %q in:\n%v", tt.cycle, diags)
				}
				return
			}
			requireNoErrors(t, diags)
			var got []string
			for _, e := range g.Edges() {
				got = append(got, e.Source+" -"+string(e.Kind)+"-> "+e.Target+" ("+e.Name+")")
				if e.Kind == graph.Reads && (e.Range.File != path || e.Range.Start.Line == 0) {
					t.Errorf("reads edge without position: %+v", e.Range)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("edges:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
