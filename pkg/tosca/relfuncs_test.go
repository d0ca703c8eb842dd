package tosca

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// relFuncsTemplate has relationship operations that read the relationship
// they belong to (SELF, TOSCA 1.3 §4.1) and its ends (SOURCE, TARGET):
// operations its type defines (a, b, c), that a requirement's relationship
// assigns (b, in the 1.3 grammar with "operations"), and that the
// relationship template a requirement uses assigns (c); and outputs that
// name the relationship template (§4.4.1, §4.5.1). The template's values
// are evaluated where a requirement uses it: its SOURCE is that node. A
// relationship's property may read another through SELF (url).
const relFuncsTemplate = `tosca_definitions_version: tosca_simple_yaml_1_3
relationship_types:
  my.Base:
    derived_from: tosca.relationships.DependsOn
    properties:
      inherited: { type: string, default: from-base }
  my.Wire:
    derived_from: my.Base
    properties:
      port: { type: integer, default: 5432 }
      opts: { type: map, entry_schema: string, default: { mode: ro } }
      from: { type: string, required: false }
      url: { type: string, default: { concat: [ "db:", { get_property: [ SELF, port ] } ] } }
    attributes:
      link_id: { type: string }
    interfaces:
      Configure:
        operations:
          pre_configure_source:
            implementation: pre.sh
            inputs:
              port: { get_property: [ SELF, port ] }
              inherited: { get_property: [ SELF, inherited ] }
              mode: { get_property: [ SELF, opts, mode ] }
              source_name: { get_property: [ SOURCE, name ] }
              target_name: { get_property: [ TARGET, name ] }
              link: { get_attribute: [ SELF, link_id ] }
              port_attr: { get_attribute: [ SELF, port ] }
              url: { get_property: [ SELF, url ] }
node_types:
  my.Server:
    derived_from: tosca.nodes.Root
    properties:
      name: { type: string }
  my.Client:
    derived_from: tosca.nodes.Root
    properties:
      name: { type: string }
    requirements:
      - db: { capability: tosca.capabilities.Node, node: my.Server, relationship: my.Wire }
topology_template:
  relationship_templates:
    wire9:
      type: my.Wire
      properties: { port: 9, from: { get_property: [ SOURCE, name ] } }
      interfaces:
        Configure:
          operations:
            post_configure_source:
              implementation: post.sh
              inputs:
                port: { get_property: [ SELF, port ] }
                inherited: { get_property: [ SELF, inherited ] }
                from: { get_property: [ SELF, from ] }
  node_templates:
    db: { type: my.Server, properties: { name: db } }
    a:
      type: my.Client
      properties: { name: a }
      requirements:
        - db: db
    b:
      type: my.Client
      properties: { name: b }
      requirements:
        - db:
            node: db
            relationship:
              type: my.Wire
              properties: { port: 6000 }
              interfaces:
                Configure:
                  operations:
                    post_configure_target:
                      implementation: post.sh
                      inputs:
                        port: { get_property: [ SELF, port ] }
                        out: { get_operation_output: [ SELF, Configure, pre_configure_source, id ] }
    c:
      type: my.Client
      properties: { name: c }
      requirements:
        - db: { node: db, relationship: wire9 }
  outputs:
    tpl_port: { value: { get_property: [ wire9, port ] } }
    tpl_inherited: { value: { get_property: [ wire9, inherited ] } }
    tpl_attr: { value: { get_attribute: [ wire9, link_id ] } }
    req_port: { value: { get_property: [ c, db, 0, port ] } }
`

// TestRelationshipOperationsReadTheirRelationship checks that SELF in a
// relationship's operations is the relationship: its properties, with
// the values a requirement or relationship template assigns and its
// types' defaults, known at compile time; its declared attributes known
// at apply time. Before, SELF was the source node and compiling failed
// ("node template "a" has no property "port"").
func TestRelationshipOperationsReadTheirRelationship(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"f.yaml": relFuncsTemplate, "pre.sh": "", "post.sh": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags := Compile(context.Background(), filepath.Join(dir, "f.yaml"), Options{})
	requireNoErrors(t, diags)
	link := func(src string) graph.Value {
		return graph.Unknown{Func: "get_attribute", Args: []graph.Value{src, "RELATIONSHIP", "db", "link_id"}}
	}
	want := map[string]map[string]map[string]graph.Value{
		"a": {"Configure.pre_configure_source": {"port": int64(5432), "inherited": "from-base", "mode": "ro",
			"source_name": "a", "target_name": "db", "link": link("a"), "port_attr": int64(5432), "url": "db:5432"}},
		"b": {
			"Configure.pre_configure_source": {"port": int64(6000), "inherited": "from-base", "mode": "ro",
				"source_name": "b", "target_name": "db", "link": link("b"), "port_attr": int64(6000), "url": "db:6000"},
			"Configure.post_configure_target": {"port": int64(6000),
				// The relationship's own output first (its requirement
				// and index), else the source's (exec's).
				"out": graph.Unknown{Func: "operation_output", Args: []graph.Value{"b", "Configure", "pre_configure_source", "id", "db", int64(0)}}},
		},
		"c": {
			"Configure.pre_configure_source": {"port": int64(9), "inherited": "from-base", "mode": "ro",
				"source_name": "c", "target_name": "db", "link": link("c"), "port_attr": int64(9), "url": "db:9"},
			"Configure.post_configure_source": {"port": int64(9), "inherited": "from-base", "from": "c"},
		},
	}
	for addr, ops := range want {
		r, ok := g.Resource(addr)
		if !ok {
			t.Fatalf("no resource %q", addr)
		}
		for op, inputs := range ops {
			got := r.Driver.Operations[op].Inputs
			if !graph.Equal(graph.Value(got), graph.Value(inputs)) {
				t.Errorf("%s %s inputs = %s, want %s", addr, op, graph.Render(got), graph.Render(inputs))
			}
		}
	}
	for name, w := range map[string]graph.Value{
		"tpl_port": int64(9), "tpl_inherited": "from-base", "req_port": int64(9),
		"tpl_attr": link("c"),
	} {
		if got := g.Outputs[name]; !graph.Equal(got, w) {
			t.Errorf("output %s = %s, want %s", name, graph.Render(got), graph.Render(w))
		}
	}
}

// TestOperationInputDefinitionValues2 checks that the inputs a TOSCA 2.0
// type's operation and interface definitions give a value (§11.5: the
// value of an outgoing parameter, else its default) are passed, the
// template's assignment winning; in a relationship type's operations SELF
// is the relationship. Before, only the template's assignments were
// rendered: the relationship's operation got no inputs at all.
func TestOperationInputDefinitionValues2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"pre.sh": "", "post.sh": "", "create.sh": "",
		"main.yaml": `tosca_definitions_version: tosca_2_0
capability_types:
  Api: {}
interface_types:
  Configure:
    operations:
      pre_configure_source: {}
      post_configure_source: {}
  Standard:
    operations:
      create: {}
relationship_types:
  Wire:
    properties:
      port: { type: integer, default: 5432 }
    interfaces:
      Configure:
        type: Configure
        inputs:
          mode: { type: string, default: rw }
        operations:
          pre_configure_source:
            implementation: pre.sh
            inputs:
              port: { type: integer, value: { $get_property: [ SELF, port ] } }
              src: { type: string, value: { $get_property: [ SELF, SOURCE, name ] } }
node_types:
  Server:
    properties:
      name: { type: string }
    capabilities:
      api: { type: Api }
    interfaces:
      Standard:
        type: Standard
        operations:
          create:
            implementation: create.sh
            inputs:
              name: { type: string, value: { $get_property: [ SELF, name ] } }
              size: { type: integer, default: 1 }
  Client:
    properties:
      name: { type: string }
    requirements:
      - db: { capability: Api, node: Server, relationship: Wire }
service_template:
  relationship_templates:
    w9: { type: Wire, properties: { port: 9 } }
  node_templates:
    db:
      type: Server
      properties: { name: db }
      interfaces: { Standard: { operations: { create: { inputs: { size: 3 } } } } }
    a: { type: Client, properties: { name: a }, requirements: [ { db: db } ] }
    c: { type: Client, properties: { name: c }, requirements: [ { db: { node: db, relationship: w9 } } ] }
`})
	for _, w := range []struct {
		addr, op string
		inputs   map[string]graph.Value
	}{
		{"a", "Configure.pre_configure_source", map[string]graph.Value{"port": int64(5432), "src": "a", "mode": "rw"}},
		{"c", "Configure.pre_configure_source", map[string]graph.Value{"port": int64(9), "src": "c", "mode": "rw"}},
		{"db", "Standard.create", map[string]graph.Value{"name": "db", "size": int64(3)}},
	} {
		r, ok := g.Resource(w.addr)
		if !ok {
			t.Fatalf("no resource %q", w.addr)
		}
		if got := r.Driver.Operations[w.op].Inputs; !graph.Equal(graph.Value(got), graph.Value(w.inputs)) {
			t.Errorf("%s %s inputs = %s, want %s", w.addr, w.op, graph.Render(got), graph.Render(w.inputs))
		}
	}
}

// relOutputsTemplate has relationship operations whose outputs name the
// relationship (SELF), its target and its source, and outputs and a node
// template that read a relationship template's attribute by its name.
const relOutputsTemplate = `tosca_definitions_version: tosca_simple_yaml_1_3
relationship_types:
  my.Wire:
    derived_from: tosca.relationships.DependsOn
    attributes:
      link_id: { type: string }
    interfaces:
      Configure:
        operations:
          pre_configure_source:
            implementation: pre.sh
            outputs:
              typed: [ SELF, link_id ]
node_types:
  my.Server:
    derived_from: tosca.nodes.Root
    attributes:
      client: { type: string }
    interfaces:
      Standard:
        create:
          implementation: pre.sh
          outputs:
            who: [ SELF, client ]
  my.Client:
    derived_from: tosca.nodes.Root
    requirements:
      - db: { capability: tosca.capabilities.Node, node: my.Server, relationship: my.Wire }
topology_template:
  relationship_templates:
    shared:
      type: my.Wire
      interfaces:
        Configure:
          pre_configure_source:
            outputs:
              link: [ SELF, link_id ]
              peer: [ TARGET, client ]
              note: [ SOURCE, note ]
              odd: [ SELF, undeclared ]
    unused: { type: my.Wire }
  node_templates:
    db: { type: my.Server }
    db2: { type: my.Server }
    a:
      type: my.Client
      requirements:
        - db: { node: db, relationship: shared }
        - db: { node: db2, relationship: shared }
    b:
      type: my.Client
      requirements:
        - db: { node: db, relationship: shared }
    reader:
      type: tosca.nodes.Root
      interfaces:
        Standard:
          create:
            implementation: pre.sh
            inputs:
              links: { get_attribute: [ shared, link_id ] }
  outputs:
    links: { value: { get_attribute: [ shared, link_id ] } }
    none: { value: { get_attribute: [ unused, link_id ] } }
`

// TestRelationshipOperationOutputs checks where a relationship
// operation's outputs go (TOSCA 1.3 §3.6.17): [SELF, attr] to the
// relationship (the requirement and its index among the node's
// assignments of it), [TARGET, attr] to the requirement's target,
// [SOURCE, attr] to the node, as a node's own operation's outputs, those
// of the type's operation definition as those of the template's; and
// that get_attribute of a relationship template by name (§4.5.1) reads
// the relationship of each requirement that uses it, a list when there
// are several, after their sources (a reads edge). Before, every output
// set an attribute of the source node, and such a get_attribute named a
// resource that no apply records, and the outputs a type's operation
// definition maps were not mapped at all.
func TestRelationshipOperationOutputs(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"f.yaml": relOutputsTemplate, "pre.sh": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, diags := Compile(context.Background(), filepath.Join(dir, "f.yaml"), Options{})
	requireNoErrors(t, diags)
	var warned []string
	for _, d := range diags {
		warned = append(warned, d.Summary)
	}
	for _, w := range []string{
		`operation output: the relationship of requirement "db" of node template "a" (relationship template "shared") declares no attribute "undeclared"; only this output sets it`,
		`get_attribute: relationship template "unused" is used by no requirement, so its attribute "link_id" never has a value`,
	} {
		if !slices.Contains(warned, w) {
			t.Errorf("no warning %q in %q", w, warned)
		}
	}
	a, _ := g.Resource("a")
	// a's two assignments of db each have their operation, and its
	// outputs set their own relationship's attributes; b's one keeps the
	// plain key.
	if _, ok := a.Driver.Operations["Configure.pre_configure_source"]; ok {
		t.Errorf("a's two relationships share the key Configure.pre_configure_source: %v", slices.Sorted(maps.Keys(a.Driver.Operations)))
	}
	first := a.Driver.Operations["Configure.pre_configure_source@db[0]"].Outputs
	if w := (graph.OutputAttribute{Requirement: "db", Index: 0, Target: "db", Name: "link_id"}).String(); first["link"] != w || first["typed"] != w {
		t.Errorf("a's first relationship's outputs = %v, want link and typed %s", first, w)
	}
	if b, _ := g.Resource("b"); b.Driver.Operations["Configure.pre_configure_source"].Outputs["link"] == "" {
		t.Errorf("b's one relationship's operation is not Configure.pre_configure_source: %v", slices.Sorted(maps.Keys(b.Driver.Operations)))
	}
	got := a.Driver.Operations["Configure.pre_configure_source@db[1]"].Outputs
	want := map[string]string{
		"link":  graph.OutputAttribute{Requirement: "db", Index: 1, Target: "db2", Name: "link_id"}.String(),
		"peer":  graph.OutputAttribute{Target: "db2", Name: "client"}.String(),
		"note":  "note",
		"odd":   graph.OutputAttribute{Requirement: "db", Index: 1, Target: "db2", Name: "undeclared"}.String(),
		"typed": graph.OutputAttribute{Requirement: "db", Index: 1, Target: "db2", Name: "link_id"}.String(),
	}
	if !maps.Equal(got, want) {
		t.Errorf("a's outputs = %v, want %v", got, want)
	}
	// A type's operation definition maps its outputs too.
	db, _ := g.Resource("db")
	if got, want := db.Driver.Operations["Standard.create"].Outputs, map[string]string{"who": "client"}; !maps.Equal(got, want) {
		t.Errorf("db's outputs = %v, want %v", got, want)
	}
	if w := `{"requirement":"db","index":1,"target":"db2","attribute":"link_id"}`; want["link"] != w {
		t.Errorf("OutputAttribute = %s, want %s", want["link"], w)
	}
	ref := func(src string, idx ...graph.Value) graph.Value {
		args := append(append([]graph.Value{src, "RELATIONSHIP", "db"}, idx...), "link_id")
		return graph.Unknown{Func: "get_attribute", Args: args}
	}
	links := []graph.Value{ref("a", int64(0)), ref("a", int64(1)), ref("b")}
	if got := g.Outputs["links"]; !graph.Equal(got, links) {
		t.Errorf("output links = %s, want %s", graph.Render(got), graph.Render(links))
	}
	if got := g.Outputs["none"]; got != nil {
		t.Errorf("output none = %s, want null", graph.Render(got))
	}
	r, _ := g.Resource("reader")
	if got := r.Driver.Operations["Standard.create"].Inputs["links"]; !graph.Equal(got, links) {
		t.Errorf("reader's input = %s, want %s", graph.Render(got), graph.Render(links))
	}
	for _, src := range []string{"a", "b"} {
		if !slices.ContainsFunc(g.Edges(), func(e graph.Edge) bool {
			return e.Source == "reader" && e.Target == src && e.Kind == graph.Reads
		}) {
			t.Errorf("no reads edge reader -> %s", src)
		}
	}
}
