package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
)

// TestExamples validates the bundled examples: the good ones without an
// error, and examples/broken with exactly the problems its `# ERROR:` and
// `# WARNING:` comments announce, on their lines.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "..", "examples")
	for _, good := range []string{"webstack", "xos", "petclinic", "tosca2", "ansible"} {
		dir := filepath.Join(root, good)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: %v (skipped)", good, err)
			continue
		}
		var opts config.Options
		if good == "tosca2" {
			// The TOSCA 2.0 example imports its own profile by name.
			opts.ProfilePath = []string{filepath.Join(dir, "profiles")}
		}
		res := config.Load(context.Background(), []string{dir}, opts)
		for _, d := range res.Diags {
			t.Errorf("%s: %s", good, d.Error())
		}
		if len(res.Units) == 0 {
			t.Errorf("%s: nothing compiled", good)
		}
		for _, u := range res.Units {
			if isProfile := strings.Contains(u.Files[0], string(filepath.Separator)+"profiles"+string(filepath.Separator)); isProfile {
				continue
			}
			if u.Graph == nil || u.Graph.Len() == 0 {
				t.Errorf("%s: %v compiled to an empty graph", good, u.Files)
			}
		}
	}

	broken := filepath.Join(root, "broken", "broken.yaml")
	want := expectations(t, broken)
	res := config.Load(context.Background(), []string{broken}, config.Options{})
	got := map[int]diag.Severity{}
	for _, d := range res.Diags {
		if d.Range.File != broken {
			t.Errorf("diagnostic in another file: %s", d.Error())
			continue
		}
		if s, ok := got[d.Range.Start.Line]; !ok || d.Severity < s {
			got[d.Range.Start.Line] = d.Severity
		}
		if w, ok := want[d.Range.Start.Line]; !ok || w != d.Severity {
			t.Errorf("unannounced %s", d.Error())
		}
	}
	for line, sev := range want {
		if got[line] != sev {
			t.Errorf("%s:%d: announced %s not reported", broken, line, sev)
		}
	}
}

// expectations reads the `# ERROR:` / `# WARNING:` comments of a fixture:
// the severity of each line's first marker.
func expectations(t *testing.T, path string) map[int]diag.Severity {
	t.Helper()
	want := map[int]diag.Severity{}
	for _, m := range testutil.FileMarkers(t, path) {
		if _, seen := want[m.Line]; !seen {
			want[m.Line] = map[string]diag.Severity{testutil.SeverityError: diag.Error, testutil.SeverityWarning: diag.Warning}[m.Severity]
		}
	}
	return want
}

// TestMachineFormatsOfBrokenExample runs validate on examples/broken in the
// machine formats and checks the documents as their consumers would: the
// SARIF log against the reduced SARIF 2.1.0 schema, the JSON document's
// counts, and one GitHub command per diagnostic.
func TestMachineFormatsOfBrokenExample(t *testing.T) {
	broken := filepath.Join("..", "..", "examples", "broken")
	want := len(expectations(t, filepath.Join(broken, "broken.yaml")))
	validate := func(format string) []byte {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), []string{"validate", "--format", format, broken}, nil, &out, &errOut); code != 1 {
			t.Fatalf("%s: exit %d, want 1; stderr: %s", format, code, errOut.String())
		}
		return out.Bytes()
	}

	sch, err := jsonschema.NewCompiler().Compile(filepath.Join("internal", "diagview", "testdata", "sarif-2.1.0-reduced.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(validate("sarif")))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("SARIF output does not match the schema: %v", err)
	}

	var report struct {
		Valid        bool              `json:"valid"`
		ErrorCount   int               `json:"error_count"`
		WarningCount int               `json:"warning_count"`
		Diagnostics  []json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal(validate("json"), &report); err != nil {
		t.Fatal(err)
	}
	if report.Valid || report.ErrorCount+report.WarningCount != want || len(report.Diagnostics) != want {
		t.Errorf("JSON report: valid %v, %d errors, %d warnings, %d diagnostics; want %d diagnostics",
			report.Valid, report.ErrorCount, report.WarningCount, len(report.Diagnostics), want)
	}

	if n := bytes.Count(validate("github"), []byte("\n::")) + 1; n != want {
		t.Errorf("%d GitHub commands, want %d", n, want)
	}
}

// TestQuickStartNamesWhatTheDemoRuns: the README's quick start names every
// interpreter the examples' scripts need, since make demo runs them all
// (it said only Go and make were needed while the demo needs python3).
func TestQuickStartNamesWhatTheDemoRuns(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, quick, ok := strings.Cut(string(readme), "## Quick start")
	if !ok {
		t.Fatal("README.md has no Quick start section")
	}
	quick, _, _ = strings.Cut(quick, "\n## ")
	need := map[string]string{".py": "python3", ".sh": "sh"}
	err = filepath.WalkDir(filepath.Join("..", "..", "examples"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if interp, ok := need[filepath.Ext(path)]; ok && !regexp.MustCompile("`"+interp+"`").MatchString(quick) {
			t.Errorf("the examples run %s (%s), which the quick start does not name", interp, path)
			delete(need, filepath.Ext(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
