package tosca

import (
	"os"
	"path/filepath"
	"testing"
)

// corpusDir returns ../shared/corpus relative to the module root, skipping
// the test when the corpus is not there.
func corpusDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found")
		}
		dir = parent
	}
	c := filepath.Join(dir, "..", "shared", "corpus")
	if _, err := os.Stat(c); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	return c
}
