package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
)

// fixtureRoot is the configuration root of the fixtures: their folder.
func fixtureRoot(t *testing.T) *Root {
	t.Helper()
	r, err := NewRoot(filepath.Join("testdata", "csar"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRefusedArchivesAreNamedAndNeverCompiled loads every fixture of
// csarFixtures: a refused archive gives one error with its code, naming
// the archive (and the entry at fault, when there is one), and no unit;
// the others load without error.
func TestRefusedArchivesAreNamedAndNeverCompiled(t *testing.T) {
	root := fixtureRoot(t)
	for _, fx := range csarFixtures() {
		t.Run(fx.name, func(t *testing.T) {
			path := fixturePath(fx.name)
			res := Load(context.Background(), []string{path}, Options{Root: root, Archive: fx.limits})
			if fx.code == "" {
				if res.Diags.HasErrors() || len(res.Units) != 1 || res.Units[0].Graph == nil {
					t.Fatalf("a valid package: units %v, diagnostics\n%v", res.Units, res.Diags)
				}
				if u := res.Units[0]; u.Package != path || !strings.HasPrefix(u.Files[0], path+"!/") {
					t.Errorf("unit = %+v, want the package %s and its member", u, path)
				}
				return
			}
			if len(res.Units) != 0 {
				t.Errorf("a refused archive was compiled: %v", res.Units)
			}
			if len(res.Diags) != 1 || res.Diags[0].Code != fx.code || res.Diags[0].Severity != diag.Error {
				t.Fatalf("diagnostics = %v, want one %s error", res.Diags, fx.code)
			}
			d := res.Diags[0]
			want := path
			if fx.entry != "" {
				want = diag.MemberName(path, fx.entry)
			}
			if d.Range.File != want {
				t.Errorf("the diagnostic names %q, want %q: %s", d.Range.File, want, d.Summary)
			}
			if strings.ContainsAny(d.Summary, "\x00\n") {
				t.Errorf("the summary holds a control character of the entry name unquoted: %q", d.Summary)
			}
		})
	}
}

// TestArchiveReadsCountBytesNotHeaders reads the members of an archive
// under a Total limit that its declared sizes meet: the bytes read are
// counted, so reading more than the limit, here the same file twice, is
// refused however honest the headers look.
func TestArchiveReadsCountBytesNotHeaders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.csar")
	body := strings.Repeat("x", 600)
	if err := os.WriteFile(path, zipBytes(t, []zipEntry{{name: "a.yaml", body: body}}), 0o644); err != nil {
		t.Fatal(err)
	}
	a, problem := openArchive(context.Background(), path, nil, ArchiveLimits{Total: 1000})
	if problem != nil {
		t.Fatal(problem)
	}
	defer a.close()
	if _, err := a.readFile(context.Background(), "a.yaml", MaxFileBytes); err != nil {
		t.Fatalf("first read: %v", err)
	}
	_, err := a.readFile(context.Background(), "a.yaml", MaxFileBytes)
	if !errors.Is(err, userfile.ErrTooLarge) {
		t.Fatalf("second read = %v, want the total limit", err)
	}
	if _, err := a.readFile(context.Background(), "a.yaml", 100); !errors.Is(err, userfile.ErrTooLarge) {
		t.Fatalf("a read over the per-file limit = %v, want ErrTooLarge before reading", err)
	}
}

// TestArchiveEntryThatLiesAboutItsSizeIsUnreadable reads an entry whose
// header declares 10 bytes but whose data inflates to 4 KiB: the read
// stops with a clear error instead of trusting either.
func TestArchiveEntryThatLiesAboutItsSizeIsUnreadable(t *testing.T) {
	body := deflated(t, []byte(strings.Repeat("a", 4096)))
	path := filepath.Join(t.TempDir(), "p.csar")
	data := zipBytes(t, []zipEntry{{name: "main.yaml", body: body, method: 8, raw: &rawSizes{compressed: uint64(len(body)), uncompressed: 10}}})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	res := Load(context.Background(), []string{path}, Options{Root: rootOf(t, filepath.Dir(path))})
	if len(res.Diags) != 1 || res.Diags[0].Code != CodeUnreadableArchive || !strings.Contains(res.Diags[0].Summary, "does not match the size its header declares") {
		t.Fatalf("diagnostics = %v, want one %s", res.Diags, CodeUnreadableArchive)
	}
}

// TestArchiveDirectoryIsBoundedBeforeItIsListed gives archive/zip an
// archive whose central directory is far larger than the entry limit
// allows: it is refused while being listed, so a directory of millions of
// entries cannot take the memory of millions of entries.
func TestArchiveDirectoryIsBoundedBeforeItIsListed(t *testing.T) {
	var entries []zipEntry
	for i := range 200 {
		entries = append(entries, zipEntry{name: fmt.Sprintf("%s/%03d", strings.Repeat("d", 400), i)})
	}
	path := filepath.Join(t.TempDir(), "p.csar")
	if err := os.WriteFile(path, zipBytes(t, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	_, problem := openArchive(context.Background(), path, nil, ArchiveLimits{Entries: 2})
	if problem == nil || problem.Code != CodeTooManyEntries || !strings.Contains(problem.Summary, "directory is larger") {
		t.Fatalf("openArchive = %v, want the directory refused while listed", problem)
	}
}

// TestArchiveLimitDefaults pins the documented defaults (README, package
// documentation).
func TestArchiveLimitDefaults(t *testing.T) {
	got := ArchiveLimits{}.withDefaults()
	want := ArchiveLimits{Size: 256 << 20, Entries: 10_000, Total: 1 << 30, Ratio: 100}
	if got != want {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
}

// TestArchiveOutsideRootIsRefusedUnread names an archive that a link
// takes outside the configuration root.
func TestArchiveOutsideRootIsRefusedUnread(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "p.csar"), zipBytes(t, helloEntries()), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "p.csar")
	if err := os.Symlink(filepath.Join(outside, "p.csar"), link); err != nil {
		t.Skip(err)
	}
	res := Load(context.Background(), []string{link}, Options{Root: rootOf(t, dir)})
	if len(res.Units) != 0 || len(res.Diags) != 1 || res.Diags[0].Code != CodeOutsideRoot {
		t.Fatalf("Load = %v, %v; want one %s", res.Units, res.Diags, CodeOutsideRoot)
	}
}

// TestReadFileReadsArchiveMembers reads a member by its diagnostic name,
// as the snippets of diagnostics do, and refuses one of an archive
// outside the root.
func TestReadFileReadsArchiveMembers(t *testing.T) {
	root := fixtureRoot(t)
	name := diag.MemberName(fixturePath("hello"), "Definitions/types.yaml")
	data, problem := ReadFile(context.Background(), name, root)
	if problem != nil || string(data) != fixtureTypes {
		t.Fatalf("ReadFile = %q, %v", data, problem)
	}
	if _, problem := ReadFile(context.Background(), diag.MemberName(fixturePath("hello"), "nope.yaml"), root); problem == nil || problem.Code != CodeNotFound {
		t.Errorf("a missing member = %v, want %s", problem, CodeNotFound)
	}
	if _, problem := ReadFile(context.Background(), name, rootOf(t, t.TempDir())); problem == nil || problem.Code != CodeOutsideRoot {
		t.Errorf("a member of an archive outside the root = %v, want %s", problem, CodeOutsideRoot)
	}
}

// rootOf is the root made of dir.
func rootOf(t *testing.T, dir string) *Root {
	t.Helper()
	r, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
