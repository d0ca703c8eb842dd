package workflow

import (
	"context"
	"github.com/xosplan/xosplan/driver"
	"os"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Refresher returns the health checks that observe drift, for refresh
// and for a refresh-only plan (planner.Options.Refresher): reg's drivers
// (nil: the default ones, exec implementations confined to root), scripts
// found where each resource was applied from unless scriptRoot is given,
// prior supplying factories.
func Refresher(reg executor.Registry, root []string, scriptRoot string, timeout time.Duration, prior *state.State) *executor.Refresher {
	if reg == nil {
		reg = Drivers(executor.DriverOptions{ScriptRoot: scriptRoot, Root: root, Timeout: timeout})
	}
	wd, _ := os.Getwd()
	return &executor.Refresher{Drivers: reg, ScriptRoot: scriptRoot, Timeout: timeout, WorkDir: wd, State: prior,
		Redactor: executor.NewRedactorFor(prior, nil)}
}

// Refresh is a refresh of the recorded state: the health check (managed
// resources) or read (unmanaged ones) of every recorded resource, as a
// refresh-only plan whose apply records the feedback observed and never
// changes a real object.
type Refresh struct {
	// Plan is the refresh-only plan; nil when it could not be made.
	Plan *planner.Plan
	// Drivers run the checks when Plan is applied.
	Drivers executor.Registry
	// Diags has an error for each check that could not run.
	Diags diag.Diagnostics
	prior *state.State
}

// RefreshOptions says how a refresh's checks run.
type RefreshOptions struct {
	// ScriptRoot is where scripted components' scripts are; "": where
	// each resource was applied from.
	ScriptRoot string
	// Root are the folders exec implementations are confined to
	// (ExecutorRoot).
	Root []string
	// Timeout bounds each check without its own timeout.
	Timeout time.Duration
	// StateDir is the folder scripts may keep state in (ScriptStateDir).
	StateDir string
	// Placement is the Placement API placement objects are read back from.
	Placement driver.PlacementEndpoint
}

// PlanRefresh runs the health checks of every resource prior records and
// returns the refresh-only plan of the drift they observed.
func PlanRefresh(ctx context.Context, prior *state.State, opts RefreshOptions) *Refresh {
	reg := Drivers(executor.DriverOptions{ScriptRoot: opts.ScriptRoot, Root: opts.Root, Timeout: opts.Timeout, StateDir: opts.StateDir,
		Placement: opts.Placement})
	p, diags := planner.Diff(ctx, nil, prior, planner.Options{RefreshOnly: true,
		Refresher: Refresher(reg, opts.Root, opts.ScriptRoot, opts.Timeout, prior)})
	return &Refresh{Plan: p, Drivers: reg, Diags: diags, prior: prior}
}

// Apply records the drift r.Plan observed in backend: the drift that
// could be observed is recorded even when some checks failed, each
// resource's feedback being independent. The report counts as checked
// every resource whose check ran.
func (r *Refresh) Apply(ctx context.Context, backend state.Store, opts executor.Options) (*executor.Report, error) {
	rep, err := executor.Apply(ctx, r.Plan, backend, r.Drivers, opts)
	if rep != nil {
		// Each check that could not run is an error diagnostic.
		failedChecks, _ := r.Diags.Count()
		rep.Checked = len(r.prior.Resources) - failedChecks
	}
	return rep, err
}
