package tosca

import (
	"maps"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestRelationshipAttributes2 checks TOSCA 2.0's relationship attributes:
// an operation's outputs map onto the attribute their TOSCA path reaches
// from SELF (§9.9; an output definition's mapping, §9.3, overridden by
// the assignment's) — in a relationship's operation SELF is the
// relationship, SELF, SOURCE its source, SELF, TARGET its target; in a
// node's, SELF, RELATIONSHIP, req, idx a relationship of its requirement
// — and $get_attribute of a relationship's attribute is the attribute its
// source records (get_attribute(source, RELATIONSHIP, requirement,
// index, name)), reading it orders the reader after the source. Before,
// outputs were not mapped at all, and such a $get_attribute was left to
// an orchestrator apply cannot resolve.
func TestRelationshipAttributes2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"pre.sh": "", "create.sh": "",
		"main.yaml": `tosca_definitions_version: tosca_2_0
capability_types:
  Api: {}
interface_types:
  Configure:
    operations:
      pre_configure_source: {}
  Standard:
    operations:
      create: {}
relationship_types:
  Wire:
    attributes:
      link_id: { type: string }
    interfaces:
      Configure:
        type: Configure
        operations:
          pre_configure_source:
            implementation: pre.sh
            outputs:
              link: { type: string, mapping: [ SELF, link_id ] }
node_types:
  Server:
    attributes:
      client: { type: string }
    capabilities:
      api: { type: Api }
  Client:
    attributes:
      note: { type: string }
    requirements:
      - db: { capability: Api, node: Server, relationship: Wire }
    interfaces:
      Standard:
        type: Standard
        operations:
          create:
            implementation: create.sh
            outputs:
              rl: { type: string, mapping: [ SELF, RELATIONSHIP, db, 1, link_id ] }
              own: { type: string, mapping: [ SELF, note ] }
  Reader:
    interfaces:
      Standard:
        type: Standard
service_template:
  node_templates:
    db: { type: Server }
    db2: { type: Server }
    a:
      type: Client
      requirements:
        - db: db
        - db:
            node: db2
            relationship:
              type: Wire
              interfaces:
                Configure:
                  operations:
                    pre_configure_source:
                      outputs:
                        peer: [ SELF, TARGET, client ]
                        note: [ SELF, SOURCE, note ]
    reader:
      type: Reader
      interfaces:
        Standard:
          operations:
            create:
              implementation: create.sh
              inputs:
                link: { $get_attribute: [ a, RELATIONSHIP, db, 1, link_id ] }
  outputs:
    link:
      type: string
      value: { $get_attribute: [ a, RELATIONSHIP, db, link_id ] }
`})
	a, ok := g.Resource("a")
	if !ok {
		t.Fatal("no resource a")
	}
	// Each assignment's operation is its own, its outputs its own
	// relationship's.
	if got, want := a.Driver.Operations["Configure.pre_configure_source@db[0]"].Outputs, map[string]string{
		"link": graph.OutputAttribute{Requirement: "db", Index: 0, Target: "db", Name: "link_id"}.String(),
	}; !maps.Equal(got, want) {
		t.Errorf("a's first relationship's outputs = %v, want %v", got, want)
	}
	if got, want := a.Driver.Operations["Configure.pre_configure_source@db[1]"].Outputs, map[string]string{
		"link": graph.OutputAttribute{Requirement: "db", Index: 1, Target: "db2", Name: "link_id"}.String(),
		"peer": graph.OutputAttribute{Target: "db2", Name: "client"}.String(),
		"note": "note",
	}; !maps.Equal(got, want) {
		t.Errorf("a's relationship outputs = %v, want %v", got, want)
	}
	if got, want := a.Driver.Operations["Standard.create"].Outputs, map[string]string{
		"rl":  graph.OutputAttribute{Requirement: "db", Index: 1, Target: "db2", Name: "link_id"}.String(),
		"own": "note",
	}; !maps.Equal(got, want) {
		t.Errorf("a's create outputs = %v, want %v", got, want)
	}
	ref := func(idx int64) graph.Value {
		return graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", idx, "link_id"}}
	}
	r, _ := g.Resource("reader")
	if got := r.Driver.Operations["Standard.create"].Inputs["link"]; !graph.Equal(got, ref(1)) {
		t.Errorf("reader's input = %s, want %s", graph.Render(got), graph.Render(ref(1)))
	}
	if got := g.Outputs["link"]; !graph.Equal(got, ref(0)) {
		t.Errorf("output link = %s, want %s", graph.Render(got), graph.Render(ref(0)))
	}
	if !slices.ContainsFunc(g.Edges(), func(e graph.Edge) bool { return e.Source == "reader" && e.Target == "a" }) {
		t.Errorf("no edge reader -> a: %v", g.Edges())
	}
}

// TestRelationshipOperationsPerCount2 checks that a requirement
// assignment with a count (§14.1) runs its relationship's operations once
// per relationship, each evaluated for it: $relationship_index its index,
// SELF, TARGET the representation its node selects, its outputs set on
// its own relationship. Before, the assignment had one operation, whose
// $relationship_index was an error ("xosplan runs them once for the
// requirement") and whose outputs went to the first relationship only.
func TestRelationshipOperationsPerCount2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"pre.sh": "",
		"main.yaml": `tosca_definitions_version: tosca_2_0
capability_types:
  Api: {}
interface_types:
  Configure:
    operations:
      pre_configure_source: {}
relationship_types:
  Wire:
    attributes:
      link_id: { type: string }
    interfaces:
      Configure:
        type: Configure
        operations:
          pre_configure_source:
            implementation: pre.sh
            inputs:
              slot: { type: integer, value: $relationship_index }
              peer: { type: string, value: { $get_property: [ SELF, TARGET, name ] } }
            outputs:
              link: { type: string, mapping: [ SELF, link_id ] }
              seen: { type: string, mapping: [ SELF, TARGET, seen ] }
node_types:
  Server:
    properties:
      name: { type: string }
    attributes:
      seen: { type: string }
    capabilities:
      api: { type: Api }
  Client:
    requirements:
      - uses: { capability: Api, node: Server, relationship: Wire, count_range: [ 0, UNBOUNDED ] }
service_template:
  node_templates:
    pool: { type: Server, count: 2, properties: { name: { $concat: [ pool, $node_index ] } } }
    single: { type: Server, properties: { name: single } }
    fan:
      type: Client
      requirements:
        - uses: single
        - uses: { node: [ pool, $relationship_index ], count: 2 }
`})
	fan, ok := g.Resource("fan")
	if !ok {
		t.Fatal("no resource fan")
	}
	want := map[string]struct {
		slot   int64
		peer   string
		index  int
		target string
	}{
		"Configure.pre_configure_source@uses[0]": {0, "single", 0, "single"},
		"Configure.pre_configure_source@uses[1]": {0, "pool0", 1, "pool[0]"},
		"Configure.pre_configure_source@uses[2]": {1, "pool1", 2, "pool[1]"},
	}
	if got := slices.Sorted(maps.Keys(fan.Driver.Operations)); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Fatalf("fan's operations = %q", got)
	}
	for key, w := range want {
		op := fan.Driver.Operations[key]
		if !graph.Equal(op.Inputs["slot"], w.slot) || !graph.Equal(op.Inputs["peer"], w.peer) {
			t.Errorf("%s inputs = %s, want slot %d, peer %s", key, graph.Render(op.Inputs), w.slot, w.peer)
		}
		if got, want := op.Outputs, map[string]string{
			"link": graph.OutputAttribute{Requirement: "uses", Index: w.index, Target: w.target, Name: "link_id"}.String(),
			"seen": graph.OutputAttribute{Target: w.target, Name: "seen"}.String(),
		}; !maps.Equal(got, want) {
			t.Errorf("%s outputs = %v, want %v", key, got, want)
		}
	}
}
