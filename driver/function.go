package driver

import (
	"context"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// FunctionCall is one call of a TOSCA 2.0 custom function (§10.4) to
// evaluate: the graph.Unknown function(name, declaration, [arguments…])
// that pkg/tosca compiles a call to, its arguments resolved.
type FunctionCall struct {
	// Name is the function's name as the template calls it.
	Name string
	// Implementation is the artifact that computes it: a path relative
	// to WorkDir (the folder of the top-level template).
	Implementation string
	WorkDir        string
	// Address is the resource whose value calls it ("" for none).
	Address string
	// Args are the arguments, every one known.
	Args []graph.Value
	// Timeout bounds the run; zero means the runner's default (the exec
	// driver's DefaultFunctionTimeout).
	Timeout time.Duration
}

// FunctionRunner evaluates custom function calls. The exec driver is
// one (exec.Driver.RunFunction): an implementation is a script it runs as
// it runs operations. The walk finds it with Registry.Functions.
type FunctionRunner interface {
	RunFunction(ctx context.Context, call FunctionCall) (graph.Value, error)
}
