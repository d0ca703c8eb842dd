package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// exitChanges is --detailed-exitcode's "the plan has changes".
const exitChanges = 2

// planFlags are the flags of `xosplan plan`.
type planFlags struct {
	state               stateFlags
	lock                bool
	out                 string
	jsonOut             string
	markdownOut         string
	markdownID          string
	json                bool
	detailedExitcode    bool
	destroy             bool
	refreshOnly         bool
	createBeforeDestroy bool
	targets             []string
	excludes            []string
	replace             []string
	scriptRoot          string
	inputs              inputFlags
	imports             importMapFlags
	placement           placementFlags
	root                rootFlag
	check               bool
	checkTimeout        time.Duration
}

func newPlanCommand(c *cli) *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan [flags] [PATH...]",
		Short: "Show the changes that apply would make, and optionally save them",
		Long: `Plan compiles the configuration (files and folders, as validate reads them; the current
folder when none is given), compares it with the recorded state, and shows the ordered
actions that apply would take: create, update in place, replace, delete, read.

A resource needs action when its configured spec differs from the spec last enacted, or
when its last apply did not succeed; feedback (attributes, status) never causes an action.

The state file is read without taking the lock: the file backend has no shared lock, its
writes are atomic, and a saved plan records the state's lineage and serial, so apply
refuses the plan if the state changed in the meantime. --lock-timeout DURATION waits that
long for a command holding the lock (an apply) to finish first; --lock=false never waits.

Outputs: the human plan on stdout (on stderr when --json-out is "-"), and in the same run
--out (the plan file for apply), --json-out (the JSON plan), --markdown-out (a pull-request
comment). --json switches stdout to one JSON event per line.

Exit status: 0 success, 1 error; with --detailed-exitcode, 2 when the plan has changes.`,
		Example: `  xosplan plan examples/webstack
  xosplan plan --out plan.bin --json-out plan.json --markdown-out comment.md stack/
  xosplan plan --destroy --exclude db stack/
  xosplan plan --detailed-exitcode stack/ || [ $? -eq 2 ]`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd, c, f, args)
		},
	}
	fs := cmd.Flags()
	f.state.addRead(fs)
	fs.BoolVar(&f.lock, "lock", true, "with --lock-timeout, wait for the state lock before reading the state; false never waits (plan needs no lock: its read is atomic)")
	fs.DurationVar(&f.state.lockTimeout, "lock-timeout", 0, "wait up to `DURATION` for a command holding the state lock (an apply) to finish, then read the state it left (default 0: read at once, without the lock)")
	fs.StringVar(&f.out, "out", "", "write the plan to `FILE` for `xosplan apply FILE`")
	fs.StringVar(&f.jsonOut, "json-out", "", "write the JSON plan to `FILE` (- for stdout)")
	fs.StringVar(&f.markdownOut, "markdown-out", "", "write a pull-request comment to `FILE`")
	fs.StringVar(&f.markdownID, "markdown-id", "", "name the configuration in the comment's marker (<!-- xosplan:plan_id=… id=`ID` -->), so that a bot updates this configuration's comment: letters, digits, . _ - /")
	fs.BoolVar(&f.json, "json", false, "print one JSON event per line instead of the human plan")
	fs.BoolVar(&f.detailedExitcode, "detailed-exitcode", false, "exit 2 when the plan has changes (0: none, 1: error)")
	fs.BoolVar(&f.destroy, "destroy", false, "plan the deletion of every recorded resource")
	fs.BoolVar(&f.refreshOnly, "refresh-only", false, "plan no action; only report objects changed outside xosplan")
	fs.BoolVar(&f.createBeforeDestroy, "create-before-destroy", false, "replace every resource by creating the new one first")
	fs.StringArrayVar(&f.targets, "target", nil, "plan only `ADDRESS` and what it depends on (destroy: what depends on it); repeatable")
	fs.StringArrayVar(&f.excludes, "exclude", nil, "leave out `ADDRESS` and what depends on it; repeatable")
	fs.StringArrayVar(&f.replace, "replace", nil, "replace `ADDRESS` even if it has not changed; repeatable")
	addScriptRoot(fs, &f.scriptRoot)
	f.inputs.add(fs)
	f.imports.add(fs)
	f.placement.add(fs)
	f.root.add(fs)
	fs.BoolVar(&f.check, "check", false, "after the plan, run each playbook it would run in Ansible's check mode with --diff and show what it would change on its host, also in --json, --json-out and --markdown-out (a prediction; this runs the playbooks, which check mode keeps from changing anything unless a task sets check_mode: false, and such a playbook is not run)")
	fs.DurationVar(&f.checkTimeout, "check-timeout", defaultCheckTimeout, "with --check, bound each playbook's check-mode run (`DURATION`)")
	return cmd
}

func runPlan(cmd *cobra.Command, c *cli, f planFlags, paths []string) error {
	ctx := cmd.Context()
	if f.destroy && f.refreshOnly {
		return usagef(cmd, "--destroy and --refresh-only cannot be used together")
	}
	if f.json && f.jsonOut == "-" {
		return usagef(cmd, "--json and --json-out - both write to stdout; give --json-out a file")
	}
	if f.markdownID != "" && !planview.ValidMarkdownID(f.markdownID) {
		return usagef(cmd, "--markdown-id %q: use 1 to 100 letters, digits, '.', '_', '-' and '/'", f.markdownID)
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	// The human plan goes to stdout unless stdout carries the JSON plan.
	human := c.stdout
	if f.jsonOut == "-" {
		human = c.stderr
	}
	view := views.NewPlan(f.json, human, c.streams())
	if err := view.Start(); err != nil {
		return err
	}

	root, err := f.root.root(c, paths)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	inputs, importMap, diags, err := readValues(cmd, c, &f.inputs, &f.imports)
	if err != nil {
		return err
	}
	backend, prior, err := f.readState(cmd, c)
	if err != nil {
		return err
	}
	defer backend.Close()
	spec := f.spec(paths, root, inputs, prior)
	// The plan is bound to the state it is made against (apply refuses
	// it for another).
	id := workflow.StateIdentity(backend)
	spec.Options.State = &id
	spec.ImportMap = importMap
	spec.ProfilePath = f.imports.profilePath(c)
	spec.Options.Placement, diags = f.placement.workflow(c).PlanOptions(ctx, diags)
	planned, planDiags, err := workflow.MakePlan(ctx, spec, prior)
	if err != nil {
		return err
	}
	var p *planner.Plan
	if planned != nil {
		p = planned.Plan
	}
	preds, err := f.predictions(cmd, c, spec.Root, prior, planned, planDiags)
	if err != nil {
		return err
	}
	return f.report(ctx, c, view, p, diags.Extend(planDiags).Sort(), id, preds)
}

// readValues reads --inputs and the import map, the values a plan and an
// apply compile with, and their diagnostics in that order.
func readValues(cmd *cobra.Command, c *cli, inputs *inputFlags, imports *importMapFlags) (workflow.Inputs, map[string]string, diag.Diagnostics, error) {
	ctx := cmd.Context()
	values, diags, err := inputs.values(ctx, c)
	if err != nil {
		return workflow.Inputs{}, nil, nil, usagef(cmd, "%v", err)
	}
	importMap, mapDiags, err := imports.values(ctx, c)
	if err != nil {
		return workflow.Inputs{}, nil, nil, usagef(cmd, "%v", err)
	}
	return values, importMap, diags.Extend(mapDiags), nil
}

// report shows the plan p made against the state id with its sorted
// diagnostics (and plan --check's predictions when it ran), or its
// failure, writes the plan's files and returns the exit
// status it calls for.
func (f planFlags) report(ctx context.Context, c *cli, view views.Plan, p *planner.Plan, diags diag.Diagnostics, id state.Identity, preds []planview.Prediction) error {
	if (p == nil || diags.HasErrors()) && ctx.Err() != nil {
		if err := view.Failed(diags); err != nil {
			return err
		}
		return &exitStatus{code: exitError, err: errors.New("interrupted; the diagnostics above may be incomplete")}
	}
	if p == nil || diags.HasErrors() {
		return planFailed(view, diags)
	}
	if err := savePlan(c, f, p, preds); err != nil {
		return err
	}
	var saved *views.SavedPlan
	if f.out != "" {
		saved = &views.SavedPlan{Path: f.out, ApplyArgs: f.state.applyArgs(id, f.out)}
	}
	if err := view.Plan(p, diags, saved); err != nil {
		return err
	}
	if preds != nil {
		// plan --check's predictions, under the plan.
		if err := view.Predictions(preds); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return &exitStatus{code: exitError, err: errors.New("interrupted")}
	}
	if f.detailedExitcode && p.HasChanges() {
		return exitWith(exitChanges)
	}
	return nil
}

// readState opens the state and reads it. Plan needs no lock (a read is
// atomic, and apply refuses a plan whose state changed since), so it
// reads at once; with --lock-timeout (and not --lock=false) it first
// waits that long for the lock, so that a plan made while an apply runs
// is made against the state that apply leaves, and releases it once the
// state is read. The caller closes the backend.
func (f planFlags) readState(cmd *cobra.Command, c *cli) (state.Store, *state.State, error) {
	ctx := cmd.Context()
	if f.lock && cmd.Flags().Changed("lock-timeout") {
		backend, held, prior, err := f.state.lockAndRead(ctx, c, "plan")
		if err != nil {
			return nil, nil, err
		}
		if err := held.Unlock(); err != nil {
			backend.Close()
			return nil, nil, err
		}
		return backend, prior, nil
	}
	backend, err := f.state.open(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	prior, err := backend.Read(ctx)
	if err != nil {
		backend.Close()
		return nil, nil, err
	}
	return backend, prior, nil
}

// spec returns what the flags ask to plan of paths against prior.
func (f planFlags) spec(paths []string, root *config.Root, inputs workflow.Inputs, prior *state.State) workflow.Spec {
	spec := workflow.Spec{Paths: paths, Root: root, Inputs: inputs, ScriptRoot: f.scriptRoot, Options: planner.Options{
		Destroy:             f.destroy,
		RefreshOnly:         f.refreshOnly,
		Targets:             f.targets,
		Excludes:            f.excludes,
		Replace:             f.replace,
		CreateBeforeDestroy: f.createBeforeDestroy,
	}}
	if f.refreshOnly {
		// The same health checks as `xosplan refresh`, with its defaults.
		spec.Options.Refresher = workflow.Refresher(nil, root.Dirs(), f.scriptRoot, 0, prior)
	}
	return spec
}

// failureView is the part of a view that reports a configuration that
// could not be planned or compiled.
type failureView interface {
	Failed(diags diag.Diagnostics) error
}

// planFailed renders the diagnostics of a plan (or graph) that could not
// be made, and exits 1.
func planFailed(view failureView, diags diag.Diagnostics) error {
	if err := view.Failed(diags); err != nil {
		return err
	}
	return exitWith(exitError)
}

// savePlan writes the files plan's flags ask for: the plan file (--out),
// the JSON plan (--json-out) and the pull-request comment
// (--markdown-out), with plan --check's predictions (nil without it).
func savePlan(c *cli, f planFlags, p *planner.Plan, preds []planview.Prediction) error {
	if f.out != "" {
		if err := planner.WritePlanFile(f.out, p); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		if err := writeTo(c, f.jsonOut, func(w io.Writer) error { return planview.JSONWithPredictions(w, p, preds) }); err != nil {
			return err
		}
	}
	if f.markdownOut != "" {
		md := planview.Markdown(p, planview.MarkdownOptions{Predictions: preds, ID: f.markdownID})
		if err := writeTo(c, f.markdownOut, func(w io.Writer) error { _, err := io.WriteString(w, md); return err }); err != nil {
			return err
		}
	}
	return nil
}

// writeTo writes through fn to path, or to stdout for "-". A file is
// written whole or not at all.
func writeTo(c *cli, path string, fn func(io.Writer) error) error {
	if path == "-" {
		return fn(c.stdout)
	}
	var buf bytes.Buffer
	if err := fn(&buf); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
