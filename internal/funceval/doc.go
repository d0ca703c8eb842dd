// Package funceval evaluates the built-in functions of TOSCA 2.0 (§10.2)
// whose value follows from their arguments alone: the boolean,
// comparison, arithmetic, string, list, map and set functions.
//
// It is the one implementation of their semantics. pkg/tosca folds a call
// whose arguments are known at compile time; a call with an argument known
// only at apply time (a $get_attribute, say) compiles to the graph.Unknown
// that Call returns, and pkg/executor evaluates it with Eval once the
// arguments are resolved. So a value is the same, and a call that does
// not fit its arguments fails with the same message, whichever of the two
// evaluates it. The graph queries ($get_property, $get_attribute,
// $get_artifact, $available_allocation), $get_input, $value and the index
// functions need the template and stay with pkg/tosca.
//
// The package imports only pkg/graph, so that both may use it
// (internal/layering).
package funceval
