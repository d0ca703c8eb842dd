package tosca2

import (
	"slices"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// TestFunctionsAreBuiltIn checks that every function offered for
// completion (Functions) is a built-in function the compiler knows.
func TestFunctionsAreBuiltIn(t *testing.T) {
	for _, f := range Functions() {
		if _, _, ok := builtinArity(f); !ok {
			t.Errorf("$%s is offered but is no built-in function", f)
		}
	}
}

// TestPlainNodeKeys checks that plainNodeKeys, which lets readTopology
// skip keys for a template, accepts exactly the keynames of
// nodeTemplateKeys that keys checks nothing more of.
func TestPlainNodeKeys(t *testing.T) {
	for _, k := range append(nodeTemplateKeys(), "unknown", "Type") {
		root, diags := yamlsrc.Parse("t.yaml", []byte(k+": x\n"), yamlsrc.Limits{})
		if diags.HasErrors() {
			t.Fatal(diags.Err())
		}
		want := slices.Contains(nodeTemplateKeys(), k) && k != "description" && k != "metadata"
		if got := plainNodeKeys(root); got != want {
			t.Errorf("plainNodeKeys of {%s: x} = %v, want %v", k, got, want)
		}
	}
}
