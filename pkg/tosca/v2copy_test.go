package tosca

import (
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestRelationshipTemplateCopy2 reads a relationship template that copies
// another (§7.4): the type and the values it does not give are the
// source's, those it gives refine them, and paths through the
// relationship read the merged values.
func TestRelationshipTemplateCopy2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"main.yaml": "tosca_definitions_version: tosca_2_0\n" +
			"capability_types:\n  Endpoint: {}\n" +
			"relationship_types:\n  ConnectsTo:\n    properties:\n" +
			"      port: { type: integer }\n      proto: { type: string, default: tcp }\n" +
			"node_types:\n  Db:\n    capabilities:\n      endpoint: { type: Endpoint }\n" +
			"  App:\n    properties:\n      port: { type: integer }\n      proto: { type: string }\n" +
			"    requirements:\n      - db: { capability: Endpoint, relationship: ConnectsTo }\n" +
			"service_template:\n  relationship_templates:\n" +
			"    base: { type: ConnectsTo, properties: { port: 5432 } }\n" +
			"    udp: { copy: base, properties: { proto: udp } }\n" +
			"  node_templates:\n    db: { type: Db }\n" +
			"    app:\n      type: App\n      requirements: [ { db: { node: db, relationship: udp } } ]\n" +
			"      properties:\n" +
			"        port: { $get_property: [ SELF, RELATIONSHIP, db, port ] }\n" +
			"        proto: { $get_property: [ SELF, RELATIONSHIP, db, proto ] }\n",
	})
	app, ok := g.Resource("app")
	if !ok {
		t.Fatal("no resource app")
	}
	props := app.Spec["properties"].(map[string]graph.Value)
	if props["port"] != int64(5432) || props["proto"] != "udp" {
		t.Errorf("app's properties %s, want port 5432 (copied) and proto udp (refined)", graph.Render(props))
	}
}
