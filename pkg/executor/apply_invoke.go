package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// ErrNoCommands: the resource's driver runs no custom commands.
var ErrNoCommands = errors.New("the driver runs no custom commands")

// InvokeOptions tune Invoke.
type InvokeOptions struct {
	ScriptRoot string
	Timeout    time.Duration
	// Output receives the results as they arrive, one line each (see
	// Invoker); nil for none.
	Output func(line string)
}

// Invoke runs command ("interface.pin" of a receive-command pin) with args
// on the resource recorded at addr in cur, through its driver's Invoker.
// It returns the driver's outcome and, when the command succeeded, the
// resource as it should now be recorded: the feedback the command
// reported, with backend_code and the enacted spec unchanged, since a
// command is not an apply. A failed command changes nothing recorded.
// The secrets of cur are redacted from the output lines, the output tail
// and the error (see Redactor).
func Invoke(ctx context.Context, cur *state.State, addr, command string, args map[string]graph.Value, drivers Registry, opts InvokeOptions) (Outcome, *state.Resource, error) {
	rec, ok := cur.Lookup(addr)
	if !ok {
		return Outcome{}, nil, fmt.Errorf("%w: %s", state.ErrNotFound, addr)
	}
	d, ok := drivers.Lookup(rec.Driver.Name)
	if !ok {
		return Outcome{}, nil, fmt.Errorf("%s: no driver %q", addr, rec.Driver.Name)
	}
	inv, ok := d.(Invoker)
	if !ok {
		return Outcome{}, nil, fmt.Errorf("%s (driver %s): %w", addr, rec.Driver.Name, ErrNoCommands)
	}
	prior := *rec
	red := NewRedactorFor(cur, nil)
	output := opts.Output
	if output != nil {
		output = func(line string) { opts.Output(red.String(line)) }
	}
	req := Request{
		Action:     "command",
		Address:    addr,
		Resource:   recordedResource(rec),
		Prior:      &prior,
		Resolved:   rec.Feedback.Resolved,
		ScriptRoot: opts.ScriptRoot,
		Timeout:    opts.Timeout,
		Output:     output,
		Redactor:   red,
	}
	if s, ok := rec.Feedback.Extra[ExtraScriptRoot].(string); ok && s != "" && req.ScriptRoot == "" {
		req.ScriptRoot = s
	}
	if fa, ok := rec.Driver.Options[OptionFactoryAddress].(string); ok {
		req.Factory = scriptFactory(fa, StateLookup(cur))
	}
	out, err := invokeSafely(ctx, inv, req, command, args)
	out.Feedback, err = red.Feedback(out.Feedback), red.Error(err)
	if err != nil {
		return out, nil, err
	}
	r := *rec
	fb := r.Feedback
	if out.Feedback.Attributes != nil {
		fb.Attributes = out.Feedback.Attributes
	}
	if out.Feedback.Signals != nil {
		fb.Signals = out.Feedback.Signals
	}
	fb.Extra = mergeExtra(fb.Extra, out.Feedback.Extra)
	if out.Feedback.Output != "" {
		fb.Output = out.Feedback.Output
	}
	r.Feedback = fb
	return out, &r, nil
}

func invokeSafely(ctx context.Context, inv Invoker, req Request, command string, args map[string]graph.Value) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("driver crashed: %v", r)
		}
	}()
	return inv.Invoke(ctx, req, command, args)
}
