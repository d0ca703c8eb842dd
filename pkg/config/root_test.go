package config

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

func TestFindRoot(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	deep := filepath.Join(repo, "stacks", "web")
	loose := filepath.Join(base, "loose")
	for _, d := range []string{filepath.Join(repo, ".git"), deep, loose} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(deep, "a.yaml"), filepath.Join(loose, "b.yaml")} {
		if err := os.WriteFile(f, []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		wd    string
		paths []string
		want  []string
	}{
		{"a file in a repository: the repository", base, []string{filepath.Join(deep, "a.yaml")}, []string{repo}},
		{"a folder in a repository: the repository", loose, []string{deep}, []string{repo}},
		{"no repository, inside the working folder: the working folder", base, []string{filepath.Join(loose, "b.yaml")}, []string{base}},
		{"no repository, outside the working folder: the file's folder", deep, []string{filepath.Join(loose, "b.yaml")}, []string{loose}},
		{"two places: both", deep, []string{filepath.Join(deep, "a.yaml"), filepath.Join(loose, "b.yaml")}, []string{repo, loose}},
		{"the same place twice: once", base, []string{filepath.Join(deep, "a.yaml"), deep}, []string{repo}},
		{"a missing path: no folder", base, []string{filepath.Join(base, "missing.yaml")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := FindRoot(c.wd, c.paths)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Dirs()
			if len(got) != len(c.want) {
				t.Fatalf("Dirs = %v; want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("Dirs = %v; want %v", got, c.want)
				}
			}
		})
	}
}

func TestFindRootPlacesALinkByItsName(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	elsewhere := filepath.Join(base, "elsewhere")
	for _, d := range []string{filepath.Join(repo, ".git"), elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(elsewhere, "secret.yaml"), []byte("SECRET=hunter2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(repo, "stack.yaml")
	if err := os.Symlink(filepath.Join(elsewhere, "secret.yaml"), link); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(repo, "config")
	if err := os.Symlink(elsewhere, dirLink); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, dirLink} {
		r, err := FindRoot(base, []string{p})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Dirs(); len(got) != 1 || got[0] != repo {
			t.Fatalf("FindRoot(%s) = %v; want the repository %s", p, got, repo)
		}
		if _, problem := ReadFile(context.Background(), link, r); problem == nil || problem.Code != CodeOutsideRoot {
			t.Fatalf("the link out of the repository was read: %v", problem)
		}
	}
}

func TestNewRootRefusesWhatIsNotAFolder(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"file.yaml": "a: 1\n"})
	if _, err := NewRoot(filepath.Join(dir, "file.yaml")); !errors.Is(err, ErrNotFolder) {
		t.Errorf("a file as root: %v, want ErrNotFolder", err)
	}
	if _, err := NewRoot(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing root: %v, want fs.ErrNotExist", err)
	}
	if _, err := NewRoot(); err == nil {
		t.Error("a root of no folder was accepted")
	}
	r, err := NewRoot(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != dir {
		t.Errorf("String = %q; want the first folder as given, %q", got, dir)
	}
	if _, err := r.Resolve(filepath.Join(dir, "..")); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("Resolve of the parent: %v, want ErrOutsideRoot", err)
	}
}
