package tosca2

import "testing"

// TestFunctionsAreBuiltIn checks that every function offered for
// completion (Functions) is a built-in function the compiler knows.
func TestFunctionsAreBuiltIn(t *testing.T) {
	for _, f := range Functions() {
		if _, _, ok := builtinArity(f); !ok {
			t.Errorf("$%s is offered but is no built-in function", f)
		}
	}
}
