package manifest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/symbols"
)

// memFiles is an editor's buffers for Options.Files.
type memFiles map[string]string

func (m memFiles) Contains(name string) bool { _, ok := m[name]; return ok }

func (m memFiles) ReadFile(_ context.Context, name string, _ int64) ([]byte, error) {
	s, ok := m[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return []byte(s), nil
}

// TestCompileEnvironmentIndexedNamesComponentsPinsAndTargets checks the
// index of a manifest read from Options.Files (never written to disk):
// components, declared pins, and what component types, bind() targets and
// binding ends name.
func TestCompileEnvironmentIndexedNamesComponentsPinsAndTargets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.yml")
	if err := os.WriteFile(filepath.Join(dir, "watch.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := memFiles{path: `application:
  interfaces:
    output:
      url: bind(web#output.url)
  components:
    web:
      type: workflow.Instance
      interfaces:
        output:
          url: publish-signal(string)
    db:
      type: workflow.Instance
      interfaces:
        input:
          url: consume-signal(string)
  bindings:
    - [db, web]
  policies:
    watch:
      implementation: watch.sh
      targets: [web]
`}
	_, x, diags := CompileEnvironmentIndexed(context.Background(), []string{path}, Options{Files: files})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	if len(x.Files) != 1 || x.Files[0] != path {
		t.Errorf("Files = %v", x.Files)
	}
	for _, tc := range []struct {
		line, col int
		want      string
	}{
		{4, 17, "pin output.url in shop.web @ 10:11"},
		{7, 13, "component type workflow.Instance in  @ 0:0"},
		{17, 8, "component db in shop @ 11:5"},
		{17, 12, "component web in shop @ 6:5"},
		{19, 5, "policy watch in shop @ 19:5"},
		{21, 18, "component web in shop @ 6:5"},
	} {
		got := ""
		if i, ok := x.SymbolAt(path, tc.line, tc.col); ok {
			s := x.Symbols[i]
			got = fmt.Sprintf("%s %s in %s @ %d:%d", s.Kind, s.Name, s.Container, s.Range.Start.Line, s.Range.Start.Column)
		}
		if got != tc.want {
			t.Errorf("%d:%d names %q, want %q", tc.line, tc.col, got, tc.want)
		}
	}
	if got := strings.Join(x.Names(symbols.Component, ""), " "); got != "db web" {
		t.Errorf("components %q", got)
	}
	if len(PinKinds()) != 5 || PinTypes()[0] != "bool" {
		t.Errorf("PinKinds %v, PinTypes %v", PinKinds(), PinTypes())
	}
}
