package tosca

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
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
