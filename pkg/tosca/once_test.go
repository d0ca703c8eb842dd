package tosca

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// TestNoDiagnosticTwice compiles every row of the real-world corpus's and
// the TOSCA corpus's EXPECTED.tsv (as TestRealWorld and TestConformance
// do) and every error fixture, and wants no diagnostic given twice: one
// cause, one message, even when several YAML paths reach it (an
// interface's inputs are evaluated for each of its operations). The same
// code, range and summary is the same diagnostic.
func TestNoDiagnosticTwice(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	rows := func(source string) []string {
		base := filepath.Join(corpus, source)
		var files []string
		for _, r := range readTSV(t, filepath.Join(base, "EXPECTED.tsv")) {
			files = append(files, filepath.Join(base, r[0]))
		}
		return files
	}
	fixtures, err := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files []string
		root  string
	}{
		// The corpus's files import each other across its folders.
		{"realworld", rows("realworld"), corpus},
		{"tosca", rows("tosca"), corpus},
		{"errors", fixtures, "testdata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.files) == 0 {
				t.Fatal("no files")
			}
			opts := Options{Root: rootAt(t, tc.root)}
			type key struct {
				code, summary string
				rng           diag.Range
			}
			for _, f := range tc.files {
				_, diags := Compile(context.Background(), f, opts)
				seen := map[key]bool{}
				for _, d := range diags {
					k := key{d.Code, d.Summary, d.Range}
					if seen[k] {
						t.Errorf("given twice: %s", d.Error())
					}
					seen[k] = true
				}
			}
			t.Logf("%d files compiled", len(tc.files))
		})
	}
}
