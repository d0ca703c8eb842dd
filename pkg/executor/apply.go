package executor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/state"
)

// ErrInterrupted is the cause of the cancellation of running driver calls
// after an interrupt (the grace period ended, or a second interrupt came):
// their errors wrap it, so that they say "interrupted", not "context
// canceled".
var ErrInterrupted = errors.New("interrupted")

// Defaults of Options.
const (
	DefaultParallelism     = 10
	DefaultRetries         = 2
	DefaultBackoff         = 200 * time.Millisecond
	DefaultMaxBackoff      = 5 * time.Second
	DefaultHealthInterval  = 500 * time.Millisecond
	DefaultConvergeTimeout = 10 * time.Minute
	DefaultGrace           = 10 * time.Second
	DefaultProgress        = 10 * time.Second
)

// Keys the walk reads and records (driver's keys.go says what each holds).
const (
	OptionFactoryAddress   = driver.OptionFactoryAddress
	SignalFactoryInstances = driver.SignalFactoryInstances
	ExtraInstanceID        = driver.ExtraInstanceID
	ExtraWorkDir           = driver.ExtraWorkDir
	ExtraScriptRoot        = driver.ExtraScriptRoot
	ExtraLookup            = driver.ExtraLookup
)

// Options tune Apply. The zero value is usable: every field has a default.
type Options struct {
	// Parallelism bounds the driver calls running at once (default 10).
	Parallelism int
	// PerDriver bounds, per driver name, the calls of that driver running
	// at once; a driver implementing Limiter may lower it further. The
	// global Parallelism still applies.
	PerDriver map[string]int
	// Retries is how many times a failed action is run again; 0 means
	// DefaultRetries, a negative value no retry.
	Retries int
	// Backoff returns the wait before retry n (1, 2, …); nil means
	// DefaultBackoff doubled on every retry, at most DefaultMaxBackoff.
	Backoff func(retry int) time.Duration
	// FailFast starts nothing new after the first action that failed for
	// good (after its retries); running ones finish.
	FailFast bool
	// HealthInterval is the wait between health checks of a converging
	// resource (default 500 ms); ConvergeTimeout fails a resource that is
	// not active that long after its action returned (default 10 min).
	HealthInterval  time.Duration
	ConvergeTimeout time.Duration
	// Grace is how long running driver calls may go on after ctx ends
	// before they are cancelled (default 10 s).
	Grace time.Duration
	// Abort, when it ends, cancels the running driver calls at once,
	// without waiting for Grace (a second interrupt); nil: never. Their
	// processes end with their process groups, and their outcomes are
	// recorded as after Grace.
	Abort context.Context
	// ProgressInterval is how often a running driver call is reported
	// as still running (EventProgress; default 10 s, negative: never).
	ProgressInterval time.Duration
	// Events receives progress, one event at a time; nil for none.
	Events func(Event)
	// Desired is the configuration the plan was made from. When given, a
	// resource's type chain and source folder (the exec driver's working
	// folder) come from it; without it they come from the plan alone and
	// WorkDir.
	Desired *graph.Graph
	// WorkDir is the working folder of a resource with no source file.
	WorkDir string
	// ScriptRoot and Timeout are passed on in every Request.
	ScriptRoot string
	Timeout    time.Duration
	// Now returns the time recorded in state; nil means time.Now.
	Now func() time.Time
	// Placer claims the plan's placements before creates and releases
	// them after deletes (see allocations.go); nil claims nothing and
	// records the plan's decisions as they are.
	Placer Placer
}

func (o Options) withDefaults() Options {
	if o.Parallelism <= 0 {
		o.Parallelism = DefaultParallelism
	}
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Backoff == nil {
		o.Backoff = DoublingBackoff(DefaultBackoff, DefaultMaxBackoff)
	}
	if o.HealthInterval <= 0 {
		o.HealthInterval = DefaultHealthInterval
	}
	if o.ConvergeTimeout <= 0 {
		o.ConvergeTimeout = DefaultConvergeTimeout
	}
	if o.Grace <= 0 {
		o.Grace = DefaultGrace
	}
	if o.ProgressInterval == 0 {
		o.ProgressInterval = DefaultProgress
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// DoublingBackoff returns a backoff of base before the first retry,
// doubled before each next one, never above limit: XOS's "again at
// increasing intervals".
func DoublingBackoff(base, limit time.Duration) func(int) time.Duration {
	return func(retry int) time.Duration {
		d := base
		for i := 1; i < retry && d < limit; i++ {
			d *= 2
		}
		return min(d, limit)
	}
}

// Journal is where the walk records what it does: pkg/state's *Journal.
// Append returns once the record is durable.
type Journal interface {
	Append(ctx context.Context, rec state.Record) (uint64, error)
}

// Store is the recorded state an apply works on. pkg/state's *File
// implements it. The caller holds the state lock for the whole apply.
type Store interface {
	// LoadWithJournal returns the effective state (snapshot plus the
	// journal of an interrupted apply).
	LoadWithJournal(ctx context.Context) (*state.Loaded, error)
	// OpenJournal opens (or continues) the apply journal.
	OpenJournal(ctx context.Context) (*state.Journal, error)
	// Compact folds the journal into the snapshot.
	Compact(ctx context.Context) (*state.Loaded, error)
}

// Apply carries out p against st with drivers: it opens the apply
// journal, walks the plan's steps (see Walk), closes the journal and
// compacts it into the snapshot. The state is saved even when ctx ends
// or actions fail; the report says what happened to every step.
//
// The returned error is for the environment (the journal or the state
// could not be written, a driver is missing); a failed action is not an
// error of Apply but a ResultFailed step in the report.
func Apply(ctx context.Context, p *planner.Plan, st Store, drivers Registry, opts Options) (*Report, error) {
	loaded, err := st.LoadWithJournal(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading state: %w", err)
	}
	EndLeftovers(loaded.Interrupted, opts.Events)
	j, err := st.OpenJournal(ctx)
	if err != nil {
		return nil, fmt.Errorf("opening the apply journal: %w", err)
	}
	rep, walkErr := Walk(ctx, p, loaded.State, j, drivers, opts)
	closeErr := j.Close()
	// The snapshot is written whatever happened, and even when ctx has
	// ended: an interrupted apply must still save what it did.
	_, compactErr := st.Compact(context.WithoutCancel(ctx))
	if closeErr != nil {
		closeErr = fmt.Errorf("closing the apply journal: %w", closeErr)
	}
	if compactErr != nil {
		compactErr = fmt.Errorf("saving state: %w", compactErr)
	}
	return rep, errors.Join(walkErr, closeErr, compactErr)
}

// EndLeftovers ends the process groups that the operations of interrupted
// intents (state.Loaded.Interrupted) left running when the xosplan that
// ran them died: a group still running and provably the one recorded (its
// start token matches) gets SIGTERM, then SIGKILL after a grace period,
// and is reported as EventLeftover. Apply calls it before its walk, so an
// operation never runs beside its own leftover; a caller that folds a
// journal into the state without applying calls it itself. A group that a
// member of a synchronizer cluster ran (Process.Member) is left alone: it
// belongs to that member, which may still be running it (on this machine
// or another), and ends with it.
func EndLeftovers(interrupted []state.Record, events func(Event)) {
	for _, rec := range interrupted {
		p := rec.Process
		if p == nil || p.Member != "" || !process.EndLeftover(*p) {
			continue
		}
		if events != nil {
			events(Event{Type: EventLeftover, Address: rec.Address, Action: rec.Action, Attempt: rec.Attempt,
				Line: fmt.Sprintf("process group %d", p.PGID), Time: time.Now()})
		}
	}
}

// Walk runs the steps of p (planner.Plan.Steps) as a dependency DAG:
// every step starts as soon as everything it depends on has succeeded,
// with at most opts.Parallelism driver calls at once. Deletes run before
// what they depended on, creates and updates after; the phases of
// Plan.Steps are kept (every delete finishes before the first create
// starts, and the old half of a create-then-delete replacement goes last).
//
// Right before each driver call, once it holds its parallelism slot, an
// intent record is appended to j (so that an intent without an outcome
// always means a call that started); after it the outcome: the resource
// as recorded now (spec enacted, feedback, backend_code/backend_status,
// attempts) or its removal. Nothing moves on before its record is
// durable, so a crash loses no completed operation.
// prior is the recorded state the plan was made against (nil for none).
//
// Ready requests that one driver call can serve (a BatchDriver's equal
// BatchKey: a Tonomi script launching several instances) are passed to
// LaunchBatch together; each still gets its own records and result.
//
// A failed action is retried with opts.Backoff; once it gives up its
// dependents are skipped (naming the failed step) and independent steps
// carry on. A resource whose action reports Converging holds its
// dependents until a health check reports it active. When ctx ends nothing
// new starts; running driver calls get opts.Grace to finish before their
// context is cancelled, and their outcomes are recorded.
func Walk(ctx context.Context, p *planner.Plan, prior *state.State, j Journal, drivers Registry, opts Options) (*Report, error) {
	w, err := newWalker(ctx, p, prior, j, drivers, opts.withDefaults())
	if err != nil {
		return nil, err
	}
	return w.run(ctx)
}
