package testutil

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// UpdateVar names the environment variable that asks the tests to rewrite
// what they compare against, golden files and the expected output in
// testscripts, instead of comparing: XOSPLAN_UPDATE=1 go test ./... It is
// an environment variable rather than a flag because go test hands a flag
// to every package's test binary, and one that does not define it fails.
const UpdateVar = "XOSPLAN_UPDATE"

// Update reports whether UpdateVar asks for rewriting: "1" or "true" does,
// unset, "0" or "false" does not. Any other value fails the test, so that a
// misspelt value never passes for a comparison. Pass it to testscript's
// Params.UpdateScripts.
func Update(t testing.TB) bool {
	t.Helper()
	v, ok := os.LookupEnv(UpdateVar)
	if !ok || v == "" {
		return false
	}
	update, err := strconv.ParseBool(v)
	if err != nil {
		t.Fatalf("%s=%q: want 1 to rewrite golden files or 0 to compare", UpdateVar, v)
	}
	return update
}

// Golden compares got with the golden file at path. When Update says so it
// writes got to path instead, creating the folder, and compares nothing: a
// golden file changes only on request. A missing file or a difference
// fails the test, showing both sides.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update(t) {
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
		t.Fatalf("%v (run %s=1 go test to create it)", err, UpdateVar)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run %s=1 go test to accept the change)\n--- got\n%s\n--- want\n%s", path, UpdateVar, got, want)
	}
}
