package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/all"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/policy"
	"github.com/xosplan/xosplan/pkg/state"
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
	fs.BoolVar(&f.check, "check", false, "after the plan, run each playbook it would run in Ansible's check mode with --diff and show what it would change on its host (a prediction; this runs the playbooks, which check mode keeps from changing anything unless a task sets check_mode: false, and such a playbook is not run)")
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
	inputs, diags, err := f.inputs.values(ctx, c)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	importMap, mapDiags, err := f.imports.values(ctx, c)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	diags = diags.Extend(mapDiags)
	backend, prior, err := f.readState(cmd, c)
	if err != nil {
		return err
	}
	defer backend.Close()
	spec := f.spec(paths, root, inputs, prior)
	// The plan is bound to the state it is made against (apply refuses
	// it for another).
	id := stateIdentity(backend)
	spec.opts.State = &id
	spec.importMap = importMap
	spec.profilePath = f.imports.profilePath(c)
	spec.opts.Placement, diags = f.placement.planOptions(ctx, c, diags)
	p, desired, _, planDiags, err := makePlan(ctx, spec, prior)
	if err != nil {
		return err
	}
	diags = diags.Extend(planDiags).Sort()
	if (p == nil || diags.HasErrors()) && ctx.Err() != nil {
		if err := view.Failed(diags); err != nil {
			return err
		}
		return &exitStatus{code: exitError, err: errors.New("interrupted; the diagnostics above may be incomplete")}
	}
	if p == nil || diags.HasErrors() {
		return planFailed(view, diags)
	}
	if err := savePlan(c, f, p); err != nil {
		return err
	}
	var saved *views.SavedPlan
	if f.out != "" {
		saved = &views.SavedPlan{Path: f.out, ApplyArgs: f.state.applyArgs(id, f.out)}
	}
	if err := view.Plan(p, diags, saved); err != nil {
		return err
	}
	if f.check && !f.json {
		execRoot, err := f.root.executorRoot(c, spec.root, prior)
		if err != nil {
			return usagef(cmd, "%v", err)
		}
		preds := predictChanges(ctx, p, desired, prior, executor.DriverOptions{Root: execRoot, Timeout: f.checkTimeout})
		if err := writePredictions(human, preds); err != nil {
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
func (f planFlags) spec(paths []string, root *config.Root, inputs inputValues, prior *state.State) planSpec {
	spec := planSpec{paths: paths, root: root, inputs: inputs, inputsFile: f.inputs.file, scriptRoot: f.scriptRoot, opts: planner.Options{
		Destroy:             f.destroy,
		RefreshOnly:         f.refreshOnly,
		Targets:             f.targets,
		Excludes:            f.excludes,
		Replace:             f.replace,
		CreateBeforeDestroy: f.createBeforeDestroy,
	}}
	if f.refreshOnly {
		// The same health checks as `xosplan refresh`, with its defaults.
		spec.opts.Refresher = refresherFor(nil, root.Dirs(), f.scriptRoot, 0, prior)
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
// (--markdown-out).
func savePlan(c *cli, f planFlags, p *planner.Plan) error {
	if f.out != "" {
		if err := planner.WritePlanFile(f.out, p); err != nil {
			return err
		}
	}
	if f.jsonOut != "" {
		if err := writeTo(c, f.jsonOut, func(w io.Writer) error { return planview.JSON(w, p) }); err != nil {
			return err
		}
	}
	if f.markdownOut != "" {
		md := planview.Markdown(p, planview.MarkdownOptions{})
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

// planSpec is what a plan is made from besides the state: what plan's
// flags say, or what a plan file recorded.
type planSpec struct {
	// paths are the configuration paths as given.
	paths []string
	// root is the configuration root; nil: config.FindRoot of paths.
	root   *config.Root
	inputs inputValues
	// inputsFile is the --inputs file, which a folder walk leaves out.
	inputsFile string
	// importMap maps imported URLs to local files (--import-map).
	importMap map[string]string
	// profilePath lists the TOSCA 2.0 profile folders (--profile-path).
	profilePath []string
	// opts are the planner's options; makePlan fills Configuration,
	// InputDigests and (when empty) InputSalt.
	opts planner.Options
	// scriptRoot is where scripted components' scripts are; "" means the
	// default beside the manifests.
	scriptRoot string
	// allowNoFiles accepts a configuration without files (destroy).
	allowNoFiles bool
}

// makePlan compiles the configuration of spec and plans it against prior,
// with the digests of every input (the files compiled, the scripts the
// resources run, the placement inventory, the input values under the
// plan's salt). It returns what config.Load found too. The plan is nil
// when the diagnostics have errors; the error is for the environment.
func makePlan(ctx context.Context, spec planSpec, prior *state.State) (*planner.Plan, *graph.Graph, config.Result, diag.Diagnostics, error) {
	desired, opts, res, diags, err := makeGoal(ctx, spec)
	if err != nil || desired == nil {
		return nil, nil, res, diags, err
	}
	p, planDiags := planner.Diff(ctx, desired, prior, opts)
	diags = diags.Extend(planDiags)
	if diags.HasErrors() {
		p = nil
	}
	return p, desired, res, diags, nil
}

// makeGoal compiles the configuration of spec into the desired graph and
// the planner options a plan of it takes (spec's, with the configuration
// paths, the salt and the digests of every input): what plan diffs
// against the state, and what `xosplan sync` reconciles to. The graph is
// nil when the diagnostics have errors; the error is for the environment.
func makeGoal(ctx context.Context, spec planSpec) (*graph.Graph, planner.Options, config.Result, diag.Diagnostics, error) {
	opts := spec.opts
	res := config.Load(ctx, spec.paths, config.Options{Inputs: spec.inputs.vals, InputRanges: spec.inputs.ranges, RequireInputs: true, InputsFile: spec.inputsFile, Root: spec.root, ImportMap: spec.importMap, ProfilePath: spec.profilePath})
	diags := res.Diags
	if spec.allowNoFiles {
		diags = slices.DeleteFunc(diags, func(d diag.Diagnostic) bool { return d.Code == config.CodeNoFiles })
	}
	desired, files, mergeDiags := res.Merge()
	diags = diags.Extend(mergeDiags)
	if diags.HasErrors() {
		return nil, opts, res, diags, nil
	}
	diags = diags.Extend(driverDiagnostics([]*graph.Graph{desired}, all.NewRegistry(executor.DriverOptions{})))
	desired, files, deriveDiags := derive(ctx, desired, files, res.Root, spec.opts.Destroy || spec.opts.RefreshOnly)
	diags = diags.Extend(deriveDiags)
	if diags.HasErrors() {
		return nil, opts, res, diags, nil
	}
	if opts.InputSalt == "" {
		salt, err := planner.NewInputSalt()
		if err != nil {
			return nil, opts, res, diags, err
		}
		opts.InputSalt = salt
	}
	if pl := opts.Placement; pl != nil && pl.Source.Inventory != "" && pl.Source.Inventory != demoProvidersName && !slices.Contains(files, pl.Source.Inventory) {
		files = append(slices.Clone(files), pl.Source.Inventory)
		slices.Sort(files)
	}
	digests, err := inputDigests(files, spec.inputs.vals, opts.InputSalt)
	if err != nil {
		return nil, opts, res, diags, err
	}
	maps.Copy(digests, digestOperations(ctx, desired, spec.effectiveScriptRoot(res), spec.root))
	opts.InputDigests, opts.Configuration = digests, spec.paths
	return desired, opts, res, diags, nil
}

// effectiveScriptRoot is --script-root, or the scripts folder beside the
// manifests res found.
func (spec planSpec) effectiveScriptRoot(res config.Result) string {
	if spec.scriptRoot != "" {
		return spec.scriptRoot
	}
	return defaultScriptRoot(res.ManifestFolders())
}

// derive runs the model policies of the configuration (pkg/policy) and
// returns the desired graph with what they derive, and the input files
// with the policies' executables added, so that a plan file goes stale
// when a policy changes and a saved plan's re-plan derives from the same
// programs. This is the one place the desired graph of plan, apply (a
// saved plan too) and a synchronizer gets its derived resources. skip is
// for a destroy, which deletes what the state records, and a refresh-only
// plan, which plans no action: neither runs a policy.
func derive(ctx context.Context, desired *graph.Graph, files []string, root *config.Root, skip bool) (*graph.Graph, []string, diag.Diagnostics) {
	policies := desired.Policies()
	if skip || len(policies) == 0 {
		return desired, files, nil
	}
	var dirs []string
	if root != nil {
		dirs = root.Dirs()
	}
	derived, diags := policy.Derive(ctx, desired, policy.Options{Root: dirs})
	files = slices.Clone(files)
	wd, _ := os.Getwd()
	for _, p := range policies {
		// Named as the configuration's files are: relative to the
		// working folder when under it, so that a plan file does not
		// depend on where the checkout is.
		f := p.Implementation
		if rel, err := filepath.Rel(wd, f); err == nil && filepath.IsLocal(rel) {
			f = filepath.ToSlash(rel)
		}
		if !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	slices.Sort(files)
	return derived, files, diags
}

// inputDigests digests the input files and values for the plan file.
func inputDigests(files []string, inputs map[string]any, salt string) (map[string]string, error) {
	values := make(map[string]graph.Value, len(inputs))
	for k, v := range inputs {
		cv, err := graph.Canonicalize(v)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", k, err)
		}
		values[k] = cv
	}
	return planner.Digests(files, values, salt)
}

// digestOperations digests the scripts and artifacts the configured
// resources run: it returns their digests keyed by path (relative to the
// working folder when under it), so that a plan names the scripts it
// reviewed, and records in each operation the digest of what it runs
// (graph.Operation.Digest), which the planner compares with the one
// enacted. Only files inside the configuration root are read, through
// userfile's checks: a template may name any file as its implementation,
// and the digest of a small file outside the project (a token, a host
// name) would give its content away to a guesser. A file that cannot be
// read is left out, and so is the digest of the operation that runs it;
// the driver reports the file when it runs.
func digestOperations(ctx context.Context, g *graph.Graph, scriptRoot string, root *config.Root) map[string]string {
	out := map[string]string{}
	wd, err := os.Getwd()
	if err != nil {
		return out
	}
	unreadable := map[string]bool{}
	reg := all.NewRegistry(driver.Options{})
	digest := func(f string) (string, bool) {
		key := f
		if abs, err := filepath.Abs(f); err == nil {
			if rel, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(rel) {
				key = filepath.ToSlash(rel)
			} else {
				key = abs
			}
		}
		if d, done := out[key]; done {
			return d, true
		}
		if unreadable[key] {
			return "", false
		}
		data, problem := config.ReadFile(ctx, f, root)
		if problem != nil {
			unreadable[key] = true
			return "", false
		}
		out[key] = planner.Digest(data)
		return out[key], true
	}
	for _, r := range g.Resources() {
		var ops map[string]graph.Operation
		for _, k := range slices.Sorted(maps.Keys(r.Driver.Operations)) {
			op := r.Driver.Operations[k]
			files, complete := executor.OperationFiles(r, op, scriptRoot)
			if fl, ok := reg[r.Driver.Name].(driver.FileLister); ok && complete && len(files) > 0 {
				// A playbook's roles and the files it includes are part of
				// what it runs (implementation_changed).
				files = append(files, fl.IncludedFiles(ctx, files[0], func(p string) ([]byte, error) {
					data, problem := config.ReadFile(ctx, p, root)
					if problem != nil {
						return nil, errors.New(problem.Summary)
					}
					return data, nil
				})...)
			}
			sums := make([]string, 0, len(files))
			for _, f := range files {
				if d, ok := digest(f); ok {
					sums = append(sums, d)
				}
			}
			if !complete || len(sums) != len(files) || len(sums) == 0 {
				continue
			}
			op.Digest = sums[0]
			if len(sums) > 1 {
				op.Digest = planner.Digest([]byte(strings.Join(sums, "\n")))
			}
			if ops == nil {
				// The graph's operations may be shared; this resource
				// gets its own map.
				ops = maps.Clone(r.Driver.Operations)
			}
			ops[k] = op
		}
		if ops != nil {
			r.Driver.Operations = ops
		}
	}
	return out
}
