package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// TestJSONSchemaAcceptsEveryCorpusManifest checks the schema `xosplan
// schema manifest` prints against the Tonomi corpus (every manifest there
// was deployable) and the examples, and that it rejects what the loader
// rejects as misplaced keys.
func TestJSONSchemaAcceptsEveryCorpusManifest(t *testing.T) {
	data, err := JSONSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("manifest.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("manifest.json")
	if err != nil {
		t.Fatalf("the schema does not compile: %v", err)
	}
	valueOf := func(src []byte) any {
		root, diags := yamlsrc.Parse("m.yml", src, yamlsrc.Limits{})
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		js, err := json.Marshal(root.Interface())
		if err != nil {
			t.Fatal(err)
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	files, _ := filepath.Glob(filepath.Join(testutil.CorpusDir(t, "tonomi"), "*.yml"))
	examples, _ := filepath.Glob(filepath.Join(testutil.ModuleRoot(t), "examples", "*", "*.yml"))
	files = append(files, examples...)
	policy := filepath.Join(t.TempDir(), "net.yml")
	if err := os.WriteFile(policy, []byte("application:\n  components:\n    lan: {type: workflow.Instance}\n  policies:\n    monitors:\n      implementation: policies/monitor.sh\n      targets: [lan]\n      timeout: 30\n      configuration: {interval: 60}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, policy)
	if len(files) < 30 {
		t.Fatalf("only %d manifests found", len(files))
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(valueOf(src)); err != nil {
			t.Errorf("%s fails the schema: %v", filepath.Base(f), err)
		}
	}
	for _, bad := range []string{
		"application:\n  componets: {}\n",
		"application: {}\nextra: 1\n",
		"application:\n  bindings:\n    - [a, b, c]\n",
		"application:\n  components:\n    a:\n      policies: {}\n",
	} {
		if s.Validate(valueOf([]byte(bad))) == nil {
			t.Errorf("the schema accepts %q", bad)
		}
	}
}
