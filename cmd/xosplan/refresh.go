package main

import (
	"errors"
	"slices"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/workflow"
)

func newRefreshCommand(c *cli) *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "refresh [flags] [PATH...]",
		Short: "Check the real objects and record what changed outside xosplan",
		Long: `Refresh runs the health check (managed resources) or read (unmanaged ones) of every
recorded resource, shows what changed since the last apply, and records the observed feedback
in the state. It never changes a real object. A managed resource whose health check reports it
failed is recorded as failed, so that the next plan runs its actuator again.

The configuration (PATHs as plan reads them, the current folder when none is given; it may
be empty) says where scripts are: scripted components' health checks run from the scripts
folder beside its manifests (or --script-root), and exec implementations must lie inside its
root. Without one, each resource's scripts are found where it was last applied from.

Exit status: 0 success, 1 error or a check that could not run; with --detailed-exitcode, 2
when drift was recorded.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runRefresh(cmd, c, f, args)
		},
	}
	f.add(cmd.Flags(), false)
	f.placement.addEndpoint(cmd.Flags())
	cmd.Flags().BoolVar(&f.detailedExitcode, "detailed-exitcode", false, "exit 2 when drift was recorded (0: none, 1: error)")
	return cmd
}

func runRefresh(cmd *cobra.Command, c *cli, f applyFlags, paths []string) error {
	ctx := cmd.Context()
	opts, err := f.options(c)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	view := views.NewRefresh(f.json, c.streams())
	if err := view.Start(); err != nil {
		return err
	}
	configRoot, err := f.root.root(c, paths)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	res := config.Load(ctx, paths, config.Options{Root: configRoot})
	// Like destroy, refresh needs no configuration: the state says what
	// to check.
	configDiags := slices.DeleteFunc(res.Diags, func(d diag.Diagnostic) bool { return d.Code == config.CodeNoFiles })
	if configDiags.HasErrors() {
		return planFailed(view, configDiags)
	}
	scriptRoot := f.scriptRoot
	if scriptRoot == "" {
		scriptRoot = workflow.DefaultScriptRoot(res.ManifestFolders())
	}
	backend, held, prior, err := f.state.lockAndRead(ctx, c, "refresh")
	if err != nil {
		return err
	}
	defer backend.Close()
	defer held.Unlock()
	root, err := f.root.executorRoot(c, configRoot, prior)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	refresh := workflow.PlanRefresh(ctx, prior, workflow.RefreshOptions{ScriptRoot: scriptRoot, Root: root, Timeout: f.timeout,
		StateDir: workflow.ScriptStateDir(backend), Placement: f.placement.workflow(c).Endpoint()})
	if err := view.Plan(refresh.Plan, configDiags.Extend(refresh.Diags)); err != nil {
		return err
	}
	if refresh.Plan == nil {
		return exitWith(exitError)
	}
	opts.Events = view.Event
	rep, err := refresh.Apply(ctx, backend, opts)
	if rep != nil {
		if verr := view.Report(rep, applyview.OpRefresh); verr != nil {
			return errors.Join(err, verr)
		}
	}
	switch {
	case err != nil:
		return err
	case refresh.Diags.HasErrors():
		return exitWith(exitError)
	case f.detailedExitcode && rep.Changes():
		return exitWith(exitChanges)
	}
	return nil
}
