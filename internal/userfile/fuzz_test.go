package userfile

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadInRoot reads arbitrary relative names inside a tree that holds
// links out of the root, a link loop and a file outside: whatever the name,
// nothing outside the root is ever returned, and nothing panics or hangs.
func FuzzReadInRoot(f *testing.F) {
	for _, seed := range []string{
		"ok.yaml", "sub/../ok.yaml", "../outside/secret", "out-link", "abs-link",
		"dir-out/secret", "loop", "in-link", "sub/../../outside/secret", "/etc/passwd",
		"./././ok.yaml", "sub//inner.yaml", "", ".", "..", "in-link/..", "\x00",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		root, _ := tree(t)
		r, err := NewRoot(root)
		if err != nil {
			t.Fatal(err)
		}
		path := name
		if !filepath.IsAbs(name) {
			path = filepath.Join(root, name)
		}
		data, err := Read(context.Background(), path, Options{Root: r, MaxBytes: 1 << 10})
		if err == nil && strings.Contains(string(data), "hunter2") {
			t.Fatalf("%q read the file outside the root", name)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Fatalf("%q: the error quotes the file outside the root: %v", name, err)
		}
		if err == nil {
			resolved, rerr := r.Resolve(path)
			if rerr != nil || !r.Contains(resolved) {
				t.Fatalf("%q was read but resolves outside the root (%v)", name, rerr)
			}
		}
		var ue *Error
		if errors.As(err, &ue) && ue.Path != path {
			t.Fatalf("the error names %q, not the path given %q", ue.Path, path)
		}
	})
}
