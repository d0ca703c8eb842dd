package tosca

import (
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestAttributeValues checks, in TOSCA 1.3 and 2.0, that the attribute
// values a template gives at compile time reach the spec the executor
// records them from: a node's attribute defaults even when the template
// assigns none (1.3; the root types' orchestrator attributes excepted),
// its relationships' attribute defaults and assignments under
// "relationships" (one entry per assignment of a requirement), and that
// a relationship type's sensitive attribute makes its path sensitive
// ("relationships.<requirement>.<index>.attributes.<name>"), as does a
// relationship template's attribute assigned a sensitive input, and a
// property and an output that read one at apply time are sensitive. Before, a 1.3 node without an attributes
// assignment had none in its spec, and no relationship attribute value
// or sensitivity reached the graph.
func TestAttributeValues(t *testing.T) {
	for _, tc := range []struct {
		name, src string
	}{
		{"tosca13", `tosca_definitions_version: tosca_simple_yaml_1_3
relationship_types:
  my.Wire:
    derived_from: tosca.relationships.ConnectsTo
    attributes:
      mode: { type: string, default: plain }
      secret: { type: string, metadata: { sensitive: true } }
      token: { type: string, required: false }
node_types:
  my.Server:
    derived_from: tosca.nodes.Root
    attributes:
      endpoint: { type: string, default: "tcp://db" }
    capabilities:
      db: tosca.capabilities.Endpoint
  my.Client:
    derived_from: tosca.nodes.Root
    requirements:
      - db: { capability: tosca.capabilities.Endpoint, node: my.Server, relationship: my.Wire, occurrences: [ 1, 2 ] }
  my.Reader:
    derived_from: tosca.nodes.Root
    properties:
      seen: { type: string }
topology_template:
  inputs:
    tok: { type: string, metadata: { sensitive: true }, default: T0K-s3cret }
  relationship_templates:
    wire:
      type: my.Wire
      attributes: { mode: tls, token: { get_input: tok } }
  node_templates:
    db: { type: my.Server }
    app:
      type: my.Client
      requirements:
        - db: { node: db, relationship: wire }
        - db: { node: db, relationship: my.Wire }
    reader:
      type: my.Reader
      properties:
        seen: { concat: [ "t=", { get_attribute: [ wire, secret ] } ] }
  outputs:
    link: { value: { get_attribute: [ wire, secret ] } }
`},
		{"tosca20", `tosca_definitions_version: tosca_2_0
capability_types:
  Api: {}
relationship_types:
  Wire:
    attributes:
      mode: { type: string, default: plain }
      secret: { type: string, metadata: { sensitive: true } }
      token: { type: string }
node_types:
  Server:
    attributes:
      endpoint: { type: string, default: "tcp://db" }
    capabilities:
      db: { type: Api }
  Client:
    requirements:
      - db: { capability: Api, node: Server, relationship: Wire, count_range: [ 1, 2 ] }
  Reader:
    properties:
      seen: { type: string }
service_template:
  inputs:
    tok: { type: string, metadata: { sensitive: true }, default: T0K-s3cret }
  relationship_templates:
    wire:
      type: Wire
      attributes: { mode: tls, token: { $get_input: tok } }
  node_templates:
    db: { type: Server }
    app:
      type: Client
      requirements:
        - db: { node: db, relationship: wire }
        - db: { node: db, relationship: Wire }
    reader:
      type: Reader
      properties:
        seen: { $concat: [ "t=", { $get_attribute: [ app, RELATIONSHIP, db, 0, secret ] } ] }
  outputs:
    link: { value: { $get_attribute: [ app, RELATIONSHIP, db, 1, secret ] } }
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := compileFiles2(t, map[string]string{"main.yaml": tc.src})
			db, _ := g.Resource("db")
			if want := (map[string]graph.Value{"endpoint": "tcp://db"}); !graph.Equal(db.Spec["attributes"], graph.Value(want)) {
				t.Errorf("db's attributes = %v, want %v", graph.Render(db.Spec["attributes"]), want)
			}
			app, _ := g.Resource("app")
			want := map[string]graph.Value{"db": []graph.Value{
				map[string]graph.Value{"target": "db", "attributes": map[string]graph.Value{"mode": "tls", "token": "T0K-s3cret"}},
				map[string]graph.Value{"target": "db", "attributes": map[string]graph.Value{"mode": "plain"}},
			}}
			if !graph.Equal(app.Spec["relationships"], graph.Value(want)) {
				t.Errorf("app's relationships = %s, want %s", graph.Render(app.Spec["relationships"]), graph.Render(want))
			}
			for _, p := range []string{"relationships.db.0.attributes.secret", "relationships.db.1.attributes.secret", "relationships.db.0.attributes.token"} {
				if !slices.Contains(app.Sensitive, p) {
					t.Errorf("app's sensitive paths %v lack %s", app.Sensitive, p)
				}
			}
			if slices.Contains(app.Sensitive, "relationships.db.1.attributes.token") {
				t.Errorf("app's sensitive paths %v hold the second relationship's token, which nothing assigns", app.Sensitive)
			}
			// What reads the secret at apply time is secret too.
			reader, _ := g.Resource("reader")
			if !slices.Contains(reader.Sensitive, "properties.seen") {
				t.Errorf("reader's sensitive paths %v lack properties.seen, which reads the relationship's secret", reader.Sensitive)
			}
			if !slices.Contains(g.SensitiveOutputs, "link") {
				t.Errorf("sensitive outputs %v lack link, which reads the relationship's secret", g.SensitiveOutputs)
			}
		})
	}
}
