package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Golden compares got with the golden file at path. With update set (each
// package's -update flag) it writes got to path instead, creating the
// folder, and compares nothing: a golden file changes only on request. A
// missing file or a difference fails the test, showing both sides.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run go test -update to accept the change)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
