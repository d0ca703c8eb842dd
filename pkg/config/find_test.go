package config

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

func TestFindFiles(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
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
	files, _, _, diags := findFiles(context.Background(), []string{dir, filepath.Join(dir, "notes.txt"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "empty"), filepath.Join(dir, "missing")})
	want := []string{"C.YAML", "a.yml", "b.yaml", "link.yaml", "notes.txt", "sub/d.yaml"}
	if got := rel(files); !slices.Equal(got, want) {
		t.Errorf("files = %v, want %v", got, want)
	}
	var codes []string
	for _, d := range diags {
		codes = append(codes, d.Code)
	}
	slices.Sort(codes)
	if want := []string{CodeNoFiles, CodeNotFound}; !slices.Equal(codes, want) {
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

func TestReadFile(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"ok.yaml": "a: 1\n", "in/c.yaml": "c: 1\n"})
	ctx := context.Background()
	if data, problem := ReadFile(ctx, filepath.Join(dir, "ok.yaml"), nil); problem != nil || string(data) != "a: 1\n" {
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
	root, err := NewRoot(filepath.Join(dir, "in"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		path string
		root *Root
		want string
	}{
		{"too large", big, nil, CodeTooLarge},
		{"a folder", dir, nil, CodeNotRegular},
		{"missing", filepath.Join(dir, "missing.yaml"), nil, CodeNotFound},
		{"outside the root", filepath.Join(dir, "ok.yaml"), root, CodeOutsideRoot},
	} {
		if _, problem := ReadFile(ctx, tc.path, tc.root); problem == nil || problem.Code != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, problem, tc.want)
		}
	}
	if data, problem := ReadFile(ctx, filepath.Join(dir, "in", "c.yaml"), root); problem != nil || string(data) != "c: 1\n" {
		t.Errorf("in/c.yaml inside the root: %q, %v", data, problem)
	}
}

func TestUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("permissions do not apply to root")
	}
	dir := testutil.Tree(t, map[string]string{"locked/a.yaml": "a: 1\n"})
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	files, _, _, diags := findFiles(context.Background(), []string{dir})
	if len(files) != 0 || len(diags) != 1 || diags[0].Code != CodeUnreadable {
		t.Errorf("files = %v, diags = %v; want one %s", files, diags, CodeUnreadable)
	}
}
