package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
)

// tree writes files (path → content) under a temporary folder and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindFiles(t *testing.T) {
	dir := tree(t, map[string]string{
		"b.yaml":          "",
		"a.yml":           "",
		"C.YAML":          "",
		"notes.txt":       "",
		"sub/d.yaml":      "",
		".git/e.yaml":     "",
		"sub/.hidden/f.y": "",
		"empty/.keep":     "",
	})
	if err := os.Symlink(dir, filepath.Join(dir, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "a.yml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	rel := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			r, _ := filepath.Rel(dir, p)
			out[i] = filepath.ToSlash(r)
		}
		return out
	}
	files, diags := findFiles(context.Background(), []string{dir, filepath.Join(dir, "notes.txt"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "empty"), filepath.Join(dir, "missing")})
	want := []string{"C.YAML", "a.yml", "b.yaml", "link.yaml", "notes.txt", "sub/d.yaml"}
	if got := rel(files); !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	slices.Sort(codes)
	if want := []string{codeNoFiles, codeNotFound}; !slices.Equal(codes, want) {
		t.Errorf("codes = %v, want %v (%v)", codes, want, diags)
	}
}

func TestParallel(t *testing.T) {
	var sum atomic.Int64
	seen := make([]bool, 100)
	parallel(context.Background(), len(seen), func(i int) {
		seen[i] = true
		sum.Add(int64(i))
	})
	if sum.Load() != 4950 || slices.Contains(seen, false) {
		t.Errorf("sum = %d, seen = %v", sum.Load(), seen)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var calls atomic.Int64
	parallel(ctx, 1000, func(int) { calls.Add(1) })
	if calls.Load() != 0 {
		t.Errorf("%d calls after cancel", calls.Load())
	}
	parallel(context.Background(), 0, func(int) { t.Error("called for n = 0") })
}

func TestReadUserFile(t *testing.T) {
	dir := tree(t, map[string]string{"ok.yaml": "a: 1\n"})
	ctx := context.Background()
	if data, problem := readUserFile(ctx, filepath.Join(dir, "ok.yaml"), nil); problem != nil || string(data) != "a: 1\n" {
		t.Errorf("ok.yaml: %q, %v", data, problem)
	}
	big := filepath.Join(dir, "big.yaml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: the size check must refuse it without reading it.
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, problem := readUserFile(ctx, big, nil); problem == nil || problem.Code != codeTooLarge {
		t.Errorf("big.yaml: %v, want %s", problem, codeTooLarge)
	}
	if _, problem := readUserFile(ctx, dir, nil); problem == nil || problem.Code != codeNotRegular {
		t.Errorf("folder: %v, want %s", problem, codeNotRegular)
	}
}

func TestUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("permissions do not apply to root")
	}
	dir := tree(t, map[string]string{"locked/a.yaml": "a: 1\n"})
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	files, diags := findFiles(context.Background(), []string{dir})
	if len(files) != 0 || len(diags) != 1 || diags[0].Code != codeUnreadable {
		t.Errorf("files = %v, diags = %v; want one %s", files, diags, codeUnreadable)
	}
}

// TestLoadCorpusInParallel compiles the XOS recipes and the Tonomi
// manifests of the shared corpus through the CLI's parallel loader (run it
// under -race): every recipe must validate, and every unit must come back
// in file order whatever order the workers finish in.
func TestLoadCorpusInParallel(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	recipes := filepath.Join(corpus, "xos-recipes", "recipes")
	if _, err := os.Stat(recipes); err != nil {
		t.Skipf("corpus not available: %v", err)
	}
	// The recipes import the XOS types from a folder beside theirs.
	root, err := userfile.NewRoot(corpus)
	if err != nil {
		t.Fatal(err)
	}
	res := loadConfig(context.Background(), []string{recipes, filepath.Join(corpus, "tonomi")}, loadOptions{Root: root})
	for _, d := range res.Diags {
		if d.Severity == diag.Error {
			t.Errorf("%s", d.Error())
		}
	}
	var firsts []string
	formats := map[string]int{}
	for _, u := range res.Units {
		firsts = append(firsts, u.Files[0])
		formats[u.Format]++
	}
	if !slices.IsSorted(firsts) {
		t.Errorf("units out of order: %v", firsts)
	}
	if formats[formatTOSCA] != 10 || formats[formatManifest] != 1 {
		t.Errorf("units by format = %v, want 10 TOSCA recipes and 1 manifest environment", formats)
	}
}
