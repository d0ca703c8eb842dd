package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

func at(line int) diag.Range {
	return diag.Range{File: "t.yaml", Start: diag.Pos{Line: line, Column: 1}}
}

// TestFollowOnsAreCountedInTheRootCause checks that a name reported
// undefined once stands for its later references, which are counted in
// its detail, and that a failed import stands for every undefined name
// reported after it.
func TestFollowOnsAreCountedInTheRootCause(t *testing.T) {
	s := NewSession(context.Background())
	key := UnknownKey{Kind: 1, Name: "x.Missing", Error: true}
	reports := 0
	report := func() { reports++; s.Errorf(at(reports), "p", "t.unknown", "unknown type") }
	first := s.UnknownOnce(key, report)
	for range 2 {
		if got := s.UnknownOnce(key, report); got != first {
			t.Fatalf("a later reference explains itself by diagnostic %d, want %d", got, first)
		}
	}
	s.Errorf(at(9), "imports", "t.import", "import failed")
	s.FailedImport()
	s.UnknownOnce(UnknownKey{Kind: 1, Name: "x.Other", Error: true}, report)
	ds := s.Finish()
	if reports != 1 || len(ds) != 2 {
		t.Fatalf("got %d reports, diagnostics %v; want one report of each cause", reports, ds)
	}
	if ds[0].Detail != "2 more problems follow from this." || ds[1].Detail != "1 more problem follows from this." {
		t.Errorf("details %q and %q do not count the follow-ons", ds[0].Detail, ds[1].Detail)
	}
}

// TestStoppedDropsWhatFollowsTheStop checks that once the context ends,
// Stopped stays true and DropSinceStop removes the diagnostics (and
// follow-on counts) found after the stop.
func TestStoppedDropsWhatFollowsTheStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s := NewSession(ctx)
	s.Errorf(at(1), "", "t.before", "before")
	if s.StoppedNow() {
		t.Fatal("stopped before the context ended")
	}
	cancel()
	stopped := false
	for range checkEvery {
		stopped = s.Stopped()
	}
	if !stopped {
		t.Fatalf("not stopped after %d checks of an ended context", checkEvery)
	}
	s.Errorf(at(2), "", "t.after", "after")
	s.FollowOn(1)
	s.DropSinceStop()
	if len(s.Diags) != 1 || s.Diags[0].Code != "t.before" || len(s.FollowOns) != 0 {
		t.Errorf("after the drop: %v, follow-ons %v; want only the diagnostic found before", s.Diags, s.FollowOns)
	}
}

// TestSecretLinesAreHidden checks that a diagnostic reported while a
// secret is checked is Sensitive, and one reported after is not.
func TestSecretLinesAreHidden(t *testing.T) {
	s := NewSession(context.Background())
	s.InSecret++
	s.Warnf(at(1), "", "t.secret", "bad value")
	s.InSecret--
	s.Warnf(at(2), "", "t.plain", "bad value")
	if !s.Diags[0].Sensitive || s.Diags[1].Sensitive {
		t.Errorf("Sensitive = %v, %v; want true, false", s.Diags[0].Sensitive, s.Diags[1].Sensitive)
	}
}

// TestConfineNamedWarnsOnceOutsideTheRoot checks the warning for a name
// outside the root, given once per written name, and none for a name
// inside it or a URL other than file://.
func TestConfineNamedWarnsOnceOutsideTheRoot(t *testing.T) {
	dir := t.TempDir()
	root, err := userfile.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.sh"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewSession(context.Background())
	s.FSRoot = root
	outside := &yamlsrc.Node{Kind: yamlsrc.Scalar, Value: "/etc/passwd", Range: at(1)}
	for range 2 {
		s.ConfineNamed(outside, outside.Value, dir, "p", "t.outside", "implementation")
	}
	inside := &yamlsrc.Node{Kind: yamlsrc.Scalar, Value: "in.sh", Range: at(2)}
	s.ConfineNamed(inside, inside.Value, dir, "p", "t.outside", "implementation")
	remote := &yamlsrc.Node{Kind: yamlsrc.Scalar, Value: "https://example.com/x.sh", Range: at(3)}
	s.ConfineNamed(remote, remote.Value, dir, "p", "t.outside", "implementation")
	if len(s.Diags) != 1 || s.Diags[0].Code != "t.outside" || !strings.Contains(s.Diags[0].Summary, "outside the configuration root") {
		t.Errorf("got %v; want one warning for /etc/passwd", s.Diags)
	}
}

// archive is Files with one file, a.yaml.
type archive struct{}

func (archive) Contains(name string) bool { return !strings.HasPrefix(name, "/") }
func (archive) Exists(name string) bool   { return name == "a.yaml" }
func (archive) String() string            { return "t.csar" }
func (archive) ReadFile(_ context.Context, name string, _ int64) ([]byte, error) {
	if name == "a.yaml" {
		return []byte("a: 1\n"), nil
	}
	return nil, os.ErrNotExist
}

// TestReadFileFromAnArchive checks that names of the archive are read
// from it, and that a name outside it is refused as outside the archive.
func TestReadFileFromAnArchive(t *testing.T) {
	root, err := userfile.NewRoot()
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(context.Background())
	s.FSRoot, s.Files, s.Archive = root, archive{}, true
	if data, err := s.ReadFile("a.yaml"); err != nil || string(data) != "a: 1\n" {
		t.Errorf("ReadFile(a.yaml) = %q, %v", data, err)
	}
	if !s.Exists("a.yaml") || s.Exists("b.yaml") || !s.InRoot("b.yaml") {
		t.Error("Exists or InRoot does not answer from the archive")
	}
	_, err = s.ReadFile("/etc/passwd")
	var ue *userfile.Error
	if !errors.As(err, &ue) || !errors.Is(err, userfile.ErrOutsideRoot) || !strings.Contains(ue.Detail, "the archive t.csar") {
		t.Errorf("ReadFile outside the archive: %v; want a refusal naming the archive", err)
	}
}

// TestCheckDuplicatesAllocatesNothing: walking a tree without repeated
// keys allocates nothing for the short lists of a template (it made a
// "[i]" path element for each item: two allocations a requirement).
func TestCheckDuplicatesAllocatesNothing(t *testing.T) {
	root, ds := yamlsrc.Parse("t.yaml", []byte("a: {requirements: [{host: h}, {backend: b}, {x: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}]}\n"), yamlsrc.Limits{})
	if ds.HasErrors() {
		t.Fatal(ds.Err())
	}
	s := NewSession(context.Background())
	var stack []string
	s.CheckDuplicates(root, 0, false, &stack) // grows the stack once
	if n := testing.AllocsPerRun(20, func() { s.CheckDuplicates(root, 0, false, &stack) }); n > 1 {
		t.Fatalf("%.1f allocations a walk, want at most 1 (the eleventh item's)", n)
	}
	if got := []string{indexKey(0), indexKey(9), indexKey(10)}; got[0] != "[0]" || got[1] != "[9]" || got[2] != "[10]" {
		t.Fatalf("indexKey: %q", got)
	}
}
