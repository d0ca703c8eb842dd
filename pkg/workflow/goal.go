package workflow

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/policy"
	"github.com/xosplan/xosplan/pkg/state"
)

// Inputs are the input values given to a configuration (an inputs file,
// values set one by one) and where each was given.
type Inputs struct {
	// Values is nil when no value is given.
	Values map[string]any
	// Ranges are where each value was given (config.Options.InputRanges):
	// its place in the inputs file, or none.
	Ranges map[string]diag.Range
	// File is the inputs file, which a folder walk leaves out.
	File string
}

// Spec is what a goal is made from besides the state: what a command's
// flags say, or what a plan file recorded.
type Spec struct {
	// Paths are the configuration paths as given.
	Paths []string
	// Root is the configuration root; nil: config.FindRoot of Paths.
	Root   *config.Root
	Inputs Inputs
	// ImportMap maps imported URLs to local files.
	ImportMap map[string]string
	// ProfilePath lists the TOSCA 2.0 profile folders.
	ProfilePath []string
	// SpecLimits bound every string and list of a resource's spec.
	SpecLimits config.SpecLimits
	// Options are the planner's options; MakeGoal fills Configuration,
	// InputDigests and (when empty) InputSalt.
	Options planner.Options
	// ScriptRoot is where scripted components' scripts are; "" means the
	// default beside the manifests (DefaultScriptRoot).
	ScriptRoot string
	// AllowNoFiles accepts a configuration without files (a destroy,
	// which deletes what the state records).
	AllowNoFiles bool
	// Hold makes a goal of a configuration whose errors all belong to
	// resources (config.Result.Holds): a synchronizer's, which holds
	// those resources (Goal.Held) and reconciles the others. Without it
	// (plan, apply) any error leaves no goal.
	Hold bool
	// Prior is the recorded state the goal is planned against, which a
	// model policy that reads feedback reads (policy.Options.Prior); nil
	// reads none. MakePlan sets it to the state it plans against.
	Prior *state.State
}

// Goal is the configuration compiled into what a plan diffs against the
// state and what a synchronizer reconciles to.
type Goal struct {
	// Desired is the desired graph, with what the model policies derive
	// and the digest of what each operation runs.
	Desired *graph.Graph
	// Options are the Spec's planner options with the configuration
	// paths, the salt and the digests of every input.
	Options planner.Options
	// Config is what config.Load found.
	Config config.Result
	// ScriptRoot is the Spec's, or the default beside the manifests.
	ScriptRoot string
	// Held maps each address the configuration's errors hold (Spec.Hold)
	// to those errors; nil when it has none. What depends on them waits
	// too.
	Held map[string]diag.Diagnostics
}

// Planned is a plan and the goal it was made from.
type Planned struct {
	Plan *planner.Plan
	Goal
}

// MakeGoal compiles the configuration of spec into the desired graph and
// the planner options a plan of it takes (spec's, with the configuration
// paths, the salt and the digests of every input: the files compiled, the
// policies' programs, the scripts the resources run, the placement
// inventory, the input values under the salt). The goal is nil when the
// diagnostics have errors, unless spec.Hold and every error belongs to
// resources, which the goal's Held names; the error is for the
// environment.
func MakeGoal(ctx context.Context, spec Spec) (*Goal, diag.Diagnostics, error) {
	opts := spec.Options
	res := config.Load(ctx, spec.Paths, config.Options{Inputs: spec.Inputs.Values, InputRanges: spec.Inputs.Ranges, RequireInputs: true,
		InputsFile: spec.Inputs.File, Root: spec.Root, ImportMap: spec.ImportMap, ProfilePath: spec.ProfilePath, SpecLimits: spec.SpecLimits})
	diags := res.Diags
	if spec.AllowNoFiles {
		diags = slices.DeleteFunc(diags, func(d diag.Diagnostic) bool { return d.Code == config.CodeNoFiles })
	}
	desired, files, mergeDiags := res.Merge()
	diags = diags.Extend(mergeDiags)
	if diags.HasErrors() && !holdable(spec, res, diags, desired) {
		return nil, diags, nil
	}
	reg := Drivers(executor.DriverOptions{})
	diags = diags.Extend(DriverDiagnostics([]*graph.Graph{desired}, reg))
	desired, files, deriveDiags := derive(ctx, desired, files, res.Root, spec.Prior, spec.Options.Destroy || spec.Options.RefreshOnly)
	diags = diags.Extend(deriveDiags)
	var held map[string]diag.Diagnostics
	if diags.HasErrors() {
		h := res.Holds(diags, desired)
		if !spec.Hold || h.All {
			return nil, diags, nil
		}
		held = h.Resources
	}
	if opts.InputSalt == "" {
		salt, err := planner.NewInputSalt()
		if err != nil {
			return nil, diags, err
		}
		opts.InputSalt = salt
	}
	if pl := opts.Placement; pl != nil && pl.Source.Inventory != "" && pl.Source.Inventory != DemoProviders && !slices.Contains(files, pl.Source.Inventory) {
		files = append(slices.Clone(files), pl.Source.Inventory)
		slices.Sort(files)
	}
	digests, err := inputDigests(files, spec.Inputs.Values, opts.InputSalt)
	if err != nil {
		return nil, diags, err
	}
	scriptRoot := spec.ScriptRoot
	if scriptRoot == "" {
		scriptRoot = DefaultScriptRoot(res.ManifestFolders())
	}
	maps.Copy(digests, digestOperations(ctx, desired, scriptRoot, spec.Root, reg))
	opts.InputDigests, opts.Configuration = digests, spec.Paths
	return &Goal{Desired: desired, Options: opts, Config: res, ScriptRoot: scriptRoot, Held: held}, diags, nil
}

// holdable reports whether spec asks for a goal in spite of errors and
// every error of diags belongs to resources of desired.
func holdable(spec Spec, res config.Result, diags diag.Diagnostics, desired *graph.Graph) bool {
	return spec.Hold && !res.Holds(diags, desired).All
}

// MakePlan makes the goal of spec (MakeGoal) and plans it against prior.
// The result is nil when the diagnostics have errors; the error is for
// the environment.
func MakePlan(ctx context.Context, spec Spec, prior *state.State) (*Planned, diag.Diagnostics, error) {
	if spec.Prior == nil {
		spec.Prior = prior
	}
	goal, diags, err := MakeGoal(ctx, spec)
	if err != nil || goal == nil {
		return nil, diags, err
	}
	p, planDiags := planner.Diff(ctx, goal.Desired, prior, goal.Options)
	diags = diags.Extend(planDiags)
	if diags.HasErrors() {
		return nil, diags, nil
	}
	return &Planned{Plan: p, Goal: *goal}, diags, nil
}

// derive runs the model policies of the configuration (pkg/policy) and
// returns the desired graph with what they derive, and the input files
// with the policies' executables added, so that a plan file goes stale
// when a policy changes and a saved plan's re-plan derives from the same
// programs. This is the one place the desired graph of plan, apply (a
// saved plan too) and a synchronizer gets its derived resources. skip is
// for a destroy, which deletes what the state records, and a refresh-only
// plan, which plans no action: neither runs a policy.
func derive(ctx context.Context, desired *graph.Graph, files []string, root *config.Root, prior *state.State, skip bool) (*graph.Graph, []string, diag.Diagnostics) {
	policies := desired.Policies()
	if skip || len(policies) == 0 {
		return desired, files, nil
	}
	var dirs []string
	if root != nil {
		dirs = root.Dirs()
	}
	derived, diags := policy.Derive(ctx, desired, policy.Options{Root: dirs, Feedback: PolicyFeedback(prior)})
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
// the driver reports the file when it runs. A driver that says which
// files an implementation includes (driver.FileLister: a playbook's roles
// and task files) has them digested with it.
func digestOperations(ctx context.Context, g *graph.Graph, scriptRoot string, root *config.Root, reg executor.Registry) map[string]string {
	wd, err := os.Getwd()
	if err != nil {
		return map[string]string{}
	}
	fd := &fileDigests{wd: wd, root: root, out: map[string]string{}, unreadable: map[string]bool{}}
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
			if r.Driver.Name == graph.DriverAnsible && complete && len(files) > 0 {
				// The node's artifacts lie beside the playbook as it runs
				// (driver/ansible): a changed one changes what it does.
				files = append(files, artifactFiles(r)...)
			}
			d, ok := fd.operation(ctx, files, complete)
			if !ok {
				continue
			}
			op.Digest = d
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
	return fd.out
}

// artifactFiles returns the files of r's artifacts (driver.NodeArtifacts:
// its type's and its template's, relative to the template's folder) that
// exist, sorted by artifact name; missing files are left out, as the
// ansible driver leaves them out of a run's folder.
func artifactFiles(r *graph.Resource) []string {
	var out []string
	for _, f := range driver.NodeArtifacts(r.Driver, r.Spec) {
		p := filepath.FromSlash(f)
		if !filepath.IsAbs(p) && r.Range.File != "" {
			p = filepath.Join(filepath.Dir(r.Range.File), p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	return out
}

// fileDigests are the digests of the files digestOperations read, keyed by
// path relative to the working folder wd when under it, and the files it
// could not read.
type fileDigests struct {
	wd         string
	root       *config.Root
	out        map[string]string
	unreadable map[string]bool
}

// operation is the digest of an operation that runs files: that of its
// one file, or of the digests of its files; false when the files are not
// complete, or one cannot be read, or there are none.
func (fd *fileDigests) operation(ctx context.Context, files []string, complete bool) (string, bool) {
	sums := make([]string, 0, len(files))
	for _, f := range files {
		if d, ok := fd.digest(ctx, f); ok {
			sums = append(sums, d)
		}
	}
	if !complete || len(sums) != len(files) || len(sums) == 0 {
		return "", false
	}
	if len(sums) > 1 {
		return planner.Digest([]byte(strings.Join(sums, "\n"))), true
	}
	return sums[0], true
}

// digest returns the digest of the file f, read once, inside the
// configuration root only.
func (fd *fileDigests) digest(ctx context.Context, f string) (string, bool) {
	key := f
	if abs, err := filepath.Abs(f); err == nil {
		if rel, err := filepath.Rel(fd.wd, abs); err == nil && filepath.IsLocal(rel) {
			key = filepath.ToSlash(rel)
		} else {
			key = abs
		}
	}
	if d, done := fd.out[key]; done {
		return d, true
	}
	if fd.unreadable[key] {
		return "", false
	}
	data, problem := config.ReadFile(ctx, f, fd.root)
	if problem != nil {
		fd.unreadable[key] = true
		return "", false
	}
	fd.out[key] = planner.Digest(data)
	return fd.out[key], true
}

// PolicyFeedback is what the model policies that read feedback read of
// the recorded state prior (policy.Options.Feedback): for each resource,
// what its actuator reported, secrets masked (state.Resource.Redacted),
// and its changed_by_step version; nil for a nil state.
func PolicyFeedback(prior *state.State) map[string]policy.Feedback {
	if prior == nil {
		return nil
	}
	out := make(map[string]policy.Feedback, len(prior.Resources))
	for i := range prior.Resources {
		r := &prior.Resources[i]
		fb := r.Redacted().Feedback
		out[r.Address] = policy.Feedback{Attributes: fb.Attributes, Signals: fb.Signals, InstanceID: fb.InstanceID,
			Active: fb.Status.Active, Converging: fb.Status.Converging, Failed: fb.Status.Failed, BackendCode: fb.BackendCode,
			ChangedByStep: r.CurrentVersions().ChangedByStep}
	}
	return out
}

// PolicyMaxRounds bounds the rounds of the model policies' fixed point
// (policy.DefaultMaxRounds); a synchronizer bounds by it, too, the
// reconciles in a row that a step's change of what a policy reads asks
// for. CodePolicyNoFixedPoint is the code of a cycle that does not end.
const (
	PolicyMaxRounds        = policy.DefaultMaxRounds
	CodePolicyNoFixedPoint = policy.CodeNoFixedPoint
)
