package tosca

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestGolden compiles representative templates and compares the graph,
// rendered as deterministic JSON, with testdata/golden/<case>/graph.json.
// Rewrite with XOSPLAN_UPDATE=1 (testutil.Golden).
func TestGolden(t *testing.T) {
	corpus := testutil.CorpusDirOrEmpty()
	example2 := filepath.Join("..", "..", "examples", "tosca2")
	cases := []struct{ name, path, profiles string }{
		{"webstack", filepath.Join("testdata", "golden", "webstack", "template.yaml"), ""},
		{"xos-link", filepath.Join(corpus, "xos-recipes", "recipes", "03-xostosca-link.yaml"), ""},
		{"xos-bbsim", filepath.Join(corpus, "xos-recipes", "recipes", "07-helm-bbsim-16.yaml"), ""},
		// TOSCA 2.0: count, a profile by name, paths through requirements.
		{"tosca2", filepath.Join(example2, "stack.yaml"), filepath.Join(example2, "profiles")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skipf("input not available: %v", err)
			}
			var opts Options
			if corpus != "" && strings.HasPrefix(tc.path, corpus) {
				opts.Root = rootAt(t, corpus)
			}
			if tc.profiles != "" {
				opts.ProfilePath = []string{tc.profiles}
			}
			g, diags := Compile(context.Background(), tc.path, opts)
			requireNoErrors(t, diags)
			got := renderGraph(t, g, filepath.Dir(tc.path))
			testutil.Golden(t, filepath.Join("testdata", "golden", tc.name, "graph.json"), got)
		})
	}
}

// renderGraph renders the graph as indented JSON with source paths made
// relative to dir, so the golden file does not depend on the checkout.
func renderGraph(t *testing.T, g *graph.Graph, dir string) []byte {
	t.Helper()
	type edge struct {
		graph.Edge
		At string `json:"at"`
	}
	type resource struct {
		*graph.Resource
		At string `json:"at"`
	}
	// A profile found on the search path is named by its absolute path.
	absDir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel := func(s string) string {
		base := dir
		if filepath.IsAbs(s) {
			base = absDir
		}
		if r, err := filepath.Rel(base, s); err == nil {
			return r
		}
		return s
	}
	var out struct {
		Resources []resource             `json:"resources"`
		Edges     []edge                 `json:"edges"`
		Outputs   map[string]graph.Value `json:"outputs"`
		Sources   []string               `json:"sources"`
	}
	for _, r := range g.Resources() {
		at := r.Range
		at.File = rel(at.File)
		out.Resources = append(out.Resources, resource{r, at.String()})
	}
	for _, e := range g.Edges() {
		at := e.Range
		at.File = rel(at.File)
		out.Edges = append(out.Edges, edge{e, at.String()})
	}
	out.Outputs = g.Outputs
	for _, s := range g.Sources {
		out.Sources = append(out.Sources, rel(s))
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
