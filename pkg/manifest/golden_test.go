package manifest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
)

// relCorpus returns the corpus folder relative to the test's directory, so
// that Sources in golden files do not depend on where the checkout is.
func relCorpus(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, testutil.CorpusDir(t, "tonomi"))
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

// TestGolden compiles a few environments and compares the IR, rendered
// as indented JSON, with testdata/golden/<name>.json.
func TestGolden(t *testing.T) {
	corpus := relCorpus(t)
	for _, tc := range []struct {
		name  string
		paths []string
	}{
		{"petclinic", []string{"../../examples/petclinic"}},
		{"starter-java-web", []string{filepath.Join(corpus, "starter-java-web__starter-java-web.yml")}},
		{"zookeeper", []string{filepath.Join(corpus, "component-zookeeper-dev__component-zookeeper-dev.yml")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, diags := CompileEnvironment(context.Background(), tc.paths, Options{})
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			got := renderGraph(t, g)
			testutil.Golden(t, filepath.Join("testdata", "golden", tc.name+".json"), got)
			if cycles := g.Cycles(); len(cycles) > 0 {
				t.Errorf("compiled graph has dependency cycles: %v", cycles)
			}
		})
	}
}

func renderGraph(t *testing.T, g *graph.Graph) []byte {
	t.Helper()
	out, err := json.MarshalIndent(struct {
		Sources   []string               `json:"sources"`
		Resources []*graph.Resource      `json:"resources"`
		Edges     []graph.Edge           `json:"edges"`
		Outputs   map[string]graph.Value `json:"outputs"`
	}{g.Sources, g.Resources(), g.Edges(), g.Outputs}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}
