package manifest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// markers reads the `# ERROR: text` and `# WARNING: text` comments of a
// fixture, keyed by "file:line".
func markers(t *testing.T, files []string) map[string][]testutil.Marker {
	out := map[string][]testutil.Marker{}
	for _, f := range files {
		for _, m := range testutil.FileMarkers(t, f) {
			key := f + ":" + strconv.Itoa(m.Line)
			out[key] = append(out[key], m)
		}
	}
	return out
}

// TestErrorFixtures compiles every fixture under testdata/errors (a file,
// or a folder as one environment) and checks that each diagnostic sits on
// a line whose marker it matches, and that every marker is met.
func TestErrorFixtures(t *testing.T) {
	entries, err := os.ReadDir("testdata/errors")
	if err != nil {
		t.Fatal(err)
	}
	// TestEnvironmentInputs covers unreadable files, TestRefusedEdgeIsADiagnostic
	// the internal error no manifest can cause.
	seen := map[string]bool{CodeRead: true, CodeInternal: true}
	t.Cleanup(func() {
		for _, code := range documentedCodes(t) {
			if !seen[code] && !t.Failed() {
				t.Errorf("no fixture under testdata/errors produces %s", code)
			}
		}
	})
	for _, e := range entries {
		path := filepath.Join("testdata/errors", e.Name())
		t.Run(e.Name(), func(t *testing.T) {
			files := []string{path}
			if e.IsDir() {
				files, _ = filepath.Glob(filepath.Join(path, "*.y*ml"))
			}
			want := markers(t, files)
			if len(want) == 0 {
				t.Fatal("fixture has no # ERROR: or # WARNING: marker")
			}
			_, diags := CompileEnvironment(context.Background(), []string{path}, Options{})
			met := map[string][]bool{}
			for k, ms := range want {
				met[k] = make([]bool, len(ms))
			}
			for _, d := range diags {
				seen[d.Code] = true
				if d.Range.File == "" || d.Range.Start.Line == 0 {
					t.Errorf("diagnostic without a position: %s", d.Error())
					continue
				}
				key := d.Range.File + ":" + strconv.Itoa(d.Range.Start.Line)
				i := slices.IndexFunc(want[key], func(m testutil.Marker) bool {
					return m.Severity == d.Severity.String() && strings.Contains(d.Summary, m.Text)
				})
				if i < 0 {
					t.Errorf("unexpected %s [%s]", d.Error(), d.Code)
					continue
				}
				met[key][i] = true
			}
			for k, ms := range want {
				for i, m := range ms {
					if !met[k][i] {
						t.Errorf("%s: no %s containing %q", k, m.Severity, m.Text)
					}
				}
			}
		})
	}
}

var (
	tableRE = regexp.MustCompile(`(?m)^//\t(manifest\.[a-z_]+)\s`)
	constRE = regexp.MustCompile(`(?m)^\tCode\w+\s*=\s*"(manifest\.[a-z_]+)"`)
)

// documentedCodes returns the codes of doc.go's table, checking that the
// table and the constants agree.
func documentedCodes(t *testing.T) []string {
	data, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var table, consts []string
	for _, m := range tableRE.FindAllStringSubmatch(string(data), -1) {
		table = append(table, m[1])
	}
	for _, m := range constRE.FindAllStringSubmatch(string(data), -1) {
		consts = append(consts, m[1])
	}
	slices.Sort(table)
	slices.Sort(consts)
	if !slices.Equal(table, consts) || len(table) == 0 {
		t.Errorf("doc.go's table lists %v but the constants are %v", table, consts)
	}
	return consts
}

// TestRefusedEdgeIsADiagnostic: an edge the graph refuses (here, to a
// resource it does not hold, which compile never asks for) is an internal
// error at the edge's position, not a dependency silently lost.
func TestRefusedEdgeIsADiagnostic(t *testing.T) {
	g := graph.New()
	if err := g.AddResource(&graph.Resource{Address: "app.web"}); err != nil {
		t.Fatal(err)
	}
	at := diag.Range{File: "app.yml", Start: diag.Pos{Line: 7, Column: 5}}
	diags := addEdge(g, graph.Edge{Source: "app.web", Target: "app.db", Kind: graph.Binding, Range: at})
	if len(diags) != 1 || diags[0].Severity != diag.Error || diags[0].Code != CodeInternal || diags[0].Range != at ||
		!strings.Contains(diags[0].Summary, "app.web on app.db") {
		t.Fatalf("diagnostics %v, want one %s at %v naming both ends", diags, CodeInternal, at)
	}
	if err := g.AddResource(&graph.Resource{Address: "app.db"}); err != nil {
		t.Fatal(err)
	}
	if diags := addEdge(g, graph.Edge{Source: "app.web", Target: "app.db", Kind: graph.Binding, Range: at}); len(diags) != 0 || len(g.Edges()) != 1 {
		t.Errorf("an edge between resources the graph holds: %v, edges %v", diags, g.Edges())
	}
}
