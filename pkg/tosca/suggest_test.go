package tosca

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

func TestNearestName(t *testing.T) {
	names := []string{"db_password", "db_user", "port", "ports"}
	tests := []struct{ name, want string }{
		{"db_pasword", "db_password"},  // one deletion
		{"db_passwrod", "db_password"}, // a swap is two edits
		{"db_usr", "db_user"},
		{"prot", "port"},      // ties (port, ports) go to the first sorted
		{"hostname", ""},      // nothing near
		{"dbpassword__", ""},  // three edits
		{"ñ" + "ort", "port"}, // runes, not bytes
		{strings.Repeat("p", 300), ""},
	}
	for _, tt := range tests {
		if got := core.NearestName(tt.name, names); got != tt.want {
			t.Errorf("core.NearestName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestUndeclaredInputIsAnError: a value given for an input the template
// does not declare is an error (Terraform refuses an undeclared variable),
// in TOSCA 1.x and 2.0 and in a file of type definitions, placed where the
// value was given, naming a --var as such, suggesting the nearest declared
// name, and never quoting the value.
func TestUndeclaredInputIsAnError(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"v1.yaml":    "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  inputs:\n    db_password:\n      type: string\n      default: changeme\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n",
		"v2.yaml":    "tosca_definitions_version: tosca_2_0\nservice_template:\n  inputs:\n    db_password:\n      type: string\n      default: changeme\n  node_templates: {}\n",
		"types.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  demo.A:\n    derived_from: tosca.nodes.Root\n",
	})
	inFile := diag.Range{File: "in.yaml", Start: diag.Pos{Line: 2, Column: 13}, End: diag.Pos{Line: 2, Column: 22}}
	tests := []struct {
		file   string
		ranges map[string]diag.Range
		want   string // file:line:col summary
	}{
		{"v1.yaml", map[string]diag.Range{"db_pasword": inFile},
			`in.yaml:2:13 input value given for "db_pasword", which the template v1.yaml does not declare; did you mean "db_password"?`},
		{"v1.yaml", map[string]diag.Range{"db_pasword": {}},
			`-:0:0 --var gives a value for input "db_pasword", which the template v1.yaml does not declare; did you mean "db_password"?`},
		{"v1.yaml", nil,
			`v1.yaml:4:5 input value given for "db_pasword", which the template v1.yaml does not declare; did you mean "db_password"?`},
		{"v2.yaml", map[string]diag.Range{"db_pasword": inFile},
			`in.yaml:2:13 input value given for "db_pasword", which the template v2.yaml does not declare; did you mean "db_password"?`},
		{"v2.yaml", map[string]diag.Range{"db_pasword": {}},
			`-:0:0 --var gives a value for input "db_pasword", which the template v2.yaml does not declare; did you mean "db_password"?`},
		{"types.yaml", map[string]diag.Range{"db_pasword": {}},
			`-:0:0 --var gives a value for input "db_pasword", which the template types.yaml does not declare`},
		{"types.yaml", nil,
			`types.yaml:1:1 input value given for "db_pasword", which the template types.yaml does not declare`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Chdir(dir)
			_, diags := Compile(context.Background(), tt.file, Options{Inputs: map[string]any{"db_pasword": "TOPSECRET9"}, InputRanges: tt.ranges})
			var got []string
			for _, d := range diags {
				if strings.Contains(d.Error()+d.Detail, "TOPSECRET9") {
					t.Errorf("a diagnostic quotes the value: %s", d.Error())
				}
				if d.Code != CodeUnknownInput {
					continue
				}
				if d.Severity != diag.Error {
					t.Errorf("severity %s, want error: %s", d.Severity, d.Error())
				}
				if name, ok := UndeclaredInput(d); !ok || name != "db_pasword" {
					t.Errorf("UndeclaredInput = %q, %v", name, ok)
				}
				file := "-"
				if d.Range.File != "" {
					file = filepath.Base(d.Range.File)
				}
				got = append(got, file+":"+core.Itoa(int64(d.Range.Start.Line))+":"+core.Itoa(int64(d.Range.Start.Column))+" "+d.Summary)
			}
			if want := []string{tt.want}; !slices.Equal(got, want) {
				t.Errorf("got %q\nwant %q", got, want)
			}
		})
	}
	// A declared input is no error, and UndeclaredInput tells a get_input
	// of an unknown input apart.
	_, diags := Compile(context.Background(), filepath.Join(dir, "v1.yaml"), Options{Inputs: map[string]any{"db_password": "x"}})
	if diags.HasErrors() {
		t.Errorf("declared input: %v", diags)
	}
	if _, ok := UndeclaredInput(diag.Diagnostic{Code: CodeUnknownInput, Path: "topology_template.inputs.x.default"}); ok {
		t.Error("UndeclaredInput takes a diagnostic of another kind")
	}
}
