package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzManifest compiles arbitrary bytes as a manifest, alone and beside
// the PetClinic factory: it must never panic, and every diagnostic must
// carry a file and a line. Seeds: the corpus (read at test time) and
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
			_, g, diags := compileSources(reg, srcs, nil)
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
