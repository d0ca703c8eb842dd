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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "doc.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Code") || len(vs.Values) != 1 {
			return true
		}
		if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
			s, _ := strconv.Unquote(lit.Value)
			consts[s] = true
		}
		return true
	})
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
