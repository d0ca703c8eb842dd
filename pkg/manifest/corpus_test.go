package manifest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(testutil.CorpusDir(t, "tonomi"), "*.yml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus manifests: %v", err)
	}
	return files
}

// TestCorpus loads every real manifest alone: none may have an error.
func TestCorpus(t *testing.T) {
	total := 0
	for _, f := range corpusFiles(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			g, diags := CompileEnvironment(context.Background(), []string{f}, Options{})
			for _, d := range diags {
				if d.Severity == diag.Error {
					t.Errorf("%s [%s]", d.Error(), d.Code)
				} else {
					t.Logf("%s [%s]", d.Error(), d.Code)
				}
			}
			_, w := diags.Count()
			total += w
			if g == nil || g.Len() == 0 {
				t.Errorf("compiled to no resources")
			}
		})
	}
	t.Logf("%d warnings over the corpus", total)
}

// TestCorpusAsOneEnvironment loads the whole folder as one environment.
// It mixes unrelated applications, so services may resolve across them
// or be ambiguous (warnings), but it must stay free of errors: nothing in
// one file can make another file wrong, except duplicate addresses, and
// the application-name prefix rules those out.
func TestCorpusAsOneEnvironment(t *testing.T) {
	dir := testutil.CorpusDir(t, "tonomi")
	g, diags := CompileEnvironment(context.Background(), []string{dir}, Options{})
	byCode := map[string]int{}
	for _, d := range diags {
		if d.Severity == diag.Error {
			t.Errorf("%s [%s]", d.Error(), d.Code)
		}
		byCode[d.Code]++
	}
	t.Logf("warnings by code: %v", byCode)
	if g == nil {
		t.Fatal("no graph")
	}
	if n := len(corpusFiles(t)); len(g.Sources) != n {
		t.Errorf("graph has %d sources, want %d", len(g.Sources), n)
	}
	if cycles := g.Cycles(); len(cycles) > 0 {
		for _, c := range cycles {
			var parts []string
			for _, e := range c {
				parts = append(parts, e.Source+" -> "+e.Target+" ("+e.Name+")")
			}
			t.Logf("cycle: %s", strings.Join(parts, "; "))
		}
	}
}
