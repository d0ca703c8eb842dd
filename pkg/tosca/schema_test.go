package tosca

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// compileSchema compiles a JSON Schema with santhosh-tekuri/jsonschema,
// which checks that it is a valid draft 2020-12 schema.
func compileSchema(t *testing.T, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	return s
}

// jsonValue is a YAML document as the YAML language server hands it to a
// JSON Schema: JSON values (a float JSON cannot hold becomes its text).
func jsonValue(t *testing.T, n *yamlsrc.Node) any {
	t.Helper()
	v := n.Interface()
	data, err := json.Marshal(finite(v))
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func finite(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = finite(e)
		}
	case []any:
		for i, e := range x {
			x[i] = finite(e)
		}
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return "NaN or Inf"
		}
	}
	return v
}

// validCorpusFiles lists the files of the corpus that its expectations
// call valid TOSCA 1.x: tosca/ and realworld/ rows marked valid, and the
// XOS recipes with their custom types.
func validCorpusFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	disputed := readRealworldExceptions(t)
	for _, sub := range []string{"tosca", "realworld"} {
		base := testutil.CorpusDir(t, sub)
		for _, row := range readTSV(t, filepath.Join(base, "EXPECTED.tsv")) {
			if len(row) < 2 || row[1] != "valid" {
				continue
			}
			// A row xosplan's realworld test holds invalid by the
			// specification (exceptions.tsv gives each reason) is
			// not a valid file.
			if e, ok := disputed[row[0]]; ok && sub == "realworld" && e.verdict == "invalid" {
				continue
			}
			out = append(out, filepath.Join(base, row[0]))
		}
	}
	for _, glob := range []string{"recipes/*.yaml", "custom_types/*.yaml"} {
		m, err := filepath.Glob(filepath.Join(testutil.CorpusDir(t, "xos-recipes"), glob))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m...)
	}
	return out
}

// TestJSONSchemaAcceptsEveryValidCorpusFile checks the schema `xosplan
// schema tosca` prints against every valid TOSCA 1.x file of the corpus,
// and that it still rejects what Compile rejects as misplaced keys.
func TestJSONSchemaAcceptsEveryValidCorpusFile(t *testing.T) {
	data, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	s := compileSchema(t, data)
	files := validCorpusFiles(t)
	if len(files) < 600 {
		t.Fatalf("only %d valid corpus files found", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		root, diags := yamlsrc.Parse(f, src, yamlsrc.Limits{})
		if diags.HasErrors() || root == nil {
			t.Errorf("%s: %v", f, diags.Err())
			continue
		}
		if err := s.Validate(jsonValue(t, root)); err != nil {
			t.Errorf("%s fails the schema: %v", strings.TrimPrefix(f, testutil.CorpusDir(t)), err)
		}
	}
	for _, bad := range []string{
		"tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_templates: {}\n",
		"tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root, propertes: {}}\n",
		"tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root, requirements: {host: b}}\n",
	} {
		root, _ := yamlsrc.Parse("bad.yaml", []byte(bad), yamlsrc.Limits{})
		if s.Validate(jsonValue(t, root)) == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}
