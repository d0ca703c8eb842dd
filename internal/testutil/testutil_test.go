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

// TestGoldenIsRewrittenWhenTheEnvironmentAsks writes a golden file with
// XOSPLAN_UPDATE=1, then compares against it with the variable unset; a
// mismatch and a missing file must fail.
func TestGoldenIsRewrittenWhenTheEnvironmentAsks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	t.Setenv(UpdateVar, "1")
	Golden(t, path, []byte("one\n"))
	if data, err := os.ReadFile(path); err != nil || string(data) != "one\n" {
		t.Fatalf("update wrote %q, %v", data, err)
	}
	os.Unsetenv(UpdateVar) // t.Setenv restores it
	Golden(t, path, []byte("one\n"))
	for _, tc := range []struct{ path, got string }{{path, "two\n"}, {path, ""}, {path + ".missing", "one\n"}} {
		if !fails(t, func(tb testing.TB) { Golden(tb, tc.path, []byte(tc.got)) }) {
			t.Errorf("Golden accepted %q against %s", tc.got, tc.path)
		}
	}
}

// TestUpdateReadsTheEnvironment: only 1 or true rewrite; a value that is
// neither a yes nor a no fails rather than silently comparing.
func TestUpdateReadsTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		value       string
		want, fails bool
	}{
		{"", false, false}, {"0", false, false}, {"false", false, false},
		{"1", true, false}, {"true", true, false}, {"yes", false, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv(UpdateVar, tc.value)
			var got bool
			if failed := fails(t, func(tb testing.TB) { got = Update(tb) }); failed != tc.fails || got != tc.want {
				t.Errorf("%s=%q: Update = %v, failed %v; want %v, failed %v", UpdateVar, tc.value, got, failed, tc.want, tc.fails)
			}
		})
	}
}

// fails reports whether f fails the test it is given.
func fails(t *testing.T, f func(testing.TB)) bool {
	r := &recorder{TB: t}
	done := make(chan struct{})
	// f may call Fatalf, which ends its goroutine.
	go func() { defer close(done); f(r) }()
	<-done
	return r.failed
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
