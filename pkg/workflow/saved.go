package workflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// SavedOptions is what applying a saved plan takes from the person
// applying it, besides the plan and the state.
type SavedOptions struct {
	// Inputs are the input values given now: a plan file keeps digests of
	// input values, never the values (they may be secrets).
	Inputs      Inputs
	ImportMap   map[string]string
	ProfilePath []string
	// SpecLimits bound every string and list of a resource's spec.
	SpecLimits config.SpecLimits
	ScriptRoot string
	// Placement is the placement given now, from which the plan's own
	// source chooses (Placement.ForSaved).
	Placement Placement
	// Root returns the configuration root: the one given, or the one the
	// working folder lies in. It is asked for once the checks that need
	// none have passed.
	Root func() (*config.Root, error)
}

// RemakeSaved makes the plan of a plan file again from what it records,
// after checking that backend is the state it was made against: the same
// configuration paths compiled with the input values given now, the same
// options, the same placement source, against prior, which must still be
// the state the plan was made for. A stale plan (the state, a file or an
// input value changed) is refused with the reasons, and so is one that
// differs from the plan made again in anything (an edited file), naming
// the first difference. What is to be applied is the plan made again: it
// holds the sensitive values a plan file leaves out.
//
// The result is nil with a nil error when the configuration has errors
// (the diagnostics say which); an error is a plan that may not be
// applied, or the environment.
func RemakeSaved(ctx context.Context, saved *planner.Plan, backend state.Store, prior *state.State, opts SavedOptions) (*Planned, diag.Diagnostics, error) {
	if err := CheckSaved(saved, backend, prior, opts.Inputs); err != nil {
		return nil, nil, err
	}
	// The plan file chooses what is compiled, so it may not choose where
	// the root is: the root is the one given, or the one the working folder
	// lies in (its repository, else itself), and every configuration path
	// the plan records must lie inside it. Otherwise an edited plan could
	// point apply at any template on this machine.
	root, err := opts.Root()
	if err != nil {
		return nil, nil, err
	}
	if err := confined(root, saved.Configuration); err != nil {
		return nil, nil, err
	}
	spec := Spec{Paths: saved.Configuration, Root: root, Inputs: opts.Inputs, ImportMap: opts.ImportMap, ProfilePath: opts.ProfilePath,
		SpecLimits: opts.SpecLimits, ScriptRoot: opts.ScriptRoot, Options: saved.Options()}
	place, err := opts.Placement.ForSaved(saved.PlacementSource)
	if err != nil {
		return nil, nil, err
	}
	var diags diag.Diagnostics
	spec.Options.Placement, diags = place.PlanOptions(ctx, diags)
	if saved.Mode == planner.ModeRefreshOnly {
		spec.Options.Refresher = Refresher(nil, root.Dirs(), opts.ScriptRoot, 0, prior)
	}
	planned, planDiags, err := MakePlan(ctx, spec, prior)
	diags = diags.Extend(planDiags)
	if err != nil || planned == nil || diags.HasErrors() {
		return nil, diags, err
	}
	if err := planner.CheckStale(saved, prior, planned.Plan.InputDigests); err != nil {
		return nil, diags, fmt.Errorf("%w; run plan again", err)
	}
	if err := planner.Verify(saved, planned.Plan); err != nil {
		return nil, diags, fmt.Errorf("%w; run plan again", err)
	}
	return planned, diags, nil
}

// CheckSaved makes the checks of a saved plan that need no compiling, in
// the order that says most: that it was made in the working folder,
// against backend's state, which has not changed since (prior), that
// every input value it was made with is given again, and that it names
// configuration an apply can run (no archive).
func CheckSaved(saved *planner.Plan, backend state.Store, prior *state.State, inputs Inputs) error {
	// Before anything is compared: in another folder every check below
	// fails, each in its own words, none of them saying why.
	if err := madeHere(saved); err != nil {
		return err
	}
	// Another state's lineage and serial say nothing about this one.
	if err := CheckPlanState(saved, backend); err != nil {
		return err
	}
	// The state first: that check needs no compiling, and says most.
	if err := planner.CheckStale(saved, prior, saved.InputDigests); err != nil {
		return fmt.Errorf("%w; run plan again", err)
	}
	var vars []string
	for k := range saved.InputDigests {
		if name, ok := strings.CutPrefix(k, "var."); ok {
			if _, given := inputs.Values[name]; !given {
				vars = append(vars, name)
			}
		}
	}
	if len(vars) > 0 {
		// A plan file keeps digests of input values, never the values (they
		// may be secrets), so apply needs them again.
		slices.Sort(vars)
		return fmt.Errorf("the plan was made with input values for %s: pass the same --var and --inputs to apply as to plan",
			strings.Join(vars, ", "))
	}
	if len(saved.Configuration) == 0 {
		return fmt.Errorf("%w: it names no configuration to make it again from; run plan again", planner.ErrBadPlanFile)
	}
	return RefuseArchives(saved.Configuration)
}

// CheckPlanState refuses a saved plan applied to another state than the
// one it was made against.
func CheckPlanState(saved *planner.Plan, backend state.Store) error {
	if err := planner.CheckState(saved, StateIdentity(backend)); err != nil {
		return fmt.Errorf("%w; apply it to that state (--state, --workspace), or run plan again against this one", err)
	}
	return nil
}

// madeHere checks that a saved plan was made in the working folder: its
// configuration paths and input files are named relative to the folder
// plan ran in, so elsewhere some path it compiled is missing, or none of
// the files it read is there.
func madeHere(saved *planner.Plan) error {
	exists := func(p string) bool { _, err := os.Lstat(p); return err == nil }
	var missing string
	for _, p := range saved.Configuration {
		if !exists(p) {
			missing = p
			break
		}
	}
	if missing == "" {
		var files []string
		for k := range saved.InputDigests {
			if !strings.HasPrefix(k, "var.") {
				files = append(files, k)
			}
		}
		slices.Sort(files)
		if len(files) == 0 || slices.ContainsFunc(files, exists) {
			return nil
		}
		missing = files[0]
	}
	wd, _ := os.Getwd()
	return fmt.Errorf("the plan was made in another folder: its input %s is not in this one (%s); "+
		"apply a plan in the folder plan ran in, e.g. xosplan -chdir=DIR apply PLANFILE", missing, wd)
}

// confined checks that every configuration path a saved plan records lies
// inside root (after resolving its links).
func confined(root *config.Root, paths []string) error {
	for _, p := range paths {
		if _, err := root.Resolve(p); err != nil {
			if errors.Is(err, config.ErrOutsideRoot) {
				return fmt.Errorf("%w: it names configuration %s outside the configuration root (%s); apply a plan from the folder it was made in, or give --root",
					planner.ErrBadPlanFile, p, strings.Join(root.ResolvedDirs(), ", "))
			}
			return fmt.Errorf("the plan's configuration %s: %w", p, PlainError(err))
		}
	}
	return nil
}

// RefuseArchives refuses a CSAR archive among the configuration paths of
// an apply, destroy or sync: the exec driver runs an operation's
// implementation from the folder of its template, and an archive's
// members are not files it could run. validate, plan and graph read
// archives; apply wants the package unpacked, which is the same
// configuration as a folder.
func RefuseArchives(paths []string) error {
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && diag.IsArchiveName(p) {
			return fmt.Errorf("%s is a CSAR archive, whose operations cannot run from inside it: unpack it into a folder (unzip %s -d DIR) and apply the folder", p, p)
		}
	}
	return nil
}

// CheckConfigured refuses to apply a configuration without files (res,
// read from paths) to a state that records resources: an apply run in the
// wrong folder would plan to delete everything.
func CheckConfigured(res config.Result, prior *state.State, paths []string) error {
	if len(res.Units) == 0 && len(prior.Resources) > 0 {
		return fmt.Errorf("no configuration found in %s, but the state records %d resources; "+
			"give the configuration's path, or run destroy to delete them", strings.Join(paths, ", "), len(prior.Resources))
	}
	return nil
}

// PlainError strips the path of a *fs.PathError, which the message names
// already.
func PlainError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
