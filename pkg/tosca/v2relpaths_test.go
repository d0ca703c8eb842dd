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

// TestPathsThroughAll2 follows TOSCA paths that go on from ALL (§10.3:
// "we return the result for all possible indices (further resolved
// separately) as a list", several ALLs merged into one list): ALL the
// relationships of a requirement, ALL the representations of a template
// with count, ALL the incoming relationships of a capability.
func TestPathsThroughAll2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"main.yaml": "tosca_definitions_version: tosca_2_0\n" +
			"capability_types:\n  Endpoint:\n    properties:\n      port: { type: integer }\n" +
			"relationship_types:\n  ConnectsTo: {}\n" +
			"node_types:\n  Db:\n    properties:\n      name: { type: string }\n    capabilities:\n      endpoint: { type: Endpoint }\n" +
			"  App:\n    properties:\n      name: { type: string }\n" +
			"    requirements:\n      - db: { capability: Endpoint, relationship: ConnectsTo, count_range: [ 0, UNBOUNDED ] }\n" +
			"service_template:\n  node_templates:\n" +
			"    db1: { type: Db, properties: { name: one }, capabilities: { endpoint: { properties: { port: 1 } } } }\n" +
			"    db2: { type: Db, properties: { name: two }, capabilities: { endpoint: { properties: { port: 2 } } } }\n" +
			"    app:\n      type: App\n      count: 2\n      properties: { name: { $concat: [ app, { $node_index: [] } ] } }\n" +
			"      requirements: [ { db: db1 }, { db: db2 } ]\n" +
			"  outputs:\n" +
			"    names: { value: { $get_property: [ app, 0, RELATIONSHIP, db, ALL, TARGET, name ] } }\n" +
			"    ports: { value: { $get_property: [ app, 1, RELATIONSHIP, db, ALL, CAPABILITY, port ] } }\n" +
			"    merged: { value: { $get_property: [ app, ALL, RELATIONSHIP, db, ALL, TARGET, name ] } }\n" +
			"    seconds: { value: { $get_property: [ app, ALL, RELATIONSHIP, db, 1, TARGET, name ] } }\n" +
			"    sources: { value: { $get_property: [ db1, CAPABILITY, endpoint, RELATIONSHIP, ALL, SOURCE, name ] } }\n",
	})
	wantOutputs2(t, g, map[string]graph.Value{
		"names":   []graph.Value{"one", "two"},
		"ports":   []graph.Value{int64(1), int64(2)},
		"merged":  []graph.Value{"one", "two", "one", "two"},
		"seconds": []graph.Value{"two", "two"},
		"sources": []graph.Value{"app0", "app1"},
	})
}

// TestPathsFromRelationshipTemplates2 starts TOSCA paths at a
// relationship template (§10.3: <relationship_symbolic_name>,
// <rel_context>) that no one relationship stands for, used by no
// requirement or by several: its own property values are read.
func TestPathsFromRelationshipTemplates2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"main.yaml": "tosca_definitions_version: tosca_2_0\n" +
			"capability_types:\n  Endpoint: {}\n" +
			"relationship_types:\n  Conn:\n    properties:\n      port: { type: integer, default: 1 }\n" +
			"node_types:\n  Db:\n    capabilities:\n      endpoint: { type: Endpoint }\n" +
			"  App:\n    requirements:\n      - db: { capability: Endpoint, relationship: Conn, count_range: [ 0, UNBOUNDED ] }\n" +
			"service_template:\n  relationship_templates:\n" +
			"    unused: { type: Conn, properties: { port: 7 } }\n    shared: { type: Conn }\n" +
			"  node_templates:\n    db: { type: Db }\n" +
			"    app: { type: App, requirements: [ { db: { node: db, relationship: shared } }, { db: { node: db, relationship: shared } } ] }\n" +
			"  outputs:\n" +
			"    unused: { value: { $get_property: [ unused, port ] } }\n" +
			"    shared: { value: { $get_property: [ shared, port ] } }\n",
	})
	wantOutputs2(t, g, map[string]graph.Value{"unused": int64(7), "shared": int64(1)})
}
