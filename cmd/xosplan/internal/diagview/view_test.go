package diagview

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

const webFile = "testdata/src/web.yaml"

func pos(line, col, byteOff int) diag.Pos { return diag.Pos{Line: line, Column: col, Byte: byteOff} }

// cases are hand-made diagnostics covering every shape a renderer meets.
var cases = []struct {
	name   string
	strict bool
	color  bool
	diags  diag.Diagnostics
}{
	{name: "valid"},
	{name: "warnings", diags: diag.Diagnostics{
		{Severity: diag.Warning, Code: "tosca.duplicate_key", Summary: `duplicate key "db"`,
			Range: diag.Range{File: webFile, Start: pos(9, 5, 0), End: pos(9, 7, 0)}, Path: "topology_template.node_templates.db"},
	}},
	{name: "strict", strict: true, diags: diag.Diagnostics{
		{Severity: diag.Warning, Code: "validate.unknown_format", Summary: "neither TOSCA nor a manifest; skipped",
			Range: diag.Range{File: "notes.yaml", Start: pos(1, 1, 0), End: pos(1, 1, 0)}},
	}},
	{name: "errors", diags: diag.Diagnostics{
		{Severity: diag.Error, Code: "tosca.unknown_type", Summary: `unknown node type "tosca.nodes.Nope"`,
			Detail: "Did you mean \"tosca.nodes.Node\"?\nTypes come from the normative profile and the imports.",
			Range:  diag.Range{File: webFile, Start: pos(5, 13, 0), End: pos(5, 29, 0)}, Path: "topology_template.node_templates.web.type"},
		{Severity: diag.Error, Code: "tosca.bad_value", Summary: `"eighty" is not an integer`,
			Range: diag.Range{File: webFile, Start: pos(7, 15, 0), End: pos(7, 23, 0)}, Path: "topology_template.node_templates.web.properties.port"},
		{Severity: diag.Warning, Code: "tosca.bad_value", Summary: "value with a tab, multi-byte text, 100% odd: chars, too",
			Range: diag.Range{File: webFile, Start: pos(8, 23, 0), End: pos(8, 25, 0)}},
		{Severity: diag.Error, Code: "tosca.multi_line", Summary: "spans lines",
			Range: diag.Range{File: webFile, Start: pos(9, 5, 0), End: pos(10, 29, 0)}},
		{Severity: diag.Error, Code: "load.not_found", Summary: `cannot read "missing.yaml": no such file or directory`,
			Range: diag.Range{File: "missing.yaml"}},
		{Severity: diag.Error, Summary: "a diagnostic with neither code nor range"},
		{Severity: diag.Error, Code: "tosca.import", Summary: "source not readable, so no snippet",
			Range: diag.Range{File: "/abs/other dir/types.yaml", Start: pos(3, 1, 10), End: pos(3, 1, 10)}},
		{Severity: diag.Warning, Code: "tosca.point", Summary: "a point without an end",
			Range: diag.Range{File: "/abs/b.yaml", Start: pos(2, 4, 7)}},
	}},
	{name: "archive", diags: diag.Diagnostics{
		{Severity: diag.Error, Code: "tosca.unknown_type", Summary: `unknown node type "tosca.nodes.Nope"`,
			Range: diag.Range{File: "pkg.csar!/web.yaml", Start: pos(5, 13, 0), End: pos(5, 29, 0)}, Path: "topology_template.node_templates.web.type"},
		{Severity: diag.Error, Code: "csar.symlink", Summary: "the archive entry Scripts/run.sh is a symbolic link; xosplan reads no archive that holds one",
			Range: diag.Range{File: "pkg.csar!/Scripts/run.sh"}},
		{Severity: diag.Error, Code: "csar.not_zip", Summary: "pkg.csar is not a valid zip archive (not a valid zip file); a CSAR is a zip file",
			Range: diag.Range{File: "pkg.csar"}},
	}},
	{name: "color", color: true, diags: diag.Diagnostics{
		{Severity: diag.Error, Code: "tosca.unknown_type", Summary: `unknown node type "tosca.nodes.Nope"`,
			Range: diag.Range{File: webFile, Start: pos(5, 13, 0), End: pos(5, 29, 0)}},
		{Severity: diag.Warning, Code: "tosca.duplicate_key", Summary: `duplicate key "db"`,
			Range: diag.Range{File: webFile, Start: pos(9, 5, 0), End: pos(9, 7, 0)}},
	}},
}

// testSources reads the files diagnostics name; a member of pkg.csar is
// the file of its name in testdata/src.
func testSources(file string) ([]byte, bool) {
	if archive, member, ok := diag.SplitMember(file); ok && archive == "pkg.csar" {
		file = filepath.Join("testdata", "src", member)
	}
	data, err := os.ReadFile(file)
	return data, err == nil
}

func options(strict, color bool) Options {
	return Options{Strict: strict, Color: color, Sources: testSources, ToolVersion: "0.0.0-test", BaseDir: "/abs"}
}

func TestGolden(t *testing.T) {
	for _, c := range cases {
		for _, f := range Formats() {
			if c.color && f != string(Text) {
				continue
			}
			t.Run(c.name+"/"+f, func(t *testing.T) {
				var buf bytes.Buffer
				if err := Render(&buf, Format(f), c.diags, options(c.strict, c.color)); err != nil {
					t.Fatal(err)
				}
				testutil.Golden(t, filepath.Join("testdata", "golden", c.name+"."+f), buf.Bytes())
			})
		}
	}
}

// TestJSONContract checks the parts of the JSON document that consumers
// rely on: the version, counts, and empty arrays rather than null.
func TestJSONContract(t *testing.T) {
	for _, c := range cases {
		var buf bytes.Buffer
		if err := Render(&buf, JSON, c.diags, options(c.strict, false)); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		errs, warns := c.diags.Count()
		if doc["format_version"] != "1.1" || doc["error_count"] != float64(errs) || doc["warning_count"] != float64(warns) ||
			doc["skipped_count"] != float64(0) {
			t.Errorf("%s: header = %v", c.name, doc)
		}
		if doc["valid"] != Valid(c.diags, c.strict) {
			t.Errorf("%s: valid = %v", c.name, doc["valid"])
		}
		if _, ok := doc["diagnostics"].([]any); !ok {
			t.Errorf("%s: diagnostics = %#v, want an array", c.name, doc["diagnostics"])
		}
		if strings.Contains(buf.String(), "null") && c.name == "valid" {
			t.Errorf("%s: null in %s", c.name, buf.String())
		}
	}
}

// TestSARIFSchema validates every case against a reduced SARIF 2.1.0
// schema that captures what code-scanning services require.
func TestSARIFSchema(t *testing.T) {
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join("testdata", "sarif-2.1.0-reduced.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		if err := Render(&buf, SARIF, tc.diags, options(tc.strict, false)); err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(&buf)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if err := sch.Validate(doc); err != nil {
			t.Errorf("%s: SARIF output does not match the schema: %v", tc.name, err)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in      string
		wantErr bool
	}{{"text", false}, {"json", false}, {"sarif", false}, {"github", false}, {"JSON", true}, {"", true}, {"xml", true}} {
		_, err := ParseFormat(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseFormat(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
		}
	}
	if err := Render(&bytes.Buffer{}, Format("xml"), nil, Options{}); err == nil {
		t.Error("Render with an unknown format gave no error")
	}
}

func TestEscapes(t *testing.T) {
	for _, tc := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"a%b", "a%25b", "a%25b"},
		{"l1\nl2\r", "l1%0Al2%0D", "l1%0Al2%0D"},
		{"C:\\x,y", "C:\\x,y", "C%3A\\x%2Cy"},
	} {
		if got := escapeData(tc.in); got != tc.data {
			t.Errorf("escapeData(%q) = %q, want %q", tc.in, got, tc.data)
		}
		if got := escapeProperty(tc.in); got != tc.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tc.in, got, tc.prop)
		}
	}
}

func TestArtifactOf(t *testing.T) {
	for _, tc := range []struct{ file, base, uri, baseID string }{
		{"a/b.yaml", "/w", "a/b.yaml", srcRoot},
		{"/w/a/b c.yaml", "/w", "a/b%20c.yaml", srcRoot},
		{"/elsewhere/b.yaml", "/w", "file:///elsewhere/b.yaml", ""},
		{"/w/b.yaml", "", "file:///w/b.yaml", ""},
	} {
		got := artifactOf(tc.file, tc.base)
		if got.URI != tc.uri || got.URIBaseID != tc.baseID {
			t.Errorf("artifactOf(%q, %q) = %+v, want %q %q", tc.file, tc.base, got, tc.uri, tc.baseID)
		}
	}
}

func TestLongLineSnippet(t *testing.T) {
	line := strings.Repeat("é", 1000) + "TARGET" + strings.Repeat("x", 1000)
	src := func(string) ([]byte, bool) { return []byte("k: " + line + "\n"), true }
	col := 3 + 1000 + 1
	d := diag.Diagnostic{Severity: diag.Error, Range: diag.Range{File: "f", Start: pos(1, col, 0), End: pos(1, col+6, 0)}}
	sn, ok := newLineCache(src).snippetOf(d)
	if !ok {
		t.Fatal("no snippet")
	}
	if len(sn.Code) > maxSnippetBytes+4 {
		t.Errorf("snippet is %d bytes", len(sn.Code))
	}
	if got := sn.Code[sn.HighlightStart:sn.HighlightEnd]; got != "TARGET" {
		t.Errorf("highlight = %q, want TARGET", got)
	}
}

// TestSensitiveDiagnosticShowsNoSourceLine checks that no format shows
// the source line of a diagnostic marked Sensitive, which may hold the
// secret it is about, while its position is still reported.
func TestSensitiveDiagnosticShowsNoSourceLine(t *testing.T) {
	const secret = "eighty" // on line 7 of webFile
	ds := diag.Diagnostics{{Severity: diag.Error, Code: "tosca.constraint", Summary: `property "port": the value does not satisfy "min_length: 8"`,
		Range: diag.Range{File: webFile, Start: pos(7, 15, 0), End: pos(7, 23, 0)}, Sensitive: true}}
	for _, f := range Formats() {
		var b bytes.Buffer
		if err := Render(&b, Format(f), ds, options(false, false)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), secret) {
			t.Errorf("%s shows the source line %q:\n%s", f, secret, b.String())
		}
		if !strings.Contains(b.String(), "7") {
			t.Errorf("%s lost the position:\n%s", f, b.String())
		}
	}
}
