package planner

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

var update = flag.Bool("update", false, "rewrite golden files")

// irFixture is the JSON form of a desired graph in test fixtures.
type irFixture struct {
	Sources   []string          `json:"sources"`
	Resources []*graph.Resource `json:"resources"`
	Edges     []graph.Edge      `json:"edges"`
}

// optionsFixture is options.json of a case.
type optionsFixture struct {
	Destroy             bool     `json:"destroy"`
	RefreshOnly         bool     `json:"refresh_only"`
	Targets             []string `json:"targets"`
	Excludes            []string `json:"excludes"`
	Replace             []string `json:"replace"`
	CreateBeforeDestroy bool     `json:"create_before_destroy"`
}

func decodeJSON(t testing.TB, path string, v any) bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return true
}

func canonicalMap(m map[string]graph.Value) map[string]graph.Value {
	if m == nil {
		return nil
	}
	v, _ := graph.DecodeValue(map[string]any(m)).(map[string]graph.Value)
	return v
}

// loadCase reads desired.json (optional: empty configuration), state.json
// (optional: no state) and options.json (optional) of a case folder.
func loadCase(t testing.TB, dir string) (*graph.Graph, *state.State, Options) {
	t.Helper()
	g := graph.New()
	var ir irFixture
	if decodeJSON(t, filepath.Join(dir, "desired.json"), &ir) {
		for _, r := range ir.Resources {
			r.Spec = canonicalMap(r.Spec)
			if err := g.AddResource(r); err != nil {
				t.Fatal(err)
			}
		}
		for _, e := range ir.Edges {
			if err := g.AddEdge(e); err != nil {
				t.Fatal(err)
			}
		}
		g.Sources = ir.Sources
	}
	var st *state.State
	var s state.State
	if decodeJSON(t, filepath.Join(dir, "state.json"), &s) {
		for i := range s.Resources {
			s.Resources[i].Spec = canonicalMap(s.Resources[i].Spec)
		}
		st = &s
	}
	var of optionsFixture
	decodeJSON(t, filepath.Join(dir, "options.json"), &of)
	return g, st, Options{Destroy: of.Destroy, RefreshOnly: of.RefreshOnly, Targets: of.Targets,
		Excludes: of.Excludes, Replace: of.Replace, CreateBeforeDestroy: of.CreateBeforeDestroy}
}

// golden compares got with the file, or rewrites it with -update
// (testutil.Golden).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testutil.Golden(t, path, got, *update)
}
