package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestXOSRecipes compiles every recipe of the XOS corpus twice: with its
// custom_types folder on disk (the corpus layout) and alone in a fresh
// folder, where custom_types/<model>.yaml must come from the embedded
// custom_definitions. Both must give no errors.
func TestXOSRecipes(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	recipes, err := filepath.Glob(filepath.Join(corpus, "xos-recipes", "recipes", "*.yaml"))
	if err != nil || len(recipes) == 0 {
		t.Fatalf("no recipes: %v", err)
	}
	opts := Options{Root: rootAt(t, corpus)}
	for _, r := range recipes {
		t.Run(filepath.Base(r), func(t *testing.T) {
			g, diags := Compile(context.Background(), r, opts)
			requireNoErrors(t, diags)
			if g == nil || g.Len() == 0 {
				t.Fatalf("empty graph")
			}
			if cycles := g.Cycles(); len(cycles) > 0 {
				t.Errorf("dependency cycles: %v", cycles)
			}
			data, err := os.ReadFile(r)
			if err != nil {
				t.Fatal(err)
			}
			alone := filepath.Join(t.TempDir(), filepath.Base(r))
			if err := os.WriteFile(alone, data, 0o644); err != nil {
				t.Fatal(err)
			}
			g2, diags2 := Compile(context.Background(), alone, Options{})
			requireNoErrors(t, diags2)
			if g2 == nil || g2.Len() != g.Len() {
				t.Errorf("embedded types: %d resources, on-disk types: %d", lenOf(g2), g.Len())
			}
		})
	}
}

func lenOf(g *graph.Graph) int {
	if g == nil {
		return -1
	}
	return g.Len()
}

func requireNoErrors(t *testing.T, diags diag.Diagnostics) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == diag.Error {
			t.Errorf("%s [%s]", d.Error(), d.Code)
		}
	}
}

// TestXOSSemantics checks what the XOS compatibility phase adds to the
// graph: must-exist makes a resource unmanaged, lookup keys come from
// properties and from requirements (<link>_id), and BelongsToOne
// requirements become depends_on edges.
func TestXOSSemantics(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	g, diags := Compile(context.Background(), filepath.Join(corpus, "xos-recipes", "recipes", "03-xostosca-link.yaml"), Options{Root: rootAt(t, corpus)})
	requireNoErrors(t, diags)
	site, ok := g.Resource("mysite")
	if !ok {
		t.Fatal("no mysite")
	}
	if site.Management != graph.Unmanaged {
		t.Errorf("mysite management = %s, want unmanaged (must-exist)", site.Management)
	}
	if site.Lookup["name"] != "mysite" {
		t.Errorf("mysite lookup = %v", site.Lookup)
	}
	link, ok := g.Resource("link1")
	if !ok {
		t.Fatal("no link1")
	}
	if link.Lookup["provider_service_instance_id"] != "test1" || link.Lookup["subscriber_service_instance_id"] != "test2" {
		t.Errorf("link1 lookup = %v", link.Lookup)
	}
	found := false
	for _, e := range edgesFrom(g, "link1") {
		if e.Target == "test1" && e.Kind == graph.DependsOn && e.Name == "provider_service_instance" {
			found = true
		}
	}
	if !found {
		t.Errorf("link1 edges = %v", edgesFrom(g, "link1"))
	}
	warned := false
	for _, d := range diags {
		warned = warned || d.Code == CodeDuplicateKey
	}
	if !warned {
		t.Errorf("expected a %s warning for the repeated BelongsToOne keys", CodeDuplicateKey)
	}
}
