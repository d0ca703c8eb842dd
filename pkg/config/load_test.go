package config

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// TestLoadCorpusInParallel compiles the XOS recipes and the Tonomi
// manifests of the shared corpus through the parallel loader (run it
// under -race): every recipe must validate, and every unit must come back
// in file order whatever order the workers finish in.
func TestLoadCorpusInParallel(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	recipes := filepath.Join(corpus, "xos-recipes", "recipes")
	// The recipes import the XOS types from a folder beside theirs.
	root, err := NewRoot(corpus)
	if err != nil {
		t.Fatal(err)
	}
	res := Load(context.Background(), []string{recipes, filepath.Join(corpus, "tonomi")}, Options{Root: root})
	for _, d := range res.Diags {
		if d.Severity == diag.Error {
			t.Errorf("%s", d.Error())
		}
	}
	var firsts []string
	formats := map[Format]int{}
	for _, u := range res.Units {
		firsts = append(firsts, u.Files[0])
		formats[u.Format]++
	}
	if !slices.IsSorted(firsts) {
		t.Errorf("units out of order: %v", firsts)
	}
	if formats[FormatTOSCA] != 10 || formats[FormatManifest] != 1 {
		t.Errorf("units by format = %v, want 10 TOSCA recipes and 1 manifest environment", formats)
	}
}

const (
	toscaApp  = "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    app:\n      type: tosca.nodes.Root\n"
	tonomiApp = "application:\n  interfaces: {}\n  components: {}\n"
)

// TestLoadSortsFilesByFrontEnd loads a folder of every kind of file: each
// TOSCA file is a unit, the manifests of one folder are one unit, a
// provider inventory is checked but is no unit, an inputs file is left
// out, and anything else is an unknown format.
func TestLoadSortsFilesByFrontEnd(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"a.yaml":         toscaApp,
		"b.yaml":         toscaApp,
		"env/one.yaml":   tonomiApp,
		"env/two.yaml":   tonomiApp,
		"providers.yaml": "providers:\n  - name: host1\n    inventories: {VCPU: 4}\n",
		"inputs.yaml":    "password: hunter2\n",
		"k8s.yaml":       "kind: Pod\n",
	})
	res := Load(context.Background(), []string{dir}, Options{InputsFile: filepath.Join(dir, "inputs.yaml")})
	var got []string
	for _, u := range res.Units {
		var rel []string
		for _, f := range u.Files {
			r, _ := filepath.Rel(dir, f)
			rel = append(rel, filepath.ToSlash(r))
		}
		got = append(got, string(u.Format)+":"+strings.Join(rel, ","))
	}
	want := []string{"tosca:a.yaml", "tosca:b.yaml", "manifest:env/one.yaml,env/two.yaml"}
	if !slices.Equal(got, want) {
		t.Errorf("units = %v, want %v", got, want)
	}
	var codes []string
	for _, d := range res.Diags {
		codes = append(codes, filepath.Base(d.Range.File)+" "+d.Code)
		if strings.Contains(d.Error(), "hunter2") {
			t.Errorf("a diagnostic quotes the inputs file: %s", d.Error())
		}
	}
	if want := []string{"k8s.yaml " + CodeUnknownFormat}; !slices.Equal(codes, want) {
		t.Errorf("diagnostics = %v, want %v", codes, want)
	}
	if dirs := res.ManifestFolders(); !slices.Equal(dirs, []string{filepath.Join(dir, "env")}) {
		t.Errorf("ManifestFolders = %v", dirs)
	}
}

// TestLoadNamedFileOfNoFormat: a file of neither format that the user
// named is an error (the OASIS TOSCA 1.0 assertion MissingTOSCAVersion: a
// file with TOSCA keynames but no version must fail), while a folder walk
// skips such files with a warning and counts them in Result.Skipped.
func TestLoadNamedFileOfNoFormat(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"walk/app.yaml":    toscaApp,
		"walk/k8s.yaml":    "kind: Pod\n",
		"walk/notes.yml":   "- milk\n",
		"walk/play.yml":    "- hosts: all\n  tasks: []\n",
		"walk/empty.yaml":  "",
		"walk/broken.yaml": "a: [\n",
		"other.yaml":       "name: not a template\n",
		"empty.yaml":       "",
		"k8s.yaml":         "kind: Pod\n---\nkind: Service\n",
		// OASIS 3.1.2-tosca_definitions_version-04-missing.
		"noversion.yaml": "description: no version\nmetadata:\n  template_name: x\n",
		"topology.yaml":  "topology_template:\n  node_templates: {}\n",
		"v2.yaml":        "service_template:\n  node_templates: {}\n",
	})
	cases := []struct {
		path    string
		want    []string // file:line:col severity code
		skipped []string
	}{
		{"walk", []string{"broken.yaml:2:1 error yaml.syntax", "empty.yaml:1:1 warning validate.unknown_format",
			"k8s.yaml:1:1 warning validate.unknown_format", "notes.yml:1:1 warning validate.unknown_format"},
			[]string{"empty.yaml", "k8s.yaml", "notes.yml", "play.yml"}},
		{"other.yaml", []string{"other.yaml:1:1 error validate.unknown_format"}, nil},
		{"empty.yaml", []string{"empty.yaml:1:1 error validate.unknown_format"}, nil},
		{"k8s.yaml", []string{"k8s.yaml:1:1 error validate.unknown_format"}, nil},
		{"noversion.yaml", []string{"noversion.yaml:1:1 error tosca.version"}, nil},
		{"topology.yaml", []string{"topology.yaml:1:1 error tosca.version"}, nil},
		{"v2.yaml", []string{"v2.yaml:1:1 error tosca.unknown_field", "v2.yaml:1:1 error tosca.version"}, nil},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			res := Load(context.Background(), []string{filepath.Join(dir, c.path)}, Options{})
			var got []string
			for _, d := range res.Diags {
				got = append(got, fmt.Sprintf("%s:%d:%d %s %s", filepath.Base(d.Range.File), d.Range.Start.Line,
					d.Range.Start.Column, d.Severity, d.Code))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("diagnostics = %q, want %q", got, c.want)
			}
			var skipped []string
			for _, f := range res.Skipped {
				skipped = append(skipped, filepath.Base(f))
			}
			if !slices.Equal(skipped, c.skipped) {
				t.Errorf("Skipped = %q, want %q", skipped, c.skipped)
			}
		})
	}
}

// TestLoadSharedInputs: one set of input values serves every template of
// a load, so a value is an error only when no template declares it (then
// in each template, with the nearest name one declares).
func TestLoadSharedInputs(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"web.yaml":   "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  inputs:\n    web_port: {type: integer, default: 80}\n",
		"db.yaml":    "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  inputs:\n    db_password: {type: string, default: x}\n",
		"types.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  demo.A:\n    derived_from: tosca.nodes.Root\n",
	})
	inputs := map[string]any{"web_port": 8080, "db_password": "s3cret", "db_pasword": "s3cret"}
	ranges := map[string]diag.Range{"web_port": {}, "db_password": {}, "db_pasword": {}}
	res := Load(context.Background(), []string{dir}, Options{Inputs: inputs, InputRanges: ranges})
	var got []string
	for _, d := range res.Diags {
		got = append(got, d.Severity.String()+" "+d.Code+" "+d.Summary)
	}
	want := []string{
		`error tosca.unknown_input --var gives a value for input "db_pasword", which the template ` + filepath.Join(dir, "db.yaml") + ` does not declare; did you mean "db_password"?`,
		`error tosca.unknown_input --var gives a value for input "db_pasword", which the template ` + filepath.Join(dir, "types.yaml") + ` does not declare`,
		`error tosca.unknown_input --var gives a value for input "db_pasword", which the template ` + filepath.Join(dir, "web.yaml") + ` does not declare`,
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// One template alone: a value only the other declares is an error.
	res = Load(context.Background(), []string{filepath.Join(dir, "web.yaml")}, Options{Inputs: map[string]any{"db_password": "s3cret"}})
	if !res.Diags.HasErrors() {
		t.Errorf("web.yaml with db_password: no error")
	}
}

// TestLoadConfinesToTheRoot: a file named outside the root given is
// refused unread, and the files inside are still compiled.
func TestLoadConfinesToTheRoot(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"in/a.yaml": toscaApp, "out/b.yaml": toscaApp})
	root, err := NewRoot(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	res := Load(context.Background(), []string{filepath.Join(dir, "in"), filepath.Join(dir, "out", "b.yaml")}, Options{Root: root})
	if len(res.Units) != 1 || res.Units[0].Graph == nil {
		t.Errorf("units = %+v, want in/a.yaml compiled", res.Units)
	}
	if len(res.Diags) != 1 || res.Diags[0].Code != CodeOutsideRoot {
		t.Errorf("diagnostics = %v, want one %s", res.Diags, CodeOutsideRoot)
	}
}

// TestLoadStopsWhenCanceled: a canceled load starts no file and says so.
func TestLoadStopsWhenCanceled(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"a.yaml": toscaApp})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := Load(ctx, []string{dir}, Options{})
	if len(res.Units) != 0 {
		t.Errorf("units = %+v after cancel", res.Units)
	}
	if !slices.ContainsFunc(res.Diags, func(d diag.Diagnostic) bool { return d.Code == CodeCanceled }) {
		t.Errorf("diagnostics = %v, want %s", res.Diags, CodeCanceled)
	}
}
