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
// call valid: tosca/, realworld/ and tosca2/ (TOSCA 2.0) rows marked
// valid, and the XOS recipes with their custom types.
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
	// Every valid row of the TOSCA 2.0 suite, those whose verdict xosplan
	// disputes included (TestJSONSchemaAcceptsEveryValidCorpusFile lets
	// those fail, for the reason each gives).
	base := testutil.CorpusDir(t, "tosca2")
	for _, row := range readTSV(t, filepath.Join(base, "EXPECTED.tsv")) {
		if len(row) >= 2 && row[1] == "valid" {
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
// schema tosca` prints against every valid TOSCA 1.x and 2.0 file of the
// corpus, and that it still rejects what Compile rejects as misplaced
// keys, in either version, and the invalid 2.0 files of the corpus whose
// fault is one of shape.
func TestJSONSchemaAcceptsEveryValidCorpusFile(t *testing.T) {
	data, err := JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	s := compileSchema(t, data)
	files := validCorpusFiles(t)
	if len(files) < 700 {
		t.Fatalf("only %d valid corpus files found", len(files))
	}
	// A row of the 2.0 suite whose verdict xosplan disputes by the
	// specification may fail for the reason its exception gives.
	disputed := map[string]string{}
	for _, r := range readTSV(t, filepath.Join("testdata", "conformance2", "exceptions.tsv")) {
		if len(r) == 3 {
			disputed[filepath.Join(testutil.CorpusDir(t, "tosca2"), r[0])] = r[2]
		}
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
			if why, ok := disputed[f]; ok {
				t.Logf("%s fails the schema, as xosplan holds it invalid: %s", strings.TrimPrefix(f, testutil.CorpusDir(t)), why)
				continue
			}
			t.Errorf("%s fails the schema: %v", strings.TrimPrefix(f, testutil.CorpusDir(t)), err)
		}
	}
	for _, bad := range []string{
		"tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_templates: {}\n",
		"tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root, propertes: {}}\n",
		"tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a: {type: tosca.nodes.Root, requirements: {host: b}}\n",
		"tosca_definitions_version: tosca_simple_yaml_1_3\nservice_template:\n  node_templates: {}\n",
		"tosca_definitions_version: tosca_2_0\ntopology_template:\n  node_templates: {}\n",
		"tosca_definitions_version: tosca_2_0\nservice_template:\n  inputs: {}\n",
		"tosca_definitions_version: tosca_2_0\nservice_template:\n  node_templates:\n    a: {type: Root, propertes: {}}\n",
		"tosca_definitions_version: tosca_2_0\nservice_template:\n  node_templates:\n    a: {type: Root, requirements: {host: b}}\n",
		"tosca_definitions_version: tosca_2_0\nimports:\n  - {url: a.yaml, namespace_url: x}\n",
		"tosca_definitions_version: tosca_2_0\nnode_types:\n  A: {derived_from: Root, requirements: {host: Compute}}\n",
	} {
		root, _ := yamlsrc.Parse("bad.yaml", []byte(bad), yamlsrc.Limits{})
		if s.Validate(jsonValue(t, root)) == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
	base := testutil.CorpusDir(t, "tosca2")
	for _, bad := range []string{
		"tests/tosca_2_0/function-definitions/functions-invalid-empty.yaml",   // profiles: is no keyname
		"tests/tosca_2_0/node-types/node-types-invalid-list.yaml",             // node_types a list
		"tests/tosca_2_0/description/description-invalid_non_string.yaml",     // description a map
		"tests/tosca_2_0/output-parameters/output-parameters-listed-inv.yaml", // outputs a list
		"tests/tosca_2_0/relationship-templates/relationship-templates-empty-inv.yaml",
		"tests/tosca_2_0/repository-definitions/repositories-invalid-list.yaml",
		"tests/tosca_2_0/capability-type/capability-type-attrs-as-list-inv.yaml",
	} {
		src, err := os.ReadFile(filepath.Join(base, bad))
		if err != nil {
			t.Fatal(err)
		}
		root, _ := yamlsrc.Parse(bad, src, yamlsrc.Limits{})
		if s.Validate(jsonValue(t, root)) == nil {
			t.Errorf("the schema accepts the invalid %s", bad)
		}
	}
}
