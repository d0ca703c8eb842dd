package tosca

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestDeterministic compiles the same inputs several times: the
// diagnostics (in order) and the graph must come out byte-identical,
// whatever order Go's maps iterate in.
func TestDeterministic(t *testing.T) {
	paths := []string{filepath.Join("testdata", "golden", "webstack", "template.yaml")}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "errors", "*.yaml"))
	paths = append(paths, fixtures...)
	opts := map[string]Options{}
	if corpus := testutil.CorpusDirOrEmpty(); corpus != "" {
		recipe := filepath.Join(corpus, "xos-recipes", "recipes", "07-helm-bbsim-16.yaml")
		paths = append(paths, recipe)
		opts[recipe] = Options{Root: rootAt(t, corpus)}
	}
	inTestdata := Options{Root: rootAt(t, "testdata")}
	for _, p := range paths {
		o, ok := opts[p]
		if !ok {
			o = inTestdata
		}
		var first []byte
		for i := 0; i < 3; i++ {
			g, diags := Compile(context.Background(), p, o)
			var b bytes.Buffer
			for _, d := range diags {
				fmt.Fprintf(&b, "%s [%s] %s %s\n", d.Error(), d.Code, d.Path, d.Detail)
			}
			if g != nil {
				b.Write(renderGraph(t, g, filepath.Dir(p)))
			}
			if i == 0 {
				first = b.Bytes()
			} else if !bytes.Equal(first, b.Bytes()) {
				t.Fatalf("%s: run %d differs from run 1:\n%s\n---\n%s", p, i+1, first, b.Bytes())
			}
		}
	}
}
