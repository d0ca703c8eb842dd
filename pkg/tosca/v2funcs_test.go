package tosca

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// TestFunctions2Evaluate compiles each built-in call as an output of a
// 2.0 template and compares the value the graph records.
func TestFunctions2Evaluate(t *testing.T) {
	tests := []struct {
		expr string
		want graph.Value
	}{
		// The pure functions' semantics are internal/funceval's
		// (TestEval); these show that calls are folded at compile time,
		// nested ones too.
		{`{ $sum: [ 1, 2, 3 ] }`, int64(6)},
		{`{ $and: [ true, { $not: [ false ] } ] }`, true},
		{`{ $concat: [ a, { $length: [ [ 1, 2 ] ] } ] }`, "a2"},
		{`{ $get_input: n }`, int64(3)},
		{`$$literal`, "$literal"},
		{`{ $get_property: [ a, 1, port ] }`, int64(8081)},
		{`{ $get_property: [ b, RELATIONSHIP, peer, TARGET, port ] }`, int64(8080)},
		{`{ $get_attribute: [ a, 0, state ] }`, graph.Unknown{Func: "attribute", Args: []graph.Value{"a[0]", "state"}}},
		// An attribute (or property) whose type is not text is read as
		// its type at apply: operations report text.
		{`{ $get_attribute: [ a, 0, port ] }`, as("integer", state0("port"))},
		{`{ $get_attribute: [ a, 0, tags ] }`, as("list", state0("tags"))},
		{`{ $get_attribute: [ a, 0, tags, 0 ] }`, graph.Unknown{Func: "attribute", Args: []graph.Value{"a[0]", "tags", int64(0)}}},
		{`{ $get_attribute: [ a, 0, CAPABILITY, c, up ] }`, as("boolean", graph.Unknown{Func: "attribute", Args: []graph.Value{"a[0]", "c", "up"}})},
		{`{ $get_attribute: [ a, 0, CAPABILITY, c, at ] }`, graph.Unknown{Func: "attribute", Args: []graph.Value{"a[0]", "c", "at"}}},
		// An argument known only at apply time leaves the call to apply,
		// even inside a list (a $join gave "x-attribute(a[0], state)").
		{`{ $sum: [ 1, { $get_attribute: [ a, 0, port ] } ] }`, graph.Unknown{Func: "tosca2", Args: []graph.Value{"sum", int64(1), as("integer", state0("port"))}}},
		{`{ $join: [ [ x, { $get_attribute: [ a, 0, state ] } ], "-" ] }`, graph.Unknown{Func: "tosca2", Args: []graph.Value{"join", []graph.Value{"x", state0("state")}, "-"}}},
		{`{ $has_suffix: [ { $get_attribute: [ a, 0, state ] }, up ] }`, graph.Unknown{Func: "tosca2", Args: []graph.Value{"has_suffix", state0("state"), "up"}}},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		src := "tosca_definitions_version: tosca_2_0\n" +
			"node_types:\n  N:\n    properties: { port: { type: integer } }\n    attributes: { state: { type: string }, tags: { type: list, entry_schema: string } }\n" +
			"    capabilities: { c: { type: C } }\n    requirements: [ { peer: { capability: C, relationship: R, count_range: [ 0, 1 ] } } ]\n" +
			"capability_types:\n  C: { attributes: { up: { type: boolean }, at: { type: timestamp } } }\nrelationship_types:\n  R: {}\n" +
			"service_template:\n  inputs:\n    n: { type: integer, default: 3 }\n  node_templates:\n" +
			"    a: { type: N, count: 2, properties: { port: { $sum: [ 8080, $node_index ] } } }\n" +
			"    b: { type: N, properties: { port: 1 }, requirements: [ { peer: a } ] }\n" +
			"  outputs:\n    o: { value: " + tt.expr + " }\n"
		path := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		g, diags := Compile(context.Background(), path, Options{})
		if diags.HasErrors() || g == nil {
			t.Errorf("%s: %v", tt.expr, diags.Err())
			continue
		}
		if got := g.Outputs["o"]; !graph.Equal(got, tt.want) {
			t.Errorf("%s = %#v, want %#v", tt.expr, got, tt.want)
		}
	}
}

// TestValidationOrdersByMeasure2: in a validation clause, strings of the
// scalar, version or timestamp type of $value compare by what they
// measure (internal/tosca2's eval.Order), not as text: 2 GB > 900 MB, 1.10 > 1.9, and
// 10:00 UTC+2 is before 09:00 UTC.
func TestValidationOrdersByMeasure2(t *testing.T) {
	src := "tosca_definitions_version: tosca_2_0\n" +
		"imports: [ { profile: org.oasis-open.simple:2.0 } ]\n" +
		"node_types:\n  N:\n    properties:\n" +
		"      size: { type: Size, validation: { $greater_than: [ $value, 900 MB ] } }\n" +
		"      release: { type: version, validation: { $greater_than: [ $value, \"1.9\" ] } }\n" +
		"      at: { type: timestamp, validation: { $less_than: [ $value, 2024-01-01T09:00:00Z ] } }\n" +
		"service_template:\n  node_templates:\n" +
		"    ok: { type: N, properties: { size: 2 GB, release: \"1.10\", at: 2024-01-01T10:00:00+02:00 } }\n" +
		"    bad: { type: N, properties: { size: 800 MB, release: \"1.8\", at: 2024-01-01T09:00:01Z } }\n"
	path := filepath.Join(t.TempDir(), "measure.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := Compile(context.Background(), path, Options{})
	var lines []int
	for _, d := range diags {
		lines = append(lines, d.Range.Start.Line)
	}
	// Line 12 is bad's: its three values fail; ok's (line 11) pass.
	if want := []int{12, 12, 12}; !slices.Equal(lines, want) {
		t.Errorf("diagnostics on lines %v, want %v: %v", lines, want, diags.Err())
	}
}

// state0 is the value of $get_attribute of attribute name of a[0].
func state0(name string) graph.Unknown {
	return graph.Unknown{Func: "attribute", Args: []graph.Value{"a[0]", name}}
}

// as is the value of an attribute read as kind (internal/tosca2's attrKind).
func as(kind string, v graph.Unknown) graph.Unknown {
	return graph.Unknown{Func: "as", Args: []graph.Value{kind, v}}
}

// TestPathsIntoRepresentationsAreEvaluatedOnce: templates with count whose
// properties read two representations of the next one are evaluated once
// per representation, not once per path that reaches it (2^60 here).
func TestPathsIntoRepresentationsAreEvaluatedOnce(t *testing.T) {
	src := "tosca_definitions_version: tosca_2_0\n" +
		"node_types:\n  N:\n    properties: { a: { type: integer }, b: { type: integer } }\n" +
		"service_template:\n  node_templates:\n"
	const n = 60
	for i := range n {
		if i == n-1 {
			src += "    t" + core.Itoa(int64(i)) + ": { type: N, count: 2, properties: { a: 1, b: 2 } }\n"
			continue
		}
		next := "t" + core.Itoa(int64(i+1))
		src += "    t" + core.Itoa(int64(i)) + ": { type: N, count: 2, properties: { " +
			"a: { $sum: [ { $get_property: [ " + next + ", 0, a ] }, { $get_property: [ " + next + ", 1, b ] } ] }, " +
			"b: { $sum: [ { $get_property: [ " + next + ", 1, a ] }, { $get_property: [ " + next + ", 0, b ] } ] } } }\n"
	}
	path := filepath.Join(t.TempDir(), "chain.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	r, _ := g.Resource("t0[0]")
	if got := r.Spec["properties"].(map[string]graph.Value)["a"]; !graph.Equal(got, int64(3)<<(n-2)) {
		t.Errorf("t0[0].a = %#v, want 3 << %d", got, n-2)
	}
}

// TestAttributeReadsOrderTheReader: a 2.0 node template whose operation
// reads another's attribute, with no requirement between them, is applied
// after it (a graph.Reads edge), so that the value is there to read.
func TestAttributeReadsOrderTheReader(t *testing.T) {
	src := "tosca_definitions_version: tosca_2_0\n" +
		"interface_types:\n  Standard: { operations: { create: {} } }\n" +
		"node_types:\n  N:\n    attributes: { addr: { type: string } }\n    interfaces: { Standard: { type: Standard } }\n" +
		"service_template:\n  node_templates:\n    a: { type: N }\n" +
		"    b:\n      type: N\n      interfaces: { Standard: { operations: { create: { implementation: run.sh, inputs: { x: { $get_attribute: [ a, addr ] } } } } } }\n"
	path := filepath.Join(t.TempDir(), "reads.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	edges := g.Edges()
	if len(edges) != 1 || edges[0].Source != "b" || edges[0].Target != "a" || edges[0].Kind != graph.Reads {
		t.Errorf("edges = %+v, want b reads a", edges)
	}
}

// TestRelationshipConfigureOperations2: the Configure operations of a
// requirement's relationship (type, assignment or relationship template)
// are exec operations of the source, as in 1.x.
func TestRelationshipConfigureOperations2(t *testing.T) {
	src := "tosca_definitions_version: tosca_2_0\n" +
		"imports: [ { profile: org.oasis-open.simple:2.0 } ]\n" +
		"relationship_types:\n  Wires:\n    derived_from: ConnectsTo\n" +
		"    interfaces: { Configure: { operations: { add_target: add.sh } } }\n" +
		"node_types:\n  App:\n    derived_from: SoftwareComponent\n" +
		"    requirements: [ { db: { capability: Endpoint.Database, relationship: Wires } } ]\n" +
		"service_template:\n  relationship_templates:\n    wire: { type: Wires, interfaces: { Configure: { operations: { remove_target: rm.sh } } } }\n" +
		"  node_templates:\n    host: { type: Compute }\n" +
		"    dbms: { type: DBMS, requirements: [ { host: host } ] }\n" +
		"    db: { type: Database, properties: { name: d }, requirements: [ { host: dbms } ] }\n" +
		"    a: { type: App, requirements: [ { host: host }, { db: { node: db, relationship: { interfaces: { Configure: { operations: { pre_configure_source: pre.sh } } } } } } ] }\n" +
		"    b: { type: App, requirements: [ { host: host }, { db: { node: db, relationship: wire } } ] }\n"
	path := filepath.Join(t.TempDir(), "rel.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	g, diags := Compile(context.Background(), path, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	for addr, want := range map[string][]string{
		"a": {"Configure.add_target", "Configure.pre_configure_source"},
		"b": {"Configure.add_target", "Configure.remove_target"},
	} {
		r, _ := g.Resource(addr)
		for _, op := range want {
			if _, ok := r.Driver.Operations[op]; !ok || r.Driver.Name != graph.DriverExec {
				t.Errorf("%s: no %s in %+v", addr, op, r.Driver)
			}
		}
	}
}

// TestCustomFunctionCalls: a custom function call compiles to
// function(name, declaration, [arguments]) with the chosen signature's
// implementation relative to the top-level template's folder (taken from
// the folder of the file that declares it, or refines it in the service
// template), its timeout and the kind of its result.
func TestCustomFunctionCalls(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"lib/funcs.yaml": "tosca_definitions_version: tosca_2_0\nfunctions:\n" +
			"  pick:\n    signatures:\n" +
			"      - arguments: [ integer ]\n        result: { type: list, entry_schema: string }\n        implementation: scripts/pick.sh\n" +
			"      - arguments: [ string ]\n        result: string\n        implementation: { primary: { file: scripts/pick-text.sh }, timeout: 5 }\n" +
			"  bare:\n    signatures:\n      - variadic: true\n",
		"main.yaml": "tosca_definitions_version: tosca_2_0\nimports:\n  - url: lib/funcs.yaml\n    namespace: lib\n" +
			"node_types:\n  N: {}\nservice_template:\n  functions:\n    own:\n      signatures:\n        - implementation: own.sh\n" +
			"  node_templates:\n    n: { type: N }\n" +
			"  outputs:\n" +
			"    by_int: { value: { $lib:pick: [ 1 ] } }\n" +
			"    by_text: { value: { $lib:pick: [ x ] } }\n" +
			"    bare: { value: { $lib:bare: [ 1, { $own: [] } ] } }\n",
	})
	fn := func(name string, decl map[string]graph.Value, args ...graph.Value) graph.Unknown {
		if args == nil {
			args = []graph.Value{}
		}
		return graph.Unknown{Func: "function", Args: []graph.Value{name, decl, args}}
	}
	want := map[string]graph.Value{
		"by_int":  fn("lib:pick", map[string]graph.Value{"implementation": "lib/scripts/pick.sh", "result": "list"}, int64(1)),
		"by_text": fn("lib:pick", map[string]graph.Value{"implementation": "lib/scripts/pick-text.sh", "timeout": int64(5), "result": "string"}, "x"),
		"bare":    fn("lib:bare", map[string]graph.Value{}, int64(1), fn("own", map[string]graph.Value{"implementation": "own.sh"})),
	}
	wantOutputs2(t, g, want)
}

// TestGraphQueryFunctions2 evaluates $get_artifact, $available_allocation
// and $relationship_index where the template tells their values: the
// artifact's file relative to the top-level template's folder, the
// capacity less the template's allocations, and the target
// representations a requirement with count selects by relationship (or
// source) index.
func TestGraphQueryFunctions2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"types/server.yaml": "tosca_definitions_version: tosca_2_0\n" +
			"artifact_types:\n  Img: {}\ncapability_types:\n  Host:\n    properties:\n      num-cpus: { type: integer }\n" +
			"relationship_types:\n  Uses: {}\n" +
			"node_types:\n  Server:\n    properties:\n      zip: { type: string, required: false }\n      free: { type: integer, required: false }\n" +
			"    capabilities:\n      host: { type: Host }\n    artifacts:\n      image: { type: Img, file: images/server.img }\n" +
			"  Client:\n    requirements:\n      - uses: { capability: Host, relationship: Uses, count_range: [ 0, UNBOUNDED ] }\n",
		"main.yaml": "tosca_definitions_version: tosca_2_0\nimports:\n  - url: types/server.yaml\n" +
			"service_template:\n  node_templates:\n" +
			"    pool: { type: Server, count: 3, capabilities: { host: { properties: { num-cpus: 8 } } } }\n" +
			"    single:\n      type: Server\n      properties:\n" +
			"        zip: { $get_artifact: [ SELF, image ] }\n" +
			"        free: { $available_allocation: [ SELF, CAPABILITY, host, num-cpus ] }\n" +
			"      capabilities: { host: { properties: { num-cpus: 8 } } }\n" +
			"      artifacts: { bundle: { type: Img, file: bundle.zip } }\n" +
			"    fan: { type: Client, requirements: [ { uses: { node: [ pool, $relationship_index ], count: 2 } } ] }\n" +
			"    pairs: { type: Client, count: 3, requirements: [ { uses: [ pool, $node_index ] } ] }\n" +
			"    user: { type: Client, count: 2, requirements: [ { uses: { node: single, allocation: { num-cpus: 3 } } } ] }\n" +
			"  outputs:\n" +
			"    bundle: { value: { $get_artifact: [ single, bundle ] } }\n" +
			"    images: { value: { $get_artifact: [ pool, ALL, image ] } }\n" +
			"    left: { value: { $available_allocation: [ single, CAPABILITY, host, num-cpus ] } }\n" +
			"    later: { value: { $available_allocation: [ pool, 1, CAPABILITY, host, num-cpus ] } }\n",
	})
	want := map[string]graph.Value{
		"bundle": "bundle.zip",
		"images": []graph.Value{"types/images/server.img", "types/images/server.img", "types/images/server.img"},
		"left":   int64(2),
		"later":  graph.Unknown{Func: "available_allocation", Args: []graph.Value{"pool[1]", "host", "num-cpus"}},
	}
	wantOutputs2(t, g, want)
	single, _ := g.Resource("single")
	props := single.Spec["properties"].(map[string]graph.Value)
	if props["zip"] != "types/images/server.img" || props["free"] != int64(2) {
		t.Errorf("single's properties %s", graph.Render(props))
	}
	edges := map[string][]string{}
	for _, e := range g.Edges() {
		if e.Name == "uses" {
			edges[e.Source] = append(edges[e.Source], e.Target)
		}
	}
	for src, w := range map[string][]string{
		"fan":      {"pool[0]", "pool[1]"},
		"pairs[0]": {"pool[0]"},
		"pairs[2]": {"pool[2]"},
		"user[1]":  {"single"},
	} {
		got := slices.Sorted(slices.Values(edges[src]))
		if !slices.Equal(got, w) {
			t.Errorf("%s uses %v, want %v", src, got, w)
		}
	}
}

// compileFiles2 writes files (by slash path) into a temporary folder,
// which is the configuration root, and compiles its main.yaml, which
// must be free of errors.
func compileFiles2(t *testing.T, files map[string]string) *graph.Graph {
	t.Helper()
	dir := testutil.Tree(t, files)
	g, diags := Compile(context.Background(), filepath.Join(dir, "main.yaml"), Options{Root: []string{dir}})
	if diags.HasErrors() || g == nil {
		t.Fatal(diags.Err())
	}
	return g
}

// TestPathsThroughRelationships2 follows TOSCA paths (§10.3) through the
// relationships requirement matching makes: outgoing ones by requirement
// and index (to their target capability, or ending at the relationship's
// properties), incoming ones by capability and index (in the order of
// their sources, each representation's own), from a relationship
// template one requirement uses, and from SELF in a relationship context.
func TestPathsThroughRelationships2(t *testing.T) {
	g := compileFiles2(t, map[string]string{
		"main.yaml": "tosca_definitions_version: tosca_2_0\n" +
			"capability_types:\n  Endpoint:\n    properties:\n      port: { type: integer }\n" +
			"relationship_types:\n  Uses:\n    properties:\n" +
			"      weight: { type: integer, default: 1 }\n" +
			"      from: { type: string, default: { $get_property: [ SELF, SOURCE, name ] } }\n" +
			"    interfaces:\n      Configure: { type: Configure }\n" +
			"interface_types:\n  Configure:\n    operations:\n      pre_configure_source: {}\n" +
			"node_types:\n  Server:\n    properties:\n      name: { type: string }\n    capabilities:\n      api: { type: Endpoint }\n" +
			"  Client:\n    properties:\n      name: { type: string }\n" +
			"    requirements:\n      - uses: { capability: Endpoint, relationship: Uses, count_range: [ 0, UNBOUNDED ] }\n" +
			"service_template:\n" +
			"  relationship_templates:\n    heavy: { type: Uses, properties: { weight: 9 } }\n" +
			"  node_templates:\n" +
			"    db: { type: Server, properties: { name: db }, capabilities: { api: { properties: { port: 5432 } } } }\n" +
			"    pool: { type: Server, count: 2, properties: { name: { $concat: [ pool, $node_index ] } }, capabilities: { api: { properties: { port: 80 } } } }\n" +
			"    a:\n      type: Client\n      properties: { name: a }\n      requirements:\n" +
			"        - uses: { node: db, relationship: { properties: { weight: 3 } } }\n" +
			"        - uses: { node: db, relationship: heavy }\n" +
			"    b:\n      type: Client\n      properties: { name: b }\n      requirements:\n" +
			"        - uses:\n            node: db\n            relationship:\n              interfaces:\n                Configure:\n                  operations:\n" +
			"                    pre_configure_source:\n                      implementation: pre.sh\n" +
			"                      inputs: { port: { $get_property: [ SELF, TARGET, CAPABILITY, api, port ] }, weight: { $get_property: [ SELF, weight ] } }\n" +
			"    fan: { type: Client, properties: { name: fan }, requirements: [ { uses: { node: [ pool, $relationship_index ], count: 2 } } ] }\n" +
			"  outputs:\n" +
			"    first_in: { value: { $get_property: [ db, CAPABILITY, api, RELATIONSHIP, SOURCE, name ] } }\n" +
			"    third_in: { value: { $get_property: [ db, CAPABILITY, api, RELATIONSHIP, 2, SOURCE, name ] } }\n" +
			"    in_pool1: { value: { $get_property: [ pool, 1, CAPABILITY, api, RELATIONSHIP, 0, SOURCE, name ] } }\n" +
			"    out_weight: { value: { $get_property: [ a, RELATIONSHIP, uses, weight ] } }\n" +
			"    out_weight2: { value: { $get_property: [ a, RELATIONSHIP, uses, 1, weight ] } }\n" +
			"    out_from: { value: { $get_property: [ a, RELATIONSHIP, uses, from ] } }\n" +
			"    target_cap: { value: { $get_property: [ a, RELATIONSHIP, uses, 0, CAPABILITY, port ] } }\n" +
			"    fan_second: { value: { $get_property: [ fan, RELATIONSHIP, uses, 1, TARGET, name ] } }\n" +
			"    template: { value: { $get_property: [ heavy, SOURCE, name ] } }\n" +
			"    back: { value: { $get_property: [ a, RELATIONSHIP, uses, CAPABILITY, RELATIONSHIP, 2, SOURCE, name ] } }\n" +
			"    rel_attr: { value: { $get_attribute: [ a, RELATIONSHIP, uses, weight ] } }\n",
	})
	want := map[string]graph.Value{
		"first_in":    "a",
		"third_in":    "b",
		"in_pool1":    "fan",
		"out_weight":  int64(3),
		"out_weight2": int64(9),
		"out_from":    "a",
		"target_cap":  int64(5432),
		"fan_second":  "pool1",
		"template":    "a",
		"back":        "b",
		"rel_attr":    int64(3),
	}
	wantOutputs2(t, g, want)
	b, _ := g.Resource("b")
	in := b.Driver.Operations["Configure.pre_configure_source"].Inputs
	if !graph.Equal(in["port"], int64(5432)) || !graph.Equal(in["weight"], int64(1)) {
		t.Errorf("b's Configure inputs %s, want SELF to be the relationship: port 5432, weight 1", graph.Render(in))
	}
}

// wantOutputs2 compares outputs of g with want.
func wantOutputs2(t *testing.T, g *graph.Graph, want map[string]graph.Value) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if got := g.Outputs[name]; !graph.Equal(got, want[name]) {
			t.Errorf("output %s = %s, want %s", name, graph.Render(got), graph.Render(want[name]))
		}
	}
}
