package tosca

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestParameterDefinitions2: the inputs of an interface or operation
// definition are parameter definitions (§9.7): type may be left out
// ("While this keyname is mandatory for a TOSCA Property definition, it
// is not mandatory for a TOSCA parameter definition"), and an outgoing
// parameter may be written in the single-line grammar,
// <parameter_name>: <parameter_value> | <parameter_value_expression>.
// The values are passed to the operation; a typed one is still checked.
func TestParameterDefinitions2(t *testing.T) {
	const types = `tosca_definitions_version: tosca_2_0
imports: [ { profile: org.oasis-open.simple:2.0 } ]
node_types:
  App:
    derived_from: Root
    properties:
      cidr: { type: string }
    interfaces:
      Standard:
        inputs:
          region:
            description: untyped, with a value
            value: { $get_property: [ SELF, cidr ] }
          optional:
            required: false
        operations:
          create:
            implementation: create.sh
            inputs:
              short_call: { $get_property: [ SELF, cidr ] }
              short_constant: 5
              short_map: { a: 1 }
              long_untyped:
                required: true
                value: { $concat: [ x, y ] }
              typed:
                type: integer
                value: 7
`
	const main = `tosca_definitions_version: tosca_2_0
imports: [ { url: types/types.yaml } ]
service_template:
  node_templates:
    app:
      type: App
      properties: { cidr: 10.0.0.0/8 }
`
	root, path := writeAppStack(t, types, main)
	g, diags := Compile(context.Background(), path, Options{Root: rootAt(t, root)})
	op, ok := appOperation(t, g, diags, nil, "Standard.create")
	if !ok {
		t.Fatal("no Standard.create operation")
	}
	want := map[string]string{
		"region": `"10.0.0.0/8"`, "short_call": `"10.0.0.0/8"`, "short_constant": "5", "short_map": `{"a":1}`,
		"long_untyped": `"xy"`, "typed": "7",
	}
	for name, w := range want {
		if got := graph.Render(op.Inputs[name]); got != w {
			t.Errorf("input %s = %s, want %s", name, got, w)
		}
	}
	if _, ok := op.Inputs["optional"]; ok {
		t.Errorf("input optional, which has no value, is passed: %v", op.Inputs)
	}

	// A typed definition's single-line value is checked against its type,
	// and a map that holds a keyname is the long form.
	bad := `tosca_definitions_version: tosca_2_0
imports: [ { profile: org.oasis-open.simple:2.0 } ]
node_types:
  Base:
    derived_from: Root
    properties:
      cidr: { type: string }
    interfaces:
      Standard:
        inputs:
          level: { type: integer, required: false }
  App:
    derived_from: Base
    interfaces:
      Standard:
        inputs:
          level: high
        operations:
          create:
            implementation: create.sh
            inputs:
              mixed: { required: true, colour: red }
`
	root, path = writeAppStack(t, bad, main)
	_, diags = Compile(context.Background(), path, Options{Root: rootAt(t, root)})
	var got []string
	for _, d := range diags {
		if d.Severity == diag.Error {
			got = append(got, d.Code+" "+d.Path)
		}
	}
	wantErr := []string{
		CodeValue + " node_types.App.interfaces.Standard.inputs.level",
		CodeUnknownField + " node_types.App.interfaces.Standard.operations.create.inputs.mixed.colour",
	}
	if !slices.Equal(got, wantErr) {
		t.Errorf("errors %q, want %q\n%v", got, wantErr, diags)
	}
}

// errorPaths2 compiles the files (by slash path) with main.yaml as the
// template and returns "code path" of each error, in order.
func errorPaths2(t *testing.T, files map[string]string, opts Options) []string {
	t.Helper()
	dir := testutil.Tree(t, files)
	opts.Root = []string{dir}
	_, diags := Compile(context.Background(), filepath.Join(dir, "main.yaml"), opts)
	var got []string
	for _, d := range diags {
		if d.Severity == diag.Error {
			got = append(got, d.Code+" "+d.Path)
		}
	}
	return got
}

// TestTaggedTimestamp2: TOSCA 2.0 timestamps are RFC 3339 strings, and
// "to ensure portability TOSCA implementations shall not accept" the
// YAML !!timestamp type (§9.1.2.1, OASIS Standard and csd07 alike): a
// value written with the tag is an error wherever a value is checked
// (a timestamp or string property, an input's default) and in metadata
// (§5.3.1 lists the YAML types metadata holds), while a plain
// date-time, which YAML 1.2 reads as text, and a quoted one are
// timestamps.
func TestTaggedTimestamp2(t *testing.T) {
	const main = `tosca_definitions_version: tosca_2_0
metadata:
  plain: 2001-12-14T21:59:43Z
  tagged: !!timestamp 2001-12-14T21:59:43Z
node_types:
  N:
    properties:
      plain: { type: timestamp }
      quoted: { type: timestamp }
      tagged: { type: timestamp }
      tagged_quoted: { type: timestamp }
      text: { type: string }
service_template:
  inputs:
    when:
      type: timestamp
      default: !!timestamp 2001-12-14t21:59:43.10-05:00
  node_templates:
    n:
      type: N
      properties:
        plain: 2001-12-14T21:59:43Z
        quoted: "2001-12-14T21:59:43.10-05:00"
        tagged: !!timestamp 2001-12-14T21:59:43Z
        tagged_quoted: !!timestamp "2001-12-14T21:59:43Z"
        text: !!timestamp 2001-12-14T21:59:43Z
`
	got := errorPaths2(t, map[string]string{"main.yaml": main}, Options{})
	want := []string{
		CodeMetadata + " metadata.tagged",
		CodeValue + " service_template.inputs.when.default",
		CodeValue + " service_template.node_templates.n.properties.tagged",
		CodeValue + " service_template.node_templates.n.properties.tagged_quoted",
		CodeValue + " service_template.node_templates.n.properties.text",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
}

// TestOneNumberVersions: a TOSCA version is
// <major_version>.<minor_version>[.<fix_version>[.<qualifier>[-<build_version>]]],
// minor_version "a mandatory integer value" in 2.0 §9.1.2.3 (csd07 and
// the OASIS Standard alike) and "required" in 1.3 §3.2.2. In 2.0, which
// is strict, version: 2 and "2" are errors, for a type's version keyname
// and for values of type version alike; 1.x reads them as 2.0, as
// tosca-parser does, with a warning.
func TestOneNumberVersions(t *testing.T) {
	v2 := `tosca_definitions_version: tosca_2_0
data_types:
  D:
    version: 2
    properties:
      v: { type: version, default: "3" }
node_types:
  N:
    version: "2.1"
    properties:
      a: { type: version }
      b: { type: version }
      c: { type: version }
service_template:
  node_templates:
    n:
      type: N
      properties: { a: 2, b: "2.0", c: 1.0.0.beta-1 }
`
	got := errorPaths2(t, map[string]string{"main.yaml": v2}, Options{})
	want := []string{
		CodeValue + " data_types.D.properties.v.default",
		CodeValue + " data_types.D.version",
		CodeValue + " service_template.node_templates.n.properties.a",
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("2.0 errors %q, want %q", got, want)
	}

	v13 := `tosca_definitions_version: tosca_simple_yaml_1_3
metadata:
  template_version: 2
node_types:
  N:
    derived_from: tosca.nodes.Root
    properties:
      a: { type: version }
      b: { type: version }
topology_template:
  node_templates:
    n:
      type: N
      properties: { a: "2", b: 2.1 }
`
	dir := testutil.Tree(t, map[string]string{"main.yaml": v13})
	_, diags := Compile(context.Background(), filepath.Join(dir, "main.yaml"), Options{Root: []string{dir}})
	var warned []string
	for _, d := range diags {
		if d.Severity == diag.Error {
			t.Errorf("1.3: error %v", d)
		}
		if d.Code == CodeValue {
			warned = append(warned, d.Path)
		}
	}
	if wantW := []string{"metadata.template_version", "topology_template.node_templates.n.properties.a"}; !slices.Equal(warned, wantW) {
		t.Errorf("1.3 warnings at %q, want %q\n%v", warned, wantW, diags)
	}
}

// TestRepositoryScope2: repositories are definitions of a namespace,
// as types are (§6.7: a profile is a collection of "types,
// repositories, and functions"; §6.8.4 counts repositories among the
// names unique in a namespace): a file sees the repositories of the
// files and profiles it imports without a namespace, transitively, and
// those of an import with a namespace as ns:name. A repository's
// relative url is read from the folder of the file that defines it. An
// operation's artifact in a repository an imported file defines is
// that repository's URL.
func TestRepositoryScope2(t *testing.T) {
	files := map[string]string{
		"lib/defs.yaml": `tosca_definitions_version: tosca_2_0
repositories:
  shared: { url: ../shared }
  remote: https://scripts.example/v1
`,
		"lib/outer.yaml": `tosca_definitions_version: tosca_2_0
imports: [ { url: defs.yaml } ]
`,
		"shared/types.yaml": `tosca_definitions_version: tosca_2_0
imports: [ { profile: org.oasis-open.simple:2.0 } ]
node_types:
  App:
    derived_from: Root
`,
		"profiles/repos.yaml": `tosca_definitions_version: tosca_2_0
profile: org.example.repos:1.0
repositories:
  shared: { url: ../shared }
`,
	}
	cases := []struct {
		name, imports string
		want          []string
	}{
		{"a repository of an import", `
  - url: lib/defs.yaml
  - { url: types.yaml, repository: shared }`, nil},
		{"through an import's import", `
  - url: lib/outer.yaml
  - { url: /types.yaml, repository: shared }`, nil},
		{"qualified by the namespace of the import", `
  - { url: lib/defs.yaml, namespace: d }
  - { url: types.yaml, repository: d:shared }`, nil},
		{"of a profile", `
  - profile: org.example.repos:1.0
  - { url: types.yaml, repository: shared }`, nil},
		{"unqualified, of an import with a namespace", `
  - { url: lib/defs.yaml, namespace: d }
  - { url: types.yaml, repository: shared }`, []string{CodeUnknownRepository + " imports[1]"}},
		{"of an import that comes later", `
  - { url: types.yaml, repository: shared }
  - url: lib/defs.yaml`, []string{CodeUnknownRepository + " imports[0]"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			fs := maps.Clone(files)
			fs["main.yaml"] = "tosca_definitions_version: tosca_2_0\nimports:" + tt.imports + `
service_template:
  node_templates:
    app:
      type: App
      interfaces:
        Standard:
          operations:
            create: { implementation: { primary: { file: create.sh, repository: remote } } }
`
			if tt.name == "qualified by the namespace of the import" {
				fs["main.yaml"] = strings.Replace(fs["main.yaml"], "repository: remote", "repository: d:remote", 1)
			}
			dir := testutil.Tree(t, fs)
			g, diags := Compile(context.Background(), filepath.Join(dir, "main.yaml"), Options{Root: []string{dir}, ProfilePath: []string{filepath.Join(dir, "profiles")}})
			var got []string
			for _, d := range diags {
				if d.Severity == diag.Error {
					got = append(got, d.Code+" "+d.Path)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("errors %q, want %q\n%v", got, tt.want, diags)
			}
			if tt.want != nil || tt.name == "of a profile" {
				return
			}
			op, ok := appOperation(t, g, diags, nil, "Standard.create")
			if !ok || op.Implementation != "https://scripts.example/v1/create.sh" {
				t.Errorf("Standard.create runs %q (found %v), want the remote repository's URL", op.Implementation, ok)
			}
		})
	}
}
