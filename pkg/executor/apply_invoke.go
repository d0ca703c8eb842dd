package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/xosplan/xosplan/driver"
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
	// Wait, when positive, is how long to wait for the final result of a
	// command whose script left it for later (AwaitCommand): the
	// resource's health check is run every PollInterval until a script
	// reports it.
	Wait         time.Duration
	PollInterval time.Duration
}

// Invoke runs command ("interface.pin" of a receive-command pin) with args
// on the resource recorded at addr in cur, through its driver's Invoker.
// It returns the driver's outcome and, when the command succeeded, the
// resource as it should now be recorded: the feedback the command
// reported, with backend_code and the enacted spec unchanged, since a
// command is not an apply. A failed command changes nothing recorded.
// The secrets of cur are redacted from the output lines, the output tail
// and the error (see Redactor).
//
// With opts.Wait, a command that reported no final result is waited for
// (AwaitCommand); when the wait fails (the time is up, no health check, a
// failed check), the resource is returned with the error, to be recorded:
// the invocation stays pending, for a later script to complete.
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
	if opts.Wait > 0 && out.CommandID != "" && !HasFinalResult(out.Results) {
		rf := &Refresher{Drivers: drivers, ScriptRoot: opts.ScriptRoot, Timeout: opts.Timeout, State: cur, Redactor: red, NoDiscovery: true}
		res, err := AwaitCommand(ctx, rf, &r, out.CommandID, InvokeOptions{Wait: opts.Wait, PollInterval: opts.PollInterval, Output: output})
		out.Results = append(out.Results, res...)
		return out, &r, red.Error(err)
	}
	return out, &r, nil
}

// HasFinalResult reports whether results hold a final (not intermediate)
// one.
func HasFinalResult(results []CommandResult) bool {
	for _, r := range results {
		if !r.Intermediate {
			return true
		}
	}
	return false
}

// ErrCommandPending: the final result of a command did not arrive while
// it was waited for.
var ErrCommandPending = errors.New("the command's result has not arrived")

// AwaitCommand waits for the final result of the invocation id of rec's
// command, which its script left for later: every opts.PollInterval it
// runs rec's health check through rf and records what it observed in rec,
// until a script reports the final result under id (driver.AttrCommands
// then records it completed), the check reports the resource failed, or
// opts.Wait has passed (ErrCommandPending). It returns the results that
// arrived meanwhile (intermediate ones, then the final one), each also
// passed to opts.Output as Invoke passes them.
func AwaitCommand(ctx context.Context, rf *Refresher, rec *state.Resource, id string, opts InvokeOptions) ([]CommandResult, error) {
	inv, ok := driver.FindInvocation(rec.Feedback.Attributes, id)
	if !ok {
		return nil, fmt.Errorf("%s: no invocation %s is recorded", rec.Address, id)
	}
	shown := len(inv.Intermediate)
	if !rec.Driver.HasOperation(graph.OpHealthCheck) {
		return nil, fmt.Errorf("%w: %s %s left its result for later, and %s has no health check to deliver it (the invocation %s stays pending)",
			ErrCommandPending, rec.Address, inv.Command, rec.Address, id)
	}
	interval := opts.PollInterval
	if interval <= 0 {
		interval = 2 * time.Second
	}
	deadline := time.Now().Add(opts.Wait)
	var got []CommandResult
	for {
		if time.Now().Add(interval).After(deadline) {
			return got, fmt.Errorf("%w after %s: %s %s is still pending (invocation %s; a later health check may still complete it)",
				ErrCommandPending, opts.Wait, rec.Address, inv.Command, id)
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return got, fmt.Errorf("waiting for the result of %s: %w", inv.Command, ctx.Err())
		case <-t.C:
		}
		fb, err := rf.Refresh(ctx, rec)
		if err != nil {
			return got, fmt.Errorf("waiting for the result of %s: %w", inv.Command, err)
		}
		rec.Feedback = fb
		inv, ok = driver.FindInvocation(fb.Attributes, id)
		if !ok {
			return got, fmt.Errorf("%s: the invocation %s is no longer recorded", rec.Address, id)
		}
		for ; shown < len(inv.Intermediate); shown++ {
			got = append(got, showResult(CommandResult{Intermediate: true, Values: inv.Intermediate[shown]}, opts.Output))
		}
		if inv.Status == driver.InvocationCompleted {
			return append(got, showResult(CommandResult{Values: inv.Result}, opts.Output)), nil
		}
		if fb.Status.Failed {
			return got, fmt.Errorf("%w: the health check reports %s failed%s; the invocation %s stays pending",
				ErrCommandPending, rec.Address, messageSuffix(fb.Status.Message), id)
		}
	}
}

// showResult passes r to output as an Invoker's result line.
func showResult(r CommandResult, output func(string)) CommandResult {
	if output != nil {
		b, _ := json.Marshal(r.Values)
		kind := "result"
		if r.Intermediate {
			kind = "intermediate"
		}
		output(kind + " " + string(b))
	}
	return r
}

func messageSuffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

func invokeSafely(ctx context.Context, inv Invoker, req Request, command string, args map[string]graph.Value) (out Outcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("driver crashed: %v", r)
		}
	}()
	return inv.Invoke(ctx, req, command, args)
}
