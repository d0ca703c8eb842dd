package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

// TestExamples validates the bundled examples: the good ones without an
// error, and examples/broken with exactly the problems its `# ERROR:` and
// `# WARNING:` comments announce, on their lines.
func TestExamples(t *testing.T) {
	root := filepath.Join("..", "..", "examples")
	for _, good := range []string{"webstack", "xos", "petclinic"} {
		dir := filepath.Join(root, good)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: %v (skipped)", good, err)
			continue
		}
		res := loadConfig(context.Background(), []string{dir}, loadOptions{})
		for _, d := range res.Diags {
			t.Errorf("%s: %s", good, d.Error())
		}
		if len(res.Units) == 0 {
			t.Errorf("%s: nothing compiled", good)
		}
		for _, u := range res.Units {
			if u.Graph == nil || u.Graph.Len() == 0 {
				t.Errorf("%s: %v compiled to an empty graph", good, u.Files)
			}
		}
	}

	broken := filepath.Join(root, "broken", "broken.yaml")
	want := expectations(t, broken)
	res := loadConfig(context.Background(), []string{broken}, loadOptions{})
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

var marker = regexp.MustCompile(`#\s*(ERROR|WARNING):`)

// expectations reads the `# ERROR:` / `# WARNING:` comments of a fixture.
func expectations(t *testing.T, path string) map[int]diag.Severity {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]diag.Severity{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if m := marker.FindStringSubmatch(sc.Text()); m != nil {
			want[n] = map[string]diag.Severity{"ERROR": diag.Error, "WARNING": diag.Warning}[m[1]]
		}
	}
	return want
}
