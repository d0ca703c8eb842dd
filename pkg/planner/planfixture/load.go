package planfixture

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// irFixture is the JSON form of a desired graph in a case's desired.json.
type irFixture struct {
	Sources   []string          `json:"sources"`
	Resources []*graph.Resource `json:"resources"`
	Edges     []graph.Edge      `json:"edges"`
}

// Options is a case's options.json: the planner options a fixture can set,
// spelled as planner.Options spells them.
type Options struct {
	Destroy             bool     `json:"destroy"`
	RefreshOnly         bool     `json:"refresh_only"`
	Targets             []string `json:"targets"`
	Excludes            []string `json:"excludes"`
	Replace             []string `json:"replace"`
	CreateBeforeDestroy bool     `json:"create_before_destroy"`
}

// decodeJSON decodes the file at path into v, numbers as json.Number and
// unknown fields refused (a misspelt fixture key fails instead of being
// ignored). It reports false when the file does not exist, and fails the
// test on any other problem.
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

// canonicalMap turns a decoded spec into canonical graph values, keeping
// nil as nil (an absent spec stays absent).
func canonicalMap(m map[string]graph.Value) map[string]graph.Value {
	if m == nil {
		return nil
	}
	v, _ := graph.DecodeValue(map[string]any(m)).(map[string]graph.Value)
	return v
}

// canonicalDriver canonicalizes the operation inputs of d in place.
func canonicalDriver(d *graph.Driver) {
	for k, op := range d.Operations {
		op.Inputs = canonicalMap(op.Inputs)
		d.Operations[k] = op
	}
}

// LoadCase reads desired.json (optional: empty configuration), state.json
// (optional: nil state) and options.json (optional: zero Options) of a case
// folder, with specs and operation inputs canonicalized. Any unreadable or
// invalid file fails the test.
func LoadCase(t testing.TB, dir string) (*graph.Graph, *state.State, Options) {
	t.Helper()
	g := graph.New()
	var ir irFixture
	if decodeJSON(t, filepath.Join(dir, "desired.json"), &ir) {
		for _, r := range ir.Resources {
			r.Spec = canonicalMap(r.Spec)
			canonicalDriver(&r.Driver)
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
			canonicalDriver(&s.Resources[i].Driver)
		}
		st = &s
	}
	var opts Options
	decodeJSON(t, filepath.Join(dir, "options.json"), &opts)
	return g, st, opts
}
