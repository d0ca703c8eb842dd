package tosca

import (
	"context"
	"fmt"
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

// TestDidYouMean: a misspelt type, property or keyname is reported with
// the nearest declared name, in the summary ("did you mean") and as the
// diagnostic's Suggestion (the language server's quick fix), in 1.3 and
// 2.0; a name with nothing near gets neither.
func TestDidYouMean(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"v13.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    dbms:
      type: tosca.nodes.DBMS
      properties:
        prot: 5432
    db:
      type: tosca.nodes.Databse
    web:
      type: tosca.nodes.Compute
      requirments: []
    other:
      type: tosca.nodes.ZZZZZZZZZZ
`,
		"v20.yaml": `tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
    namespace: s
service_template:
  node_templates:
    dbms:
      type: s:DBMS
      properties:
        prot: 5432
    db:
      type: s:Databse
    web:
      type: s:Compute
      requirments: []
`,
	})
	want := map[string]map[string]string{ // file → code → suggestion
		"v13.yaml": {CodeUnknownProperty: "port", CodeUnknownType: "tosca.nodes.Database", CodeUnknownField: "requirements"},
		"v20.yaml": {CodeUnknownProperty: "port", CodeUnknownType: "s:Database", CodeUnknownField: "requirements"},
	}
	for file, codes := range want {
		_, diags := Compile(context.Background(), filepath.Join(dir, file), Options{})
		got := map[string]string{}
		for _, d := range diags {
			if d.Suggestion != "" {
				got[d.Code] = d.Suggestion
				if !strings.HasSuffix(d.Summary, `; did you mean "`+d.Suggestion+`"?`) {
					t.Errorf("%s: %s: the summary does not say it: %s", file, d.Code, d.Summary)
				}
			} else if strings.Contains(d.Summary, "ZZZZ") && strings.Contains(d.Summary, "did you mean") {
				t.Errorf("%s: a suggestion for a name with nothing near: %s", file, d.Summary)
			}
		}
		for code, s := range codes {
			if got[code] != s {
				t.Errorf("%s: %s suggests %q, want %q (all: %v)\n%v", file, code, got[code], s, got, diags)
			}
		}
	}
}

// TestDidYouMeanIsBounded: the searches of one compile stop at
// MaxSuggestCells, so a file of thousands of long misspelt names is not
// slowed by them: the later diagnostics come without a suggestion.
func TestDidYouMeanIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n")
	long := strings.Repeat("x", 200)
	for i := range 300 {
		fmt.Fprintf(&b, "  %s%03d:\n    derived_from: tosca.nodes.Root\n", long, i)
	}
	b.WriteString("topology_template:\n  node_templates:\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "    n%d:\n      type: %s%04d\n", i, long, i)
	}
	dir := testutil.Tree(t, map[string]string{"big.yaml": b.String()})
	_, diags := Compile(context.Background(), filepath.Join(dir, "big.yaml"), Options{})
	var unknown, suggested int
	for _, d := range diags {
		if d.Code == CodeUnknownType {
			unknown++
			if d.Suggestion != "" {
				suggested++
			}
		}
	}
	// Each search compares with 300 names of about 200 runes: 12,000,000
	// cells, so the budget allows one full search and part of a second.
	if unknown != 3000 || suggested == 0 || suggested > 2 {
		t.Errorf("%d unknown types, %d with a suggestion: want 3000, and 1 or 2", unknown, suggested)
	}
}
