package workflow

import (
	"context"
	"os"
	"time"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// ApplyOptions say how a plan is applied.
type ApplyOptions struct {
	// Executor are the walk's options (parallelism, retries, grace,
	// abort, events, the script root); Apply fills Desired, WorkDir and
	// Placer.
	Executor executor.Options
	// Root are the folders exec implementations are confined to
	// (ExecutorRoot), and Timeout bounds every operation without its own.
	Root    []string
	Timeout time.Duration
	// Placement claims the plan's placements (Placement.Placer).
	Placement Placement
}

// Applied is what an apply did.
type Applied struct {
	// Report is the walk's; nil when the walk did not run.
	Report *executor.Report
	// PlacementErrors are the claims and releases of placements that
	// failed: warnings, since the state records the plan's decisions.
	PlacementErrors []error
}

// Apply carries out p, made from desired against prior, with the drivers
// for the script root, in backend: the state's lock is the caller's. An
// error is the environment's or the state's (with what became of the
// operations and what to run next, StateRecovery); a failed action is in
// the report. Applied is nil when nothing ran because the drivers or the
// placer could not be made.
func Apply(ctx context.Context, p *planner.Plan, desired *graph.Graph, backend state.Store, prior *state.State, opts ApplyOptions) (*Applied, error) {
	eopts := opts.Executor
	eopts.Desired = desired
	if wd, err := os.Getwd(); err == nil {
		eopts.WorkDir = wd
	}
	reg := Drivers(executor.DriverOptions{ScriptRoot: eopts.ScriptRoot, Root: opts.Root, Timeout: opts.Timeout,
		StateDir: ScriptStateDir(backend), Placement: opts.Placement.Endpoint()})
	claimer, err := opts.Placement.Placer(ctx, prior)
	if err != nil {
		return nil, err
	}
	eopts.Placer = ExecutorPlacer(claimer)
	rep, err := executor.Apply(ctx, p, backend, reg, eopts)
	applied := &Applied{Report: rep}
	if claimer != nil {
		applied.PlacementErrors = claimer.Errors()
	}
	if err != nil {
		return applied, StateRecovery(err, backend, rep != nil)
	}
	return applied, nil
}
