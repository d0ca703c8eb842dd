package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// assignments reads the NAME=VALUE values of a repeatable flag (--arg,
// --attr), each VALUE read as --var reads it (varValue).
func assignments(flag string, list []string) (map[string]graph.Value, error) {
	out := map[string]graph.Value{}
	for _, a := range list {
		name, value, ok := strings.Cut(a, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("%s wants NAME=VALUE, got %q", flag, a)
		}
		v, err := graph.Canonicalize(varValue(value))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, name, err)
		}
		out[strings.TrimSpace(name)] = v
	}
	return out, nil
}

// invokeFlags are the flags of `xosplan invoke`.
type invokeFlags struct {
	state      stateFlags
	args       []string
	scriptRoot string
	json       bool
	root       rootFlag
	// wait: wait up to waitTimeout for a result the script left for
	// later, running the health check every waitInterval.
	wait         bool
	waitTimeout  time.Duration
	waitInterval time.Duration
}

func newInvokeCommand(c *cli) *cobra.Command {
	var f invokeFlags
	cmd := &cobra.Command{
		Use:   "invoke [flags] ADDRESS INTERFACE.COMMAND",
		Short: "Run a custom command of a resource (a receive-command pin's command script)",
		Long: `Invoke runs the command script of a scripted component's receive-command pin on its
recorded instance, passing the --arg values, and prints each result as it arrives: the
intermediate ones the script reports with $intermediate: true, then the final one. What the
command reports about the instance (signals, status, its log) is recorded in the state; its
enacted spec and backend status are not changed, since a command is not an apply.

A script may report only intermediate results and leave the final one for later (the
Tonomi document's asynchronous commands): the invocation is recorded pending, under its
command id, in the resource's "commands" attribute, and the first script of the resource
that reports a final result under that id (its health check, typically) completes it.
With --wait, invoke runs the health check every --wait-interval until that happens, and
prints the results as they arrive; after --wait-timeout it fails, and the invocation stays
pending for a later health check (xosplan refresh, or a sync) to complete.

Exit status: 0 success, 1 error, a failed command, or (--wait) no result in time.`,
		Example: `  xosplan invoke VM.vm control.reboot --arg mode=soft
  xosplan invoke --json VM.vm control.reboot
  xosplan invoke --wait --wait-timeout 5m DB.db control.backup`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef(cmd, "invoke needs an address and a command (INTERFACE.COMMAND)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInvoke(cmd, c, f, args[0], args[1])
		},
	}
	fs := cmd.Flags()
	f.state.add(fs)
	fs.StringArrayVar(&f.args, "arg", nil, "pass the argument `NAME=VALUE` (VALUE read as a YAML scalar; repeatable)")
	fs.StringVar(&f.scriptRoot, "script-root", "", "the `FOLDER` container paths resolve under (default: the one the resource was applied with)")
	fs.BoolVar(&f.json, "json", false, "print each result as one JSON object per line")
	fs.BoolVar(&f.wait, "wait", false, "wait for a final result the script left for a later health check")
	fs.DurationVar(&f.waitTimeout, "wait-timeout", 10*time.Minute, "with --wait, give up after `DURATION` (the invocation stays pending)")
	fs.DurationVar(&f.waitInterval, "wait-interval", 2*time.Second, "with --wait, run the health check every `DURATION`")
	f.root.add(fs)
	return cmd
}

func runInvoke(cmd *cobra.Command, c *cli, f invokeFlags, addr, command string) error {
	ctx := cmd.Context()
	args, err := assignments("--arg", f.args)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if f.wait && (f.waitTimeout <= 0 || f.waitInterval <= 0) {
		return usagef(cmd, "--wait-timeout and --wait-interval must be positive")
	}
	backend, held, cur, err := f.state.lockAndRead(ctx, c, "invoke")
	if err != nil {
		return err
	}
	defer backend.Close()
	defer held.Unlock()
	view := views.NewInvoke(f.json, c.streams())
	root, err := f.root.executorRoot(c, nil, cur)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	reg := workflow.Drivers(executor.DriverOptions{ScriptRoot: f.scriptRoot, Root: root, StateDir: workflow.ScriptStateDir(backend)})
	opts := executor.InvokeOptions{ScriptRoot: f.scriptRoot, Output: view.Result}
	if f.wait {
		opts.Wait, opts.PollInterval = f.waitTimeout, f.waitInterval
	}
	out, rec, err := executor.Invoke(ctx, cur, addr, command, args, reg, opts)
	if rec == nil {
		view.Output(out.Feedback.Output)
		return err
	}
	if err == nil && !executor.HasFinalResult(out.Results) {
		view.NoResult(addr, command)
	}
	for i := range cur.Resources {
		if cur.Resources[i].Address == addr {
			cur.Resources[i] = *rec
		}
	}
	// A wait that failed leaves the invocation pending: it is recorded
	// all the same, for a later health check to complete.
	if werr := backend.Write(context.WithoutCancel(ctx), cur); werr != nil {
		return errors.Join(err, fmt.Errorf("recording the command's feedback: %w", werr))
	}
	return err
}
