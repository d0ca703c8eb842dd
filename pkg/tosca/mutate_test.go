package tosca

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// TestKindMutations takes rich valid templates and, at sampled places,
// replaces a value by a value of another kind (null, string, number, list,
// map, function call): every variant must compile without a panic and every
// diagnostic must have a code and a position. This finds the nil and kind
// assumptions that byte-level fuzzing rarely reaches.
func TestKindMutations(t *testing.T) {
	files := []string{filepath.Join("testdata", "golden", "webstack", "template.yaml")}
	if corpus := testutil.CorpusDirOrEmpty(); corpus != "" {
		for _, p := range []string{
			"tosca/puccini/1.3/requirements-and-capabilities.yaml",
			"tosca/puccini/1.3/interfaces.yaml",
			"tosca/puccini/1.3/workflows.yaml",
			"tosca/puccini/1.3/substitution-mapping.yaml",
			"tosca/puccini/1.3/data-types.yaml",
			"xos-recipes/recipes/05-k8s-make_pod.yaml",
		} {
			files = append(files, filepath.Join(corpus, p))
		}
	}
	replacements := []any{
		nil, int64(7), []any{"x"}, map[string]any{"x": "y"},
		map[string]any{"get_input": "x"}, map[string]any{"get_property": []any{"SELF", "x"}},
	}
	dir := t.TempDir()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		root, ds := yamlsrc.Parse(f, data, yamlsrc.Limits{})
		if ds.HasErrors() || root == nil {
			t.Fatalf("%s: %v", f, ds)
		}
		doc := root.Interface()
		paths := collectPaths(doc, nil, nil)
		step := len(paths)/20 + 1
		for i := 0; i < len(paths); i += step {
			for _, r := range replacements {
				mutated := replaceAt(doc, paths[i], r)
				out, err := yamlsrc.Marshal(mutated)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, filepath.Base(f))
				if err := os.WriteFile(path, out, 0o644); err != nil {
					t.Fatal(err)
				}
				func() {
					defer func() {
						if p := recover(); p != nil {
							t.Fatalf("%s: panic with %v at %v: %v", f, r, paths[i], p)
						}
					}()
					_, diags := Compile(context.Background(), path, Options{})
					for _, d := range diags {
						if d.Code == "" || d.Range.File == "" {
							t.Errorf("%s: %v at %v: diagnostic without code or file: %s", f, r, paths[i], d.Error())
						}
					}
				}()
			}
		}
	}
}

// collectPaths lists the paths (map keys and list indices) of every value.
func collectPaths(v any, prefix []any, out [][]any) [][]any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := append(append([]any(nil), prefix...), k)
			out = append(out, p)
			out = collectPaths(x[k], p, out)
		}
	case []any:
		for i, e := range x {
			p := append(append([]any(nil), prefix...), i)
			out = append(out, p)
			out = collectPaths(e, p, out)
		}
	}
	return out
}

// replaceAt returns a copy of v with the value at path replaced.
func replaceAt(v any, path []any, r any) any {
	if len(path) == 0 {
		return r
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		k := path[0].(string)
		out[k] = replaceAt(x[k], path[1:], r)
		return out
	case []any:
		out := append([]any(nil), x...)
		i := path[0].(int)
		out[i] = replaceAt(x[i], path[1:], r)
		return out
	}
	return v
}
