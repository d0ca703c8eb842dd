package tosca

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCodesDocumented checks that every Code* constant is listed in the
// package documentation's code table and that the table lists nothing
// else, so the documented codes stay the real ones.
func TestCodesDocumented(t *testing.T) {
	// The values are written in internal/core (codes.go), through which
	// both grammar generations report them; doc.go re-exports each.
	values := codeConsts(t, "internal/core/codes.go")
	consts := map[string]bool{}
	for name, value := range codeConsts(t, "doc.go") {
		if !strings.HasPrefix(value, "core.") {
			consts[value] = true
			continue
		}
		v, ok := values[strings.TrimPrefix(value, "core.")]
		if !ok || strings.TrimPrefix(value, "core.") != name {
			t.Errorf("%s = %s names no code of internal/core of that name", name, value)
		}
		consts[v] = true
	}
	for name, v := range values {
		if !consts[v] {
			t.Errorf("internal/core's %s (%s) is not re-exported in doc.go", name, v)
		}
	}
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^//\t(tosca\.[a-z_]+)\s`).FindAllStringSubmatch(string(src), -1) {
		documented[m[1]] = true
	}
	for c := range consts {
		if !documented[c] {
			t.Errorf("code %s is not in the package documentation", c)
		}
	}
	for c := range documented {
		if !consts[c] {
			t.Errorf("documented code %s has no constant", c)
		}
	}
	listed := map[string]bool{}
	for _, c := range allCodes() {
		listed[c] = true
	}
	for c := range consts {
		if !listed[c] {
			t.Errorf("code %s is missing from allCodes (codes_test.go)", c)
		}
	}
	if len(consts) < 40 {
		t.Errorf("only %d codes found; the parser of doc.go is broken", len(consts))
	}
}

// codeConsts returns the Code* constants of a file by name: the unquoted
// literal, or "core.Name" for a constant that names internal/core's.
func codeConsts(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") || len(vs.Values) != 1 {
			return true
		}
		switch v := vs.Values[0].(type) {
		case *ast.BasicLit:
			consts[vs.Names[0].Name], _ = strconv.Unquote(v.Value)
		case *ast.SelectorExpr:
			if pkg, ok := v.X.(*ast.Ident); ok && pkg.Name == "core" {
				consts[vs.Names[0].Name] = "core." + v.Sel.Name
			}
		}
		return true
	})
	return consts
}
