package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// applyFlags are the flags apply, destroy and refresh share.
type applyFlags struct {
	state            stateFlags
	autoApprove      bool
	parallelism      int
	driverLimits     []string
	failFast         bool
	retries          int
	scriptRoot       string
	timeout          time.Duration
	grace            time.Duration
	detailedExitcode bool
	json             bool
	inputs           inputFlags
	imports          importMapFlags
	targets          []string
	excludes         []string
	replace          []string
	placement        placementFlags
	root             rootFlag
}

func (f *applyFlags) add(fs *pflag.FlagSet, planning bool) {
	f.state.add(fs)
	f.root.add(fs)
	f.addRun(fs)
	fs.BoolVar(&f.failFast, "fail-fast", false, "start nothing new after the first failure")
	fs.IntVar(&f.retries, "retries", executor.DefaultRetries, "run a failed action again up to `N` times, at increasing intervals")
	fs.BoolVar(&f.json, "json", false, "print one JSON event per line instead of human text")
	if planning {
		fs.BoolVar(&f.autoApprove, "auto-approve", false, "apply without asking for confirmation")
		fs.BoolVar(&f.detailedExitcode, "detailed-exitcode", false, "exit 2 when changes were applied (0: nothing to do, 1: error)")
		fs.StringArrayVar(&f.targets, "target", nil, "apply only `ADDRESS` and what it depends on (destroy: what depends on it); repeatable")
		fs.StringArrayVar(&f.excludes, "exclude", nil, "leave out `ADDRESS` and what depends on it; repeatable")
		f.inputs.add(fs)
		f.imports.add(fs)
		f.imports.addLimits(fs)
		f.placement.add(fs)
	}
}

// addRun declares the flags of how actions run, which sync shares.
func (f *applyFlags) addRun(fs *pflag.FlagSet) {
	fs.IntVar(&f.parallelism, "parallelism", executor.DefaultParallelism, "run at most `N` actions at once")
	fs.StringArrayVar(&f.driverLimits, "driver-parallelism", nil, "run at most N actions of one driver at once (`DRIVER=N`, e.g. exec=2; repeatable; default: no limit per driver, only --parallelism)")
	addScriptRoot(fs, &f.scriptRoot)
	fs.DurationVar(&f.timeout, "timeout", 0, "bound every operation without its own timeout (`DURATION`; default 10m)")
	fs.DurationVar(&f.grace, "grace", executor.DefaultGrace, "after an interrupt, how long (`DURATION`) running actions may go on before they are cancelled")
}

func (f *applyFlags) options(c *cli) (executor.Options, error) {
	retries := f.retries
	if retries == 0 {
		retries = -1 // executor.Options: 0 means the default
	}
	var per map[string]int
	drivers := workflow.Drivers(executor.DriverOptions{})
	for _, l := range f.driverLimits {
		name, n, ok := strings.Cut(l, "=")
		name = strings.TrimSpace(name)
		v, err := strconv.Atoi(strings.TrimSpace(n))
		if !ok || err != nil || v < 1 || name == "" {
			return executor.Options{}, fmt.Errorf("--driver-parallelism wants DRIVER=N with N at least 1, got %q", l)
		}
		// A misspelt name would limit nothing, silently.
		if _, known := drivers.Lookup(name); !known {
			return executor.Options{}, fmt.Errorf("--driver-parallelism %s: there is no driver %q (drivers: %s)", l, name, strings.Join(slices.Sorted(maps.Keys(drivers)), ", "))
		}
		if per == nil {
			per = map[string]int{}
		}
		per[name] = v
	}
	return executor.Options{
		Parallelism: f.parallelism,
		PerDriver:   per,
		Retries:     retries,
		FailFast:    f.failFast,
		Grace:       f.grace,
		Abort:       c.abort,
		ScriptRoot:  f.scriptRoot,
		Timeout:     f.timeout,
	}, nil
}

func newApplyCommand(c *cli) *cobra.Command {
	var f applyFlags
	cmd := &cobra.Command{
		Use:   "apply [flags] [PLANFILE | PATH...]",
		Short: "Drive every resource to the state the configuration describes",
		Long: `Apply carries out a plan. Given a plan file (written by plan --out) it applies it without
asking, after making the plan again from the configuration it records (with the --var and
--inputs given now) and checking that it is the same plan and that neither the state nor any
input changed since it was made: an edited or stale plan file is refused. Given configuration
paths (the current folder when none is given), it plans, shows the plan, and asks for
confirmation unless --auto-approve is set.

Actions run as soon as everything they depend on has succeeded, at most --parallelism at once.
A failed action is retried at increasing intervals (--retries); then what depends on it is
skipped and independent resources carry on. Every completed operation is recorded in the state
journal before apply moves on, so an interrupted apply loses nothing: plan again to see what is
left, apply again to finish. The state lock is held for the whole apply.

On SIGINT or SIGTERM nothing new starts; running actions get --grace to finish, the state is
saved, and apply exits 1.

Exit status: 0 success, 1 error or a failed action; with --detailed-exitcode, 2 when changes
were applied.`,
		Example: `  xosplan apply --auto-approve examples/webstack
  xosplan plan --out plan.bin stack/ && xosplan apply plan.bin
  xosplan apply --auto-approve --script-root examples/petclinic/scripts examples/petclinic`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runApply(cmd, c, f, args, applyview.OpApply)
		},
	}
	fs := cmd.Flags()
	f.add(fs, true)
	fs.StringArrayVar(&f.replace, "replace", nil, "replace `ADDRESS` even if it has not changed; repeatable")
	return cmd
}

// isPlanFile reports whether args name one saved plan rather than
// configuration: a single regular file holding JSON (plan files are JSON;
// configuration is YAML, which a TOSCA or manifest file never starts with
// a brace).
func isPlanFile(ctx context.Context, args []string) bool {
	if len(args) != 1 {
		return false
	}
	fh, _, err := userfile.Open(ctx, args[0], userfile.Options{MaxBytes: planner.MaxPlanFileSize})
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(fh, head)
	return bytes.HasPrefix(bytes.TrimSpace(head[:n]), []byte("{"))
}

// applyRun is one apply or destroy in progress.
type applyRun struct {
	c *cli
	f applyFlags
	// root is the configuration root.
	root *config.Root
	// importMap maps imported URLs to local files (--import-map).
	importMap map[string]string
	// profilePath lists the TOSCA 2.0 profile folders (--profile-path).
	profilePath []string
	// specLimits bound the resources' specs (--max-spec-string, --max-spec-list).
	specLimits config.SpecLimits
	op         applyview.Operation
	view       views.Apply
}

// check checks the flags of an apply or destroy of args and returns the
// executor's options from them, and whether args name a saved plan.
func (f *applyFlags) check(cmd *cobra.Command, c *cli, args []string, op applyview.Operation) (executor.Options, bool, error) {
	if f.parallelism < 1 {
		return executor.Options{}, false, usagef(cmd, "--parallelism must be at least 1")
	}
	if f.retries < 0 {
		return executor.Options{}, false, usagef(cmd, "--retries cannot be negative")
	}
	opts, err := f.options(c)
	if err != nil {
		return executor.Options{}, false, usagef(cmd, "%v", err)
	}
	fromFile := op == applyview.OpApply && isPlanFile(cmd.Context(), args)
	if f.json && !f.autoApprove && !fromFile {
		return executor.Options{}, false, usagef(cmd, "%s needs %s or a plan file: there is no one to confirm", c.flag("json"), c.flag("auto-approve"))
	}
	if noInput(cmd) && !f.autoApprove && !fromFile {
		return executor.Options{}, false, usagef(cmd, "%s=false needs %s or a plan file: %s may not ask for confirmation", c.flag("input"), c.flag("auto-approve"), cmd.CommandPath())
	}
	return opts, fromFile, nil
}

func runApply(cmd *cobra.Command, c *cli, f applyFlags, args []string, op applyview.Operation) (err error) {
	ctx := cmd.Context()
	opts, fromFile, err := f.check(cmd, c, args, op)
	if err != nil {
		return err
	}
	r := &applyRun{c: c, f: f, op: op, view: views.NewApply(f.json, c.streams())}
	if err := r.view.Start(); err != nil {
		return err
	}
	defer func() {
		var st *exitStatus
		if err != nil && !errors.As(err, &st) {
			err = withLockHint(err)
			r.view.Error(err)
		}
	}()
	inputs, diags, saved, err := r.readArgs(cmd, args, fromFile)
	if err != nil {
		return err
	}
	backend, held, loaded, err := r.lockState(ctx)
	if err != nil {
		return err
	}
	defer backend.Close()
	defer held.Unlock()
	prior := loaded.State
	// Processes a killed apply left running end before anything runs,
	// including the health checks that remaking a saved refresh-only plan
	// runs, and whether or not this plan has steps.
	executor.EndLeftovers(loaded.Interrupted, r.view.Event)

	p, desired, manifestDirs, err := r.plan(ctx, args, fromFile, saved, backend, prior, inputs, diags)
	if err != nil || p == nil {
		return err
	}
	if len(p.Steps()) == 0 && (p.Mode != planner.ModeRefreshOnly || len(p.Drift) == 0) {
		return r.nothingToRun(ctx, backend, desired)
	}
	if p.HasChanges() && !fromFile && !f.autoApprove && !r.confirm(ctx) {
		r.view.Cancelled(op)
		return exitWith(exitError)
	}
	if opts.ScriptRoot == "" {
		opts.ScriptRoot = workflow.DefaultScriptRoot(manifestDirs)
	}
	return r.execute(ctx, backend, p, desired, prior, opts)
}

// readArgs finds the configuration root of a new plan, reads the inputs
// and the import map, and reads the saved plan args name when fromFile,
// choosing the state it names.
func (r *applyRun) readArgs(cmd *cobra.Command, args []string, fromFile bool) (workflow.Inputs, diag.Diagnostics, *planner.Plan, error) {
	c, f := r.c, r.f
	if !fromFile {
		// A saved plan's root is found from the input files it names.
		paths := args
		if len(paths) == 0 {
			paths = []string{"."}
		}
		var err error
		if r.root, err = f.root.root(c, paths); err != nil {
			return workflow.Inputs{}, nil, nil, usagef(cmd, "%v", err)
		}
		if err := workflow.RefuseArchives(paths); err != nil {
			return workflow.Inputs{}, nil, nil, err
		}
	}
	inputs, importMap, diags, err := readValues(cmd, c, &f.inputs, &f.imports)
	if err != nil {
		return workflow.Inputs{}, nil, nil, err
	}
	r.importMap = importMap
	r.profilePath = f.imports.profilePath(c)
	r.specLimits = f.imports.specLimits()
	if !fromFile {
		return inputs, diags, nil, nil
	}
	// A saved plan names the state it was made against: it chooses the
	// state where the user chose none, and no other state is opened.
	saved, err := planner.ReadPlanFile(args[0])
	if err != nil {
		return workflow.Inputs{}, nil, nil, err
	}
	if r.f.state, err = r.f.state.forPlan(c, saved.State); err != nil {
		return workflow.Inputs{}, nil, nil, err
	}
	return inputs, diags, saved, nil
}

// plan returns the plan to apply with the desired graph and the manifest
// folders: the saved plan remade against the state when fromFile, or a new
// plan, which it shows.
func (r *applyRun) plan(ctx context.Context, args []string, fromFile bool, saved *planner.Plan, backend state.Store, prior *state.State, inputs workflow.Inputs, diags diag.Diagnostics) (*planner.Plan, *graph.Graph, []string, error) {
	if fromFile {
		p, desired, manifestDirs, _, err := r.savedPlan(ctx, saved, backend, prior, inputs, diags)
		return p, desired, manifestDirs, err
	}
	p, desired, manifestDirs, diags, err := r.newPlan(ctx, args, prior, inputs, diags)
	if err != nil || p == nil {
		return nil, nil, nil, err
	}
	if err := r.view.Plan(p, diags); err != nil {
		return nil, nil, nil, err
	}
	return p, desired, manifestDirs, nil
}

// nothingToRun ends an apply whose plan has no step: it says so in the
// words CI tools look for.
func (r *applyRun) nothingToRun(ctx context.Context, backend state.Store, desired *graph.Graph) error {
	// A journal left by a killed apply may hold everything this plan
	// found done; fold it into the snapshot now, or the state would live
	// in the journal alone.
	if _, err := backend.Compact(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("saving state: %w", err)
	}
	if err := r.view.Report(&executor.Report{}, r.op); err != nil {
		return err
	}
	// The outputs may have changed without any resource.
	return r.recordOutputs(ctx, backend, desired)
}

// lockState opens the state backend, takes its lock (which the caller
// releases) and loads the state with its journal, refusing a journal that
// an apply still running uses.
func (r *applyRun) lockState(ctx context.Context) (state.Store, *state.HeldLock, *state.Loaded, error) {
	backend, err := r.f.state.open(ctx, r.c)
	if err != nil {
		return nil, nil, nil, err
	}
	held, err := backend.Lock(ctx, stateLockInfo(string(r.op)))
	if err != nil {
		backend.Close()
		return nil, nil, nil, err
	}
	loaded, err := workflow.LoadLocked(ctx, backend)
	if err != nil {
		held.Unlock()
		backend.Close()
		return nil, nil, nil, err
	}
	r.view.TornJournal(loaded.TornBytes)
	return backend, held, loaded, nil
}

// execute carries out p, confirmed, and reports how it went.
func (r *applyRun) execute(ctx context.Context, backend state.Store, p *planner.Plan, desired *graph.Graph, prior *state.State, opts executor.Options) error {
	opts.Events = r.view.Event
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(applyGCPercent))
	}
	execRoot, err := r.f.root.executorRoot(r.c, r.root, prior)
	if err != nil {
		return err
	}
	applied, applyErr := workflow.Apply(ctx, p, desired, backend, prior, workflow.ApplyOptions{Executor: opts, Root: execRoot,
		Timeout: r.f.timeout, Placement: r.f.placement.workflow(r.c)})
	if applied == nil {
		return applyErr
	}
	r.view.PlacementWarnings(applied.PlacementErrors)
	rep := applied.Report
	if rep != nil {
		if err := r.view.Report(rep, r.op); err != nil {
			return errors.Join(applyErr, err)
		}
	}
	switch {
	case applyErr != nil:
		return applyErr
	case rep.Interrupted:
		return &exitStatus{code: exitError, err: errors.New("interrupted: the state holds what finished; run apply again to complete")}
	case !rep.OK():
		return exitWith(exitError)
	}
	if err := r.recordOutputs(ctx, backend, desired); err != nil {
		return err
	}
	if r.f.detailedExitcode && rep.Changes() {
		return exitWith(exitChanges)
	}
	return nil
}

// newPlan compiles the configuration and plans it against prior.
func (r *applyRun) newPlan(ctx context.Context, paths []string, prior *state.State, inputs workflow.Inputs, diags diag.Diagnostics) (*planner.Plan, *graph.Graph, []string, diag.Diagnostics, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	spec := workflow.Spec{Paths: paths, Root: r.root, Inputs: inputs, ImportMap: r.importMap, ProfilePath: r.profilePath, SpecLimits: r.specLimits, ScriptRoot: r.f.scriptRoot, Options: planner.Options{
		Destroy:  r.op == applyview.OpDestroy,
		Targets:  r.f.targets,
		Excludes: r.f.excludes,
		Replace:  r.f.replace,
	},
		// Destroy needs no configuration (the state records what to
		// delete and where its scripts are): an empty folder is fine.
		AllowNoFiles: r.op == applyview.OpDestroy,
	}
	if r.op != applyview.OpDestroy {
		spec.Options.Placement, diags = r.f.placement.workflow(r.c).PlanOptions(ctx, diags)
	}
	planned, planDiags, err := workflow.MakePlan(ctx, spec, prior)
	if err != nil {
		return nil, nil, nil, diags, err
	}
	diags = diags.Extend(planDiags).Sort()
	if planned == nil || diags.HasErrors() {
		return nil, nil, nil, diags, planFailed(r.view, diags)
	}
	if r.op == applyview.OpApply {
		if err := workflow.CheckConfigured(planned.Config, prior, paths); err != nil {
			return nil, nil, nil, diags, err
		}
	}
	return planned.Plan, planned.Desired, planned.Config.ManifestFolders(), diags, nil
}

// savedPlan makes the plan of a plan file again (workflow.RemakeSaved),
// after the checks that it may be applied here, against backend's state,
// with the input values given now; the configuration root is --root, or
// the one the working folder lies in, never one the plan file chooses.
func (r *applyRun) savedPlan(ctx context.Context, saved *planner.Plan, backend state.Store, prior *state.State, inputs workflow.Inputs, diags diag.Diagnostics) (*planner.Plan, *graph.Graph, []string, diag.Diagnostics, error) {
	planned, planDiags, err := workflow.RemakeSaved(ctx, saved, backend, prior, workflow.SavedOptions{Inputs: inputs, ImportMap: r.importMap,
		ProfilePath: r.profilePath, SpecLimits: r.specLimits, ScriptRoot: r.f.scriptRoot, Placement: r.f.placement.workflow(r.c),
		Root: func() (*config.Root, error) {
			var err error
			r.root, err = r.f.root.root(r.c, []string{"."})
			return r.root, err
		}})
	if err != nil {
		return nil, nil, nil, diags, err
	}
	if all := diags.Extend(planDiags); planned == nil || all.HasErrors() {
		return nil, nil, nil, diags, planFailed(r.view, all)
	}
	return planned.Plan, planned.Desired, planned.Config.ManifestFolders(), diags, nil
}

// confirm asks whether to go on, through the view; the answer is a line
// of stdin. It is read on its own goroutine so that an interrupt while
// waiting cancels at once; that goroutine may stay blocked on stdin until
// the process exits, which follows immediately.
func (r *applyRun) confirm(ctx context.Context) bool {
	return r.view.Approve(r.op, func() string {
		answer := make(chan string, 1)
		go func() {
			line, _ := bufio.NewReader(r.c.stdin).ReadString('\n')
			answer <- line
		}()
		select {
		case line := <-answer:
			return line
		case <-ctx.Done():
			return ""
		}
	})
}

// addScriptRoot declares --script-root, which every command that runs or
// digests scripted components' scripts takes: plan (whose digests name
// the scripts, and whose --refresh-only runs health checks), apply,
// destroy and refresh.
func addScriptRoot(fs *pflag.FlagSet, dst *string) {
	fs.StringVar(dst, "script-root", "", "the `FOLDER` scripted components' container paths (/vm/launch.py) resolve under (default: the scripts folder beside the manifests)")
}

// recordOutputs records the outputs of desired after an apply or destroy
// that succeeded (executor.RecordOutputs), and shows an apply's.
func (r *applyRun) recordOutputs(ctx context.Context, backend state.Store, desired *graph.Graph) error {
	values, _, err := executor.RecordOutputs(ctx, backend, desired)
	if err != nil {
		return err
	}
	if r.op != applyview.OpApply {
		return nil
	}
	return r.view.Outputs(values)
}
