package config

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCodesAreDocumented checks that the code table of the package
// documentation lists exactly the Code… constants the package declares,
// so that a new code cannot go undocumented and a documented one cannot
// silently disappear.
func TestCodesAreDocumented(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var declared []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			spec, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range spec.Names {
				if strings.HasPrefix(name.Name, "Code") && i < len(spec.Values) {
					if lit, ok := spec.Values[i].(*ast.BasicLit); ok {
						s, _ := strconv.Unquote(lit.Value)
						declared = append(declared, s)
					}
				}
			}
			return true
		})
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile(`(?m)^//\t([a-z]+\.[a-z_]+) `).FindAllSubmatch(doc, -1) {
		documented = append(documented, string(m[1]))
	}
	slices.Sort(declared)
	slices.Sort(documented)
	if !slices.Equal(declared, documented) {
		t.Errorf("declared codes %v\ndocumented codes %v", declared, documented)
	}
}
