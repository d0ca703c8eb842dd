package tosca

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/symbols"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
	"github.com/xosplan/xosplan/pkg/tosca/internal/tosca2"
)

// TestCompileIndexed2NamesWhatTheCompilerResolved checks the index of a
// TOSCA 2.0 template (testdata/index2: a local type file, a profile on
// the search path imported with a namespace, the embedded simple
// profile, a custom function): where each name is defined, what each
// use names, and what function calls resolve to.
func TestCompileIndexed2NamesWhatTheCompilerResolved(t *testing.T) {
	const svc, types = "testdata/index2/service.yaml", "testdata/index2/types.yaml"
	shop, err := filepath.Abs("testdata/index2/profiles/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{ProfilePath: []string{"testdata/index2/profiles"}}
	g, x, diags := CompileIndexed(context.Background(), svc, opts)
	if diags.HasErrors() || g == nil {
		t.Fatalf("compile: %v", diags.Err())
	}
	g2, diags2 := Compile(context.Background(), svc, opts)
	if g2.Len() != g.Len() || len(diags2) != len(diags) {
		t.Errorf("CompileIndexed differs from Compile")
	}
	if x.Version != tosca2.Version || strings.Join(x.Files, " ") != svc+" "+shop+" "+types {
		t.Errorf("Version %q, Files %v", x.Version, x.Files)
	}
	tests := []struct {
		file      string
		line, col int
		want      string // kind name @ definition
	}{
		{svc, 5, 16, "file " + shop + " @ " + shop + ":1:1"},
		{svc, 7, 10, "file " + types + " @ " + types + ":1:1"},
		{svc, 4, 16, "file profiles2/org.oasis-open.simple-2.0.yaml @ profiles2/org.oasis-open.simple-2.0.yaml"},
		{svc, 35, 13, "type example.Web @ " + types + ":7:3"},
		{svc, 29, 16, "type Store @ " + shop + ":11:3"},
		{svc, 23, 13, "type Compute @ profiles2/org.oasis-open.simple-2.0.yaml"},
		{svc, 17, 13, "type integer @ "},
		{svc, 37, 9, "property port @ " + types + ":11:7"},
		{svc, 31, 9, "property name @ profiles2/org.oasis-open.simple-2.0.yaml"},
		{svc, 42, 11, "requirement store @ " + types + ":22:9"},
		{svc, 42, 18, "node template db @ " + svc + ":28:5"},
		{svc, 41, 11, "requirement host @ profiles2/org.oasis-open.simple-2.0.yaml"},
		{svc, 37, 29, "input port @ " + svc + ":16:5"},
		{svc, 39, 21, "function double @ " + svc + ":9:3"},
		{svc, 46, 33, "node template web @ " + svc + ":34:5"},
		{svc, 46, 38, "property url @ " + types + ":15:7"},
		{types, 8, 19, "type WebServer @ profiles2/org.oasis-open.simple-2.0.yaml"},
		{types, 23, 23, "type Orders @ " + shop + ":7:3"},
		{types, 24, 17, "type Store @ " + shop + ":11:3"},
		{types, 12, 15, "type integer @ "},
		{svc, 22, 5, "node template host @ " + svc + ":22:5"},
	}
	for _, tc := range tests {
		if got := symbolAt(x, tc.file, tc.line, tc.col); got != tc.want {
			t.Errorf("%s:%d:%d names %q, want %q", tc.file, tc.line, tc.col, got, tc.want)
		}
	}
	for _, tc := range []struct {
		line, col      int
		function, want string
	}{
		{37, 17, "$get_input", "`8080`"},
		{38, 16, "$concat", "`\"http://localhost:8080\"`"},
		{38, 50, "$get_input", "`8080`"},
		{39, 20, "$double", "known at apply time: `function(double, {\"result\":\"integer\"}, [4])`"},
		{46, 16, "$get_property", "`\"http://localhost:8080\"`"},
		{20, 21, "$greater_than", "a validation clause: evaluated with `$value` bound to each value it checks"},
	} {
		if c, ok := x.CallAt(svc, tc.line, tc.col); !ok || c.Function != tc.function || c.Result != tc.want {
			t.Errorf("call at %d:%d: %+v, want %s resolving to %s", tc.line, tc.col, c, tc.function, tc.want)
		}
	}
	host, _ := x.SymbolAt(svc, 22, 5)
	if refs := x.ReferencesTo(host); len(refs) != 2 {
		t.Errorf("host is named %d times, want 2: %v", len(refs), refs)
	}
	web, _ := x.Lookup(symbols.NodeTemplate, "web")
	typ, ok := web.TypeRef.Index()
	if !ok {
		t.Fatal("template web has no TypeRef")
	}
	var names []string
	for _, p := range x.MembersOf(typ, symbols.Property) {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "admin_credential component_version port url workers" {
		t.Errorf("MembersOf(example.Web) = %v", names)
	}
	if d := x.Symbols[typ].Detail; !strings.Contains(d, "derived from: `WebServer` → `SoftwareComponent` → `Root`") || !strings.Contains(d, "The shop's web front end.") {
		t.Errorf("hover of example.Web: %q", d)
	}
	nodeTypes := x.TypesOf("node type")
	for _, want := range []string{"Compute", "example.Web", "shop:Store"} {
		if !slices.Contains(nodeTypes, want) {
			t.Errorf("TypesOf(node type) = %v: no %s", nodeTypes, want)
		}
	}
	if slices.Contains(nodeTypes, "Store") || slices.Contains(nodeTypes, "shop:Compute") {
		t.Errorf("TypesOf(node type) = %v: Store is written shop:Store, Compute by its name", nodeTypes)
	}
	if !slices.Contains(x.TypesOf("data type"), "integer") {
		t.Error("the built-in data types are not offered")
	}
}

// TestCompileIndexed2OfABrokenTemplate proves that a 2.0 template the
// compile cannot finish (an unknown type, a file that is not a map) still
// gets an index, with what could be read.
func TestCompileIndexed2OfABrokenTemplate(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"unknown.yaml": "tosca_definitions_version: tosca_2_0\nservice_template:\n  node_templates:\n    a: { type: Nope }\n    b: { type: Compute, requirements: [ { dependency: a } ] }\n",
		"list.yaml":    "- tosca_definitions_version: tosca_2_0\n",
		"broken.yaml":  "tosca_definitions_version: tosca_2_0\nservice_template: {\n",
	} {
		path := filepath.Join(dir, name)
		writeFile(t, path, src)
		_, x, diags := CompileIndexed(context.Background(), path, Options{})
		if !diags.HasErrors() || x == nil {
			t.Errorf("%s: %v", name, diags)
			continue
		}
		if name == "unknown.yaml" {
			if got := x.Names(symbols.NodeTemplate, ""); strings.Join(got, " ") != "a b" {
				t.Errorf("%s: templates %v", name, got)
			}
		}
	}
}

// TestKeynames2AreTheCompilers compiles, for every place Keynames knows
// in TOSCA 2.0, a file that writes each of its keynames there, and finds
// none reported unknown: completion offers what Compile accepts.
func TestKeynames2AreTheCompilers(t *testing.T) {
	const prelude = `{"tosca_definitions_version": "tosca_2_0", "imports": [{"profile": "org.oasis-open.simple:2.0"}], %s}`
	// Each place, and the file around it: KEYS is where its keys go.
	places := map[string]string{
		"":                                  `"description": "d", KEYS`,
		"service_template":                  `"service_template": {"node_templates": {}, KEYS}`,
		"service_template.inputs.*":         `"service_template": {"node_templates": {}, "inputs": {"i": {"type": "map", "entry_schema": "string", KEYS}}}`,
		"service_template.outputs.*":        `"service_template": {"node_templates": {}, "outputs": {"o": {"type": "map", "entry_schema": "string", KEYS}}}`,
		"service_template.node_templates.*": `"service_template": {"node_templates": {"n": {"type": "Compute", KEYS}}}`,
		"service_template.node_templates.*.requirements.*":              `"service_template": {"node_templates": {"m": {"type": "Compute"}, "n": {"type": "Compute", "requirements": [{"dependency": {"node": "m", KEYS}}]}}}`,
		"service_template.node_templates.*.requirements.*.relationship": `"service_template": {"node_templates": {"m": {"type": "Compute"}, "n": {"type": "Compute", "requirements": [{"dependency": {"node": "m", "relationship": {"type": "DependsOn", KEYS}}}]}}}`,
		"service_template.node_templates.*.capabilities.*":              `"service_template": {"node_templates": {"n": {"type": "Compute", "capabilities": {"host": {KEYS}}}}}`,
		"service_template.node_templates.*.interfaces.*":                `"service_template": {"node_templates": {"n": {"type": "Compute", "interfaces": {"Standard": {KEYS}}}}}`,
		"service_template.node_templates.*.interfaces.*.operations.*":   `"service_template": {"node_templates": {"n": {"type": "Compute", "interfaces": {"Standard": {"operations": {"create": {KEYS}}}}}}}`,
		"service_template.node_templates.*.artifacts.*":                 `"service_template": {"node_templates": {"n": {"type": "Compute", "artifacts": {"a": {"type": "File", "file": "f", KEYS}}}}}`,
		"service_template.relationship_templates.*":                     `"service_template": {"node_templates": {}, "relationship_templates": {"r": {"type": "DependsOn", KEYS}}}`,
		"service_template.groups.*":                                     `"service_template": {"node_templates": {}, "groups": {"g": {"type": "Root", KEYS}}}`,
		"service_template.policies.*":                                   `"service_template": {"node_templates": {}, "policies": [{"p": {"type": "Placement", KEYS}}]}`,
		"service_template.policies.*.triggers.*":                        `"service_template": {"node_templates": {}, "policies": [{"p": {"type": "Placement", "triggers": {"t": {"event": "e", "action": [], KEYS}}}}]}`,
		"service_template.substitution_mappings":                        `"service_template": {"node_templates": {}, "substitution_mappings": {"node_type": "Compute", KEYS}}`,
		"service_template.workflows.*":                                  `"service_template": {"node_templates": {}, "workflows": {"w": {KEYS}}}`,
		"service_template.workflows.*.steps.*":                          `"service_template": {"node_templates": {}, "workflows": {"w": {"steps": {"s": {KEYS}}}}}`,
		"service_template.functions.*":                                  `"service_template": {"node_templates": {}, "functions": {"f": {"signatures": [{}], KEYS}}}`,
		"imports":                                                       `"description": "d", "repositories": {}, "x": [KEYS]`,
		"repositories.*":                                                `"repositories": {"r": {"url": "u", KEYS}}`,
		"functions.*":                                                   `"functions": {"f": {"signatures": [{}], KEYS}}`,
		"functions.*.signatures":                                        `"functions": {"f": {"signatures": [{KEYS}]}}`,
		"node_types.*.capabilities.*":                                   `"node_types": {"t": {"capabilities": {"c": {"type": "Node", KEYS}}}}`,
		"node_types.*.requirements.*":                                   `"node_types": {"t": {"requirements": [{"r": {"capability": "Node", "relationship": "DependsOn", KEYS}}]}}`,
		"node_types.*.artifacts.*":                                      `"node_types": {"t": {"artifacts": {"a": {"type": "File", "file": "f", KEYS}}}}`,
		"node_types.*.interfaces.*":                                     `"node_types": {"t": {"interfaces": {"i": {"type": "Standard", KEYS}}}}`,
		"node_types.*.interfaces.*.operations.*":                        `"node_types": {"t": {"interfaces": {"i": {"type": "Standard", "operations": {"create": {KEYS}}}}}}`,
		"interface_types.*.operations.*":                                `"interface_types": {"t": {"operations": {"o": {KEYS}}}}`,
		"data_types.*.properties.*":                                     `"data_types": {"t": {"properties": {"p": {"type": "map", "entry_schema": "string", KEYS}}}}`,
		// A schema's keynames are those of a map schema (§9.3: key_schema is for maps only).
		"data_types.*.entry_schema":       `"data_types": {"t": {"derived_from": "list", "entry_schema": {"type": "map", "entry_schema": "string", KEYS}}}`,
		"capability_types.*.attributes.*": `"capability_types": {"t": {"attributes": {"a": {"type": "map", "entry_schema": "string", KEYS}}}}`,
	}
	for k := core.Kind(0); k < core.NumKinds; k++ {
		places[k.Section()+".*"] = `"` + k.Section() + `": {"t": {KEYS}}`
	}
	// A data type's schemas are those of a map.
	places["data_types.*"] = `"data_types": {"t": {"derived_from": "map", "entry_schema": "string", KEYS}}`
	for place, doc := range places {
		keys := Keynames(tosca2.Version, place)
		if len(keys) == 0 {
			t.Errorf("Keynames(tosca_2_0, %q) is empty", place)
			continue
		}
		var entries []string
		for _, k := range keys {
			if strings.Contains(doc, `"`+k+`":`) || place == "" && k == "tosca_definitions_version" {
				continue
			}
			entries = append(entries, fmt.Sprintf("%q: null", k))
		}
		text := fmt.Sprintf(prelude, strings.Replace(doc, "KEYS", strings.Join(entries, ", "), 1))
		if place == "imports" {
			// The import's keys, in an import of its own.
			var imp []string
			for _, k := range keys {
				imp = append(imp, fmt.Sprintf("%q: %q", k, "x"))
			}
			text = `{"tosca_definitions_version": "tosca_2_0", "imports": [{` + strings.Join(imp, ", ") + `}]}`
		}
		text = strings.ReplaceAll(text, ", }", "}")
		if !json.Valid([]byte(text)) {
			t.Fatalf("%s: not JSON: %s", place, text)
		}
		path := filepath.Join(t.TempDir(), "t.yaml")
		writeFile(t, path, text)
		_, diags := Compile(context.Background(), path, Options{})
		for _, d := range diags {
			if d.Code == CodeUnknownField || d.Code == CodeLegacyKeyname {
				t.Errorf("%s: a keyname Keynames offers is refused: %s", place, d.Summary)
			}
		}
	}
	if Keynames(tosca2.Version, "service_template.node_templates") != nil {
		t.Error("a place whose keys are names has no keynames")
	}
	if got := Keynames(tosca2.Version, ""); !slices.Contains(got, "service_template") || slices.Contains(got, "topology_template") {
		t.Errorf("2.0's top-level keynames: %v", got)
	}
	if TypeSection("service_template.node_templates.*") != "node type" || TypeSection("service_template.inputs.*") != "data type" {
		t.Error("TypeSection of 2.0 places")
	}
}
