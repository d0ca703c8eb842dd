package testutil

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func TestMarkers(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []Marker
	}{
		{"none", "a: 1\nb: 2 # a comment\n", nil},
		{"error", "a: 1\nb: x   # ERROR: bad value  \n", []Marker{{2, SeverityError, "bad value"}}},
		{"warning without spaces", "b: x #WARNING:unused\n", []Marker{{1, SeverityWarning, "unused"}}},
		{"two on a line", "b: x # ERROR: one # WARNING: two\n", []Marker{{1, SeverityError, "one"}, {1, SeverityWarning, "two"}}},
		{"empty text", "b: # ERROR:\n", []Marker{{1, SeverityError, ""}}},
		{"lower case is not a marker", "b: # error: no\n", nil},
		{"last line without newline", "a: 1\n# ERROR: end", []Marker{{2, SeverityError, "end"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Markers([]byte(tc.text)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Markers(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
		})
	}
}

func TestErrorLines(t *testing.T) {
	got := ErrorLines([]byte("a: 1 # ERROR: one\nb: 2 # WARNING: w\nc: 3 # ERROR: x # ERROR: three\n"))
	if want := map[int]string{1: "one", 3: "three"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ErrorLines = %v, want %v", got, want)
	}
}

func TestFileMarkers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(path, []byte("x: 1 # ERROR: here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FileMarkers(t, path); len(got) != 1 || got[0] != (Marker{1, SeverityError, "here"}) {
		t.Errorf("FileMarkers = %+v", got)
	}
}

// recorder is a testing.TB that records failures instead of reporting
// them, so that a test can check that a helper fails.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// TestGolden writes a golden file with update set, then compares against it;
// a mismatch and a missing file must fail.
func TestGolden(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	Golden(t, path, []byte("one\n"), true)
	if data, err := os.ReadFile(path); err != nil || string(data) != "one\n" {
		t.Fatalf("update wrote %q, %v", data, err)
	}
	Golden(t, path, []byte("one\n"), false)
	for _, tc := range []struct{ path, got string }{{path, "two\n"}, {path, ""}, {path + ".missing", "one\n"}} {
		r := &recorder{TB: t}
		done := make(chan struct{})
		// Golden may call Fatalf, which ends its goroutine.
		go func() { defer close(done); Golden(r, tc.path, []byte(tc.got), false) }()
		<-done
		if !r.failed {
			t.Errorf("Golden accepted %q against %s", tc.got, tc.path)
		}
	}
}

func TestModuleRootAndCorpus(t *testing.T) {
	root := ModuleRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("ModuleRoot = %s: %v", root, err)
	}
	if got, want := CorpusDirOrEmpty("no-such-folder"), ""; got != want {
		t.Errorf("CorpusDirOrEmpty(missing) = %q, want %q", got, want)
	}
	if c := CorpusDirOrEmpty(); c != "" {
		if got := CorpusDir(t); got != c {
			t.Errorf("CorpusDir = %q, CorpusDirOrEmpty = %q", got, c)
		}
	}
}
