package tosca

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// TestErrorFixtures compiles each testdata/errors/*.yaml and compares its
// diagnostics with the `# ERROR: <substring>` and `# WARNING: <substring>`
// comments written on the offending lines: every comment must be matched
// by a diagnostic of that severity on that line whose summary contains the
// substring, and every error must be expected; in a fixture that says
// "# every warning is marked", every warning too. Helper files a fixture
// imports are named <fixture>.<part>.yaml and carry their own comments.
func TestErrorFixtures(t *testing.T) {
	fixtures, err := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fixtures {
		base := filepath.Base(f)
		if strings.Count(base, ".") > 1 {
			continue // a helper file
		}
		n++
		t.Run(strings.TrimSuffix(base, ".yaml"), func(t *testing.T) {
			_, diags := Compile(context.Background(), f, Options{Root: rootAt(t, "testdata")})
			files := []string{f}
			helpers, _ := filepath.Glob(strings.TrimSuffix(f, ".yaml") + ".*.yaml")
			files = append(files, helpers...)
			want := map[string][]string{} // "file:line" → "error: substring"
			for _, file := range files {
				for k, v := range expectations(t, file) {
					want[k] = append(want[k], v...)
				}
			}
			got := map[string][]diag.Diagnostic{}
			for _, d := range diags {
				k := fmt.Sprintf("%s:%d", filepath.Clean(d.Range.File), d.Range.Start.Line)
				got[k] = append(got[k], d)
			}
			for _, k := range slices.Sorted(maps.Keys(want)) {
				for _, w := range want[k] {
					sev, sub, _ := strings.Cut(w, ": ")
					ok := false
					for _, d := range got[k] {
						ok = ok || (d.Severity.String() == sev && strings.Contains(d.Summary, sub))
					}
					if !ok {
						t.Errorf("%s: want %s containing %q; got %s", k, sev, sub, describe(got[k]))
					}
				}
			}
			allWarnings := marksEveryWarning(t, f)
			keys := slices.Sorted(maps.Keys(got))
			sort.Strings(keys)
			for _, k := range keys {
				for _, d := range got[k] {
					if d.Severity != diag.Error && !allWarnings {
						continue
					}
					expected := false
					for _, w := range want[k] {
						sev, sub, _ := strings.Cut(w, ": ")
						expected = expected || (sev == d.Severity.String() && strings.Contains(d.Summary, sub))
					}
					if !expected {
						t.Errorf("%s: unexpected %s %q [%s]", k, d.Severity, d.Summary, d.Code)
					}
					if d.Severity != diag.Error {
						continue
					}
					if d.Code == "" || !strings.Contains(d.Code, ".") {
						t.Errorf("%s: diagnostic without a dotted code: %q", k, d.Summary)
					}
					if d.Range.Start.Line == 0 || d.Range.File == "" {
						t.Errorf("%s: diagnostic without a position: %q", k, d.Summary)
					}
					if d.Path == "" && !strings.HasPrefix(d.Code, "yaml.") && d.Code != CodeVersion {
						t.Errorf("%s: diagnostic without a YAML path: %q [%s]", k, d.Summary, d.Code)
					}
				}
			}
		})
	}
	if n < 40 {
		t.Errorf("only %d error fixtures; each class of error needs one", n)
	}
}

func describe(ds []diag.Diagnostic) string {
	if len(ds) == 0 {
		return "nothing"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Severity.String() + " " + core.Quote(d.Summary)
	}
	return strings.Join(parts, "; ")
}

// expectations reads the ERROR/WARNING comments of a file.
func expectations(t *testing.T, file string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, m := range testutil.FileMarkers(t, file) {
		k := fmt.Sprintf("%s:%d", filepath.Clean(file), m.Line)
		out[k] = append(out[k], m.Severity+": "+m.Text)
	}
	return out
}

// marksEveryWarning reports whether a fixture says that its comments mark
// every warning it gives, not only every error.
func marksEveryWarning(t *testing.T, file string) bool {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), "\n# every warning is marked\n")
}
