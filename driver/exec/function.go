package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
)

// DefaultFunctionTimeout bounds the run of a custom function's
// implementation whose signature names no timeout: a function computes a
// value, it does not deploy anything.
const DefaultFunctionTimeout = 30 * time.Second

// maxFunctionResult bounds what a custom function's implementation may
// print: its result.
const maxFunctionResult = 1 << 20

// ErrFunctionResult is wrapped by the error of a custom function whose
// implementation printed something other than one JSON value.
var ErrFunctionResult = errors.New("the implementation did not print one JSON value")

// RunFunction evaluates a TOSCA 2.0 custom function call by running its
// implementation, as an operation's runs: the path relative to
// call.WorkDir, which is the working directory, confined to the
// configuration root (driver.Options.Root), run by its extension or #!
// line, in its own process group, with the process's environment and
// driver.Options.Env. The protocol (docs/drivers.md):
//
//   - stdin: the arguments as one JSON array, in the order of the call;
//   - environment: XOSPLAN_FUNCTION (the function's name) and
//     XOSPLAN_ADDRESS (the resource whose value calls it), besides the
//     inherited ones;
//   - stdout: the result as one JSON value (at most 1 MiB; blank space
//     around it is allowed); stderr is kept for the error message;
//   - exit status 0 is success; anything else, a run past call.Timeout
//     (DefaultFunctionTimeout when zero) or output that is not one JSON
//     value is an error.
func (e *Driver) RunFunction(ctx context.Context, call driver.FunctionCall) (graph.Value, error) {
	if strings.Contains(call.Implementation, "://") {
		return nil, driver.NeedsChange(fmt.Errorf("implementation %s is a URL: xosplan runs only local files", call.Implementation))
	}
	dir, script, err := e.locate(call.WorkDir, call.Implementation)
	if err != nil {
		return nil, err
	}
	args := call.Args
	if args == nil {
		args = []graph.Value{}
	}
	stdin, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	env := append(os.Environ(), e.opts.Env...)
	env = append(env, "XOSPLAN_FUNCTION="+call.Name, "XOSPLAN_ADDRESS="+call.Address)
	timeout := call.Timeout
	if timeout <= 0 {
		timeout = DefaultFunctionTimeout
	}
	res, err := process.RunProgram(ctx, process.Program{Path: script, Dir: dir, Env: env, Stdin: stdin, Timeout: timeout,
		Grace: e.opts.KillGrace, MaxStdout: maxFunctionResult})
	if err != nil {
		return nil, err
	}
	return decodeResult(res.Stdout)
}

// decodeResult reads the one JSON value a function printed; an
// {"$unknown": …} object is refused, as a result is a known value.
func decodeResult(out []byte) (graph.Value, error) {
	r, err := canonjson.DecodeValue(out)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (it printed %q)", ErrFunctionResult, err, driver.Truncate(strings.TrimSpace(string(out)), 80))
	}
	if graph.HasUnknown(r) {
		return nil, fmt.Errorf("%w: {\"$unknown\": …} is not a value", ErrFunctionResult)
	}
	return r, nil
}
