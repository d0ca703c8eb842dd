package tosca

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/symbols"
)

// TestCompileIndexedNamesWhatTheCompilerResolved checks the index of
// testdata/index: where each name is defined, what each use names, and
// what function calls resolve to.
func TestCompileIndexedNamesWhatTheCompilerResolved(t *testing.T) {
	const svc, types = "testdata/index/service.yaml", "testdata/index/types.yaml"
	g, x, diags := CompileIndexed(context.Background(), svc, Options{})
	if diags.HasErrors() || g == nil {
		t.Fatalf("compile: %v", diags.Err())
	}
	g2, diags2 := Compile(context.Background(), svc, Options{})
	if g2.Len() != g.Len() || len(diags2) != len(diags) {
		t.Errorf("CompileIndexed differs from Compile")
	}
	if x.Version != "tosca_simple_yaml_1_3" || strings.Join(x.Files, " ") != svc+" "+types {
		t.Errorf("Version %q, Files %v", x.Version, x.Files)
	}
	tests := []struct {
		file      string
		line, col int
		want      string // kind name @ definition
	}{
		{svc, 4, 6, "file testdata/index/types.yaml @ testdata/index/types.yaml:1:1"},
		{svc, 26, 15, "type example.App @ testdata/index/types.yaml:4:3"},
		{svc, 17, 18, "node template server @ testdata/index/service.yaml:12:5"},
		{svc, 22, 30, "input db_port @ testdata/index/service.yaml:8:5"},
		{svc, 28, 9, "property port @ testdata/index/types.yaml:8:7"},
		{svc, 31, 12, "requirement database @ testdata/index/types.yaml:14:9"},
		{svc, 34, 32, "node template db @ testdata/index/service.yaml:18:5"},
		{svc, 12, 5, "node template server @ testdata/index/service.yaml:12:5"},
		{types, 16, 20, "type tosca.nodes.Database @ <normative>/tosca_simple_yaml_1_3.yaml"},
		{types, 9, 15, ""},
	}
	for _, tc := range tests {
		if got := symbolAt(x, tc.file, tc.line, tc.col); got != tc.want {
			t.Errorf("%s:%d:%d names %q, want %q", tc.file, tc.line, tc.col, got, tc.want)
		}
	}
	if c, ok := x.CallAt(svc, 22, 18); !ok || c.Function != "get_input" || c.Result != "`5432`" {
		t.Errorf("get_input call: %+v", c)
	}
	server, _ := x.SymbolAt(svc, 12, 5)
	if refs := x.ReferencesTo(server); len(refs) != 2 {
		t.Errorf("server is named %d times, want 2: %v", len(refs), refs)
	}
	props := x.Members("example.App", symbols.Property)
	var names []string
	for _, p := range props {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "admin_credential component_version port" {
		t.Errorf("Members(example.App) = %v", names)
	}
	app, _ := x.Lookup(symbols.Type, "example.App")
	if !strings.Contains(app.Detail, "derived from: `tosca.nodes.SoftwareComponent` → `tosca.nodes.Root`") || !strings.Contains(app.Detail, "An application.") {
		t.Errorf("hover of example.App: %q", app.Detail)
	}
}

// symbolAt describes the symbol named or defined at a position as
// "kind name @ where it is defined" (an embedded one: @ its file), ""
// for none.
func symbolAt(x *symbols.Index, file string, line, col int) string {
	i, ok := x.SymbolAt(file, line, col)
	if !ok {
		return ""
	}
	s := x.Symbols[i]
	if s.Embedded {
		return fmt.Sprintf("%s %s @ %s", s.Kind, s.Name, s.Range.File)
	}
	return fmt.Sprintf("%s %s @ %s", s.Kind, s.Name, s.Range)
}

// TestIndexNeverShowsASensitiveValue proves that what a function call
// resolves to is not shown when it reads a secret, nor a sensitive
// default.
func TestIndexNeverShowsASensitiveValue(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.yaml")
	writeFile(t, path, `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    password:
      type: string
      default: hunter2-secret
      metadata: { sensitive: true }
  node_templates:
    db:
      type: tosca.nodes.Database
      properties:
        name: orders
        password: { get_input: password }
`)
	_, x, _ := CompileIndexed(context.Background(), path, Options{})
	for _, s := range x.Symbols {
		if strings.Contains(s.Detail, "hunter2") {
			t.Errorf("symbol %s shows the secret: %q", s.Name, s.Detail)
		}
	}
	for _, c := range x.Calls {
		if strings.Contains(c.Result, "hunter2") {
			t.Errorf("call %s shows the secret: %q", c.Function, c.Result)
		}
	}
}

func TestKeynamesFollowTheVersion(t *testing.T) {
	for _, tc := range []struct {
		version, place, want, notWant string
	}{
		{"tosca_simple_yaml_1_3", PlaceTopology, "workflows", ""},
		{"tosca_simple_yaml_1_0", PlaceTopology, "outputs", "workflows"},
		{"tosca_simple_yaml_1_2", "node_types.*.properties.*", "constraints", "key_schema"},
		{"", "topology_template.node_templates.*", "requirements", ""},
		{"", "topology_template.node_templates.*.requirements.*", "node_filter", ""},
		{"", "node_types.*", "derived_from", "members"},
	} {
		got := Keynames(tc.version, tc.place)
		if !strings.Contains(" "+strings.Join(got, " ")+" ", " "+tc.want+" ") || tc.notWant != "" && strings.Contains(strings.Join(got, " "), tc.notWant) {
			t.Errorf("Keynames(%q, %q) = %v; want %q without %q", tc.version, tc.place, got, tc.want, tc.notWant)
		}
	}
	if Keynames("", "topology_template.node_templates") != nil {
		t.Error("a place whose keys are names has no keynames")
	}
	if TypeSection("topology_template.node_templates.*") != "node type" || TypeSection("capability_types.*") != "capability type" {
		t.Error("TypeSection")
	}
}

// TestDependencyCycleListsEachHopAsRelated proves that a cycle's
// diagnostic carries each hop as a related place, for editors.
func TestDependencyCycleListsEachHopAsRelated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	writeFile(t, path, `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    a:
      type: tosca.nodes.Root
      requirements:
        - dependency: b
    b:
      type: tosca.nodes.Root
      requirements:
        - dependency: a
`)
	_, diags := Compile(context.Background(), path, Options{})
	var got []string
	for _, d := range diags {
		if d.Code == CodeDependencyCycle {
			for _, r := range d.Related {
				got = append(got, fmt.Sprintf("%d:%d %s", r.Range.Start.Line, r.Range.Start.Column, r.Message))
			}
		}
	}
	want := `7:11 a requires b (requirement "dependency")|11:11 b requires a (requirement "dependency")`
	if strings.Join(got, "|") != want {
		t.Errorf("related = %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestCompileIndexedAgreesWithCompileOnTheCorpus proves on valid files
// of the corpus that indexing changes nothing the compiler says, and that
// every reference names a symbol. A quarter of the files (every fourth)
// keeps the race run short; all of them agree (checked once, 3.8 s).
func TestCompileIndexedAgreesWithCompileOnTheCorpus(t *testing.T) {
	opts := Options{Root: rootAt(t, testutil.CorpusDir(t))}
	for i, f := range validCorpusFiles(t) {
		if i%4 != 0 {
			continue
		}
		g1, d1 := Compile(context.Background(), f, opts)
		g2, x, d2 := CompileIndexed(context.Background(), f, opts)
		if lenOf(g1) != lenOf(g2) || fmt.Sprint(d1) != fmt.Sprint(d2) {
			t.Errorf("%s: CompileIndexed says otherwise than Compile", f)
		}
		for _, r := range x.References {
			if r.Symbol < 0 || r.Symbol >= len(x.Symbols) {
				t.Fatalf("%s: reference to symbol %d of %d", f, r.Symbol, len(x.Symbols))
			}
		}
		if len(x.Files) == 0 || x.Files[0] != f {
			t.Errorf("%s: Files %v do not start with the file compiled", f, x.Files)
		}
	}
}

// TestIndexNamesTheTypesOfLongFormRequirements checks that a template's
// requirement written in the long form names its relationship type, and
// a requirement naming a node type names that type.
func TestIndexNamesTheTypesOfLongFormRequirements(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	writeFile(t, path, `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    db:
      type: tosca.nodes.Database
      properties: { name: orders }
      requirements:
        - host:
            node: tosca.nodes.DBMS
            relationship: tosca.relationships.HostedOn
    dbms:
      type: tosca.nodes.DBMS
      requirements:
        - host: server
    server:
      type: tosca.nodes.Compute
`)
	_, x, diags := CompileIndexed(context.Background(), path, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	for _, tc := range []struct {
		line, col int
		want      string
	}{{9, 20, "tosca.nodes.DBMS"}, {10, 30, "tosca.relationships.HostedOn"}} {
		i, ok := x.SymbolAt(path, tc.line, tc.col)
		if !ok || x.Symbols[i].Name != tc.want {
			t.Errorf("%d:%d names %v, want %s", tc.line, tc.col, x.Symbols[i].Name, tc.want)
		}
	}
}

// TestIndexNamesTemplatesInGroupsPoliciesCopiesAndSubstitutions checks
// that find-references of a template sees it where groups, policies,
// copy and substitution mappings name it.
func TestIndexNamesTemplatesInGroupsPoliciesCopiesAndSubstitutions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.yaml")
	writeFile(t, path, `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  substitution_mappings:
    node_type: tosca.nodes.Compute
    capabilities:
      host: [web, host]
  node_templates:
    web:
      type: tosca.nodes.Compute
    web2:
      copy: web
  groups:
    g:
      type: tosca.groups.Root
      members: [web]
  policies:
    - p:
        type: tosca.policies.Placement
        targets: [web]
`)
	_, x, diags := CompileIndexed(context.Background(), path, Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	web, ok := x.SymbolAt(path, 8, 5)
	if !ok || x.Symbols[web].Name != "web" {
		t.Fatal("no symbol for web")
	}
	var got []string
	for _, r := range x.ReferencesTo(web) {
		got = append(got, fmt.Sprintf("%d:%d", r.Start.Line, r.Start.Column))
	}
	if want := "6:14 11:13 15:17 19:19"; strings.Join(got, " ") != want {
		t.Errorf("web is named at %v, want %s", got, want)
	}
}
