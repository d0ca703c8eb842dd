package tosca

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestWholeCorpus compiles every YAML file of the shared corpus, TOSCA or
// not (Tonomi manifests, placement scenarios, normative type files): none
// may panic, and every diagnostic must have a code and a file.
func TestWholeCorpus(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	opts := Options{Root: rootAt(t, corpus)}
	n := 0
	err := filepath.WalkDir(corpus, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := strings.ToLower(filepath.Ext(path)); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		n++
		_, diags := Compile(context.Background(), path, opts)
		for _, dg := range diags {
			if dg.Code == "" || dg.Range.File == "" {
				t.Errorf("%s: diagnostic without code or file: %s", path, dg.Error())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files compiled", n)
}

// TestCompilesShareTheEmbeddedTypesSafely: compiles running at once share
// the one parse of the embedded normative types (parseEmbedded) and get
// the same graph and diagnostics as a compile alone; the race detector
// checks that nothing writes to the shared trees.
func TestCompilesShareTheEmbeddedTypesSafely(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stack.yaml")
	src := "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n" +
		"    host:\n      type: tosca.nodes.Compute\n    db:\n      type: tosca.nodes.Database\n      properties: { name: x }\n" +
		"      requirements: [ { host: dbms } ]\n    dbms:\n      type: tosca.nodes.DBMS\n      requirements: [ { host: host } ]\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	render := func() string {
		g, diags := Compile(context.Background(), path, Options{})
		var b strings.Builder
		for _, d := range diags {
			b.WriteString(d.Error() + "\n")
		}
		if g != nil {
			for _, r := range g.Resources() {
				b.WriteString(r.Address + " " + r.Type + " " + strings.Join(r.TypeChain, ",") + "\n")
			}
		}
		return b.String()
	}
	want := render()
	got := make([]string, 4)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() { got[i] = render() })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Errorf("compile %d differs:\n%s\nwant:\n%s", i, g, want)
		}
	}
}
