package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// FuzzLoad compiles arbitrary bytes as a service template: whatever the
// input, Compile (through CompileIndexed, which also builds the symbol
// index) must return (no panic, no hang), every diagnostic must carry a
// code and every reference must name a symbol. Seeds are small files of the TOSCA and XOS corpora, read at
// test time, and the error fixtures.
func FuzzLoad(f *testing.F) {
	var seeds []string
	if corpus := testutil.CorpusDirOrEmpty(); corpus != "" {
		for _, pattern := range []string{
			"tosca/tosca-parser-snippets/*.yaml",
			"tosca/oasis-tosca-1.0/*.yml",
			"tosca/puccini/1.3/*.yaml",
			"xos-recipes/recipes/*.yaml",
		} {
			m, _ := filepath.Glob(filepath.Join(corpus, pattern))
			seeds = append(seeds, m...)
		}
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	seeds = append(seeds, fixtures...)
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err == nil && len(data) < 16<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a: {type: tosca.nodes.Compute}\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Skip(err)
		}
		_, x, diags := CompileIndexed(context.Background(), path, Options{})
		for _, d := range diags {
			if d.Code == "" {
				t.Fatalf("diagnostic without code: %s", d.Error())
			}
		}
		for _, r := range x.References {
			if r.Symbol < 0 || r.Symbol >= len(x.Symbols) {
				t.Fatalf("reference to symbol %d of %d", r.Symbol, len(x.Symbols))
			}
		}
	})
}
