package policy

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

// TestCodesAreDocumented checks that doc.go's code table lists exactly
// the Code… constants, each of which a test of this package produces
// (TestPolicyProblemsAreDiagnosticsNamingThePolicy and the tests it
// names below).
func TestCodesAreDocumented(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "doc.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && strings.HasPrefix(vs.Names[0].Name, "Code") {
			s, _ := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
			declared[s] = true
		}
		return true
	})
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^//\t(policy\.[a-z_]+)\s`).FindAllStringSubmatch(string(src), -1) {
		documented[m[1]] = true
	}
	covered := map[string]string{
		CodeCanceled: "TestCanceledDeriveRunsNothing", CodeOutsideRoot: "TestPolicyOutsideTheRootIsRefusedUnrun",
		CodeFailed: "table", CodeTimeout: "table", CodeOutputTooLarge: "table", CodeBadOutput: "table",
		CodeAddressConflict: "table", CodeDependencyCycle: "table",
		CodeNoFixedPoint: "TestPolicyThatKeepsChangingItsOutputIsAnErrorNamingIt",
		CodeInternal:     "TestAssembleReportsWhatTheGraphRefuses",
		CodeSetConflict:  "TestPoliciesSettingOneValueConflict",
	}
	for c := range declared {
		if !documented[c] {
			t.Errorf("code %s is not in doc.go's table", c)
		}
		if covered[c] == "" {
			t.Errorf("no test is listed as producing %s", c)
		}
	}
	for c := range documented {
		if !declared[c] {
			t.Errorf("documented code %s has no constant", c)
		}
	}
}
