package manifest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/symbols"
)

// FuzzManifest compiles arbitrary bytes as a manifest, alone and beside
// the PetClinic factory, and indexes its names: it must never panic,
// every diagnostic must carry a file and a line, and every reference must
// name a symbol. Seeds: the corpus (read at test time) and
// testdata/fuzz/FuzzManifest.
func FuzzManifest(f *testing.F) {
	for _, file := range corpusFiles(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	factory, err := os.ReadFile(filepath.Join("..", "..", "examples", "petclinic", "PetClinic Factory.yml"))
	if err != nil {
		f.Fatal(err)
	}
	reg := DefaultRegistry()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, srcs := range [][]source{
			{{file: "fuzz.yml", data: data}},
			{{file: "PetClinic.yml", data: data}, {file: "PetClinic Factory.yml", data: factory}},
		} {
			env, g, diags := compileSources(context.Background(), reg, srcs, nil)
			if env != nil {
				env.reg = reg
				x := &symbols.Index{}
				env.index(x)
				for _, r := range x.References {
					if r.Symbol < 0 || r.Symbol >= len(x.Symbols) {
						t.Fatalf("reference to symbol %d of %d", r.Symbol, len(x.Symbols))
					}
				}
			}
			for _, d := range diags {
				if d.Range.File == "" || d.Range.Start.Line < 1 || d.Range.Start.Column < 1 {
					t.Fatalf("diagnostic without a position: %+v", d)
				}
				if !strings.HasPrefix(d.Code, "manifest.") && !strings.HasPrefix(d.Code, "yaml.") {
					t.Fatalf("diagnostic with a foreign code: %+v", d)
				}
			}
			if g != nil {
				_ = g.Cycles()
			}
		}
	})
}
