package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// ModuleRoot returns the folder holding go.mod, found by walking up from the
// test's working directory (its package folder). It fails the test when no
// go.mod is found, which only happens outside a checkout.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	root, err := findModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// CorpusDir returns the shared test corpus, ../shared/corpus beside the
// module root, joined with the optional sub-path elements. It skips the
// test when that folder does not exist (a lone clone has no corpus), so a
// test that calls it runs only where the corpus is present.
func CorpusDir(t testing.TB, sub ...string) string {
	t.Helper()
	dir := filepath.Join(append([]string{ModuleRoot(t), "..", "shared", "corpus"}, sub...)...)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	return dir
}

// CorpusDirOrEmpty is CorpusDir for callers that have no test to skip, such
// as fuzz seeding or optional table rows: it returns "" when the corpus (or
// the module root) is not there.
func CorpusDirOrEmpty(sub ...string) string {
	root, err := findModuleRoot()
	if err != nil {
		return ""
	}
	dir := filepath.Join(append([]string{root, "..", "shared", "corpus"}, sub...)...)
	if _, err := os.Stat(dir); err != nil {
		return ""
	}
	return dir
}

func findModuleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", wd)
		}
		dir = parent
	}
}
