package driver

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/process"
	"github.com/xosplan/xosplan/pkg/redact"
	"github.com/xosplan/xosplan/pkg/state"
)

// Driver actuates one resource. Implementations are idempotent: running an
// operation twice is harmless. Apply is safe for concurrent use by several
// goroutines on different resources.
type Driver interface {
	// Apply drives the resource toward the goal of the request and returns
	// the observed outcome. A non-nil error means the action failed; the
	// Outcome then still carries what was observed (output tail, status,
	// BackendCode = state.BackendError) so the walk can record it. Apply
	// honours ctx: when it is cancelled, running subprocesses are killed
	// and Apply returns promptly with an error wrapping ctx.Err().
	Apply(ctx context.Context, req Request) (Outcome, error)
}

// Actions a Request can carry.
const (
	ActionCreate   = "create"
	ActionUpdate   = "update"
	ActionDelete   = "delete"
	ActionRead     = "read"
	ActionHealth   = "health"
	ActionDiscover = "discover"
)

// Request is one action on one resource, with everything the driver needs
// already resolved by the walk.
type Request struct {
	// Action is one of the Action* constants.
	Action  string
	Address string
	// Resource is the desired resource; nil on the delete of a resource no
	// longer configured (the driver then uses Prior.Driver).
	Resource *graph.Resource
	// Prior is the recorded resource; nil on create.
	Prior *state.Resource
	// Resolved is the desired spec with every Unknown resolved by the walk.
	Resolved map[string]graph.Value
	// Inputs holds, per operation key, its inputs with Unknowns resolved.
	// An operation missing here gets its declared inputs if they are all
	// known.
	Inputs map[string]map[string]graph.Value
	// InputsOf, when set, resolves the inputs of operation key again just
	// before it runs, with reported, the attributes the request's earlier
	// operations reported (over the recorded ones, named as the
	// operations' Outputs name them): an operation then reads what one
	// before it in the same request set (TOSCA: configure reads the
	// attribute create's output set), not what the previous apply
	// recorded. A driver that runs several operations per request runs
	// each with ForOperation's request.
	InputsOf func(ctx context.Context, key string, reported map[string]graph.Value) (map[string]graph.Value, error)
	// WorkDir is the folder of the source file: TOSCA implementations are
	// relative to it and exec runs there.
	WorkDir string
	// ScriptRoot is the root under which scripted components' container
	// paths (/vm/launch.py) resolve; empty means Options.ScriptRoot.
	ScriptRoot string
	// Timeout bounds each operation without its own timeout; zero means
	// Options.Timeout.
	Timeout time.Duration
	// Output receives progress and output lines as they arrive; it may be
	// nil. It is called from one goroutine at a time per request.
	Output func(line string)
	// Redactor knows the secrets of the run; a driver passes what its
	// subprocesses print through it before showing or keeping any of it
	// (the walk redacts Output lines, errors and feedback text again, so
	// a driver that forgets leaks nothing). nil redacts nothing.
	Redactor *redact.Redactor
	// Started, when set, is called with the process group of every
	// subprocess the driver starts for the request, right after the
	// start: the walk records it, so that the run after a crash can end
	// what this one left running.
	Started func(state.Process)
	// Factory is, for scripted components, the recorded state of the
	// factory resource as it stands now (its Resolved spec is the
	// "configuration:" document the scripts receive, resolved again from
	// the current records, so that its consume-signal mappings, which
	// resolve component references, are those of the instances recorded
	// now; its Signals hold factory.instances). nil when the factory is
	// not known; the scripts then get an empty configuration.
	Factory *state.Resource
	// Operations, when set, are the operation keys an update runs instead
	// of its lifecycle (RequestOperations): the TOSCA target_changed
	// operations of a resource whose relationships' targets ran again
	// (planner.ReasonTargetChanged). An update limited so needs no
	// Standard.configure.
	Operations []string
}

// ForOperation returns the request to run operation key of req with,
// once the operations before it reported the attributes reported: with
// InputsOf set, its Inputs hold key's inputs resolved again; else req.
// req is not modified.
func (req Request) ForOperation(ctx context.Context, key string, reported map[string]graph.Value) (Request, error) {
	if req.InputsOf == nil {
		return req, nil
	}
	in, err := req.InputsOf(ctx, key, reported)
	if err != nil {
		return req, err
	}
	if in != nil {
		req.Inputs = maps.Clone(req.Inputs)
		if req.Inputs == nil {
			req.Inputs = map[string]map[string]graph.Value{}
		}
		req.Inputs[key] = in
	}
	return req, nil
}

// Outcome is what an action observed.
type Outcome struct {
	// Feedback is the observed state: status, attributes, signals,
	// instance id, backend code and status, output tail. Resolved, times
	// and attempts are left for the walk to fill.
	Feedback state.Feedback
	// Converging: the action started the work and returned; the walk must
	// run ActionHealth until the status is active (or failed, or a time
	// limit passes) before releasing dependents.
	Converging bool
	// Gone: a delete finished (every status flag false for scripted).
	Gone bool
	// Discovered lists, for ActionDiscover, the instances the discovery
	// script reported, sorted by natural id. The walk records them as
	// unmanaged resources.
	Discovered []Discovered
	// Candidates lists, for a read through a lookup operation, the
	// objects that have the lookup keys (LookupOutcome): the one found,
	// or those that made the lookup ambiguous.
	Candidates []Candidate
	// Results holds, for Invoke, the command results in the order the
	// script reported them; the last non-intermediate one is the answer.
	Results []CommandResult
	// CommandID is, for Invoke, the id of the invocation, under which
	// Feedback.Attributes[AttrCommands] records it (pending until a final
	// result arrives, from this script or a later one).
	CommandID string
}

// Discovered is one instance reported by a discovery script.
type Discovered struct {
	// NaturalID is the id within the factory (the key under "instances:").
	NaturalID string
	// Name is the display name the script gave, or the natural id.
	Name     string
	Feedback state.Feedback
	// StatusReported: the script reported the instance's status (a
	// discovery may leave it, and the signals, to the health check).
	StatusReported bool
}

// CommandResult is one result of a command script: a mapping of result
// keys to values; Intermediate is set for the "$intermediate: true" ones.
type CommandResult struct {
	Intermediate bool
	Values       map[string]graph.Value
}

// BatchDriver is implemented by drivers that can act on several resources
// in one call. The scripted driver does: resources that share a factory
// and a script are launched (destroyed, health-checked, reconfigured) by
// one run of the script, correlated by instanceId.
//
// The walk may group ready requests whose BatchKey is equal and non-empty
// and pass them to LaunchBatch instead of calling Apply for each. Requests
// with an empty key must go through Apply.
type BatchDriver interface {
	Driver
	// BatchKey returns the key under which req may be batched, or "".
	BatchKey(req Request) string
	// LaunchBatch runs the action of reqs (all with the same BatchKey) in
	// one call. The results are index-aligned with reqs: one instance's
	// failure does not fail the others.
	LaunchBatch(ctx context.Context, reqs []Request) []BatchResult
}

// BatchResult is the result of one request of a batch.
type BatchResult struct {
	Outcome Outcome
	Err     error
}

// Invoker runs a custom command (Tonomi receive-command pin) on an
// existing resource: `xosplan invoke ADDR IFACE.COMMAND --arg k=v`.
// Results are passed to req.Output as they arrive, one line each,
// "intermediate {json}" or "result {json}" (activity log entries and the
// script's stderr come as other lines), and collected in Outcome.Results.
type Invoker interface {
	Invoke(ctx context.Context, req Request, command string, args map[string]graph.Value) (Outcome, error)
}

// Limiter is implemented by drivers that want fewer concurrent actions than
// the walk's parallelism. MaxConcurrent returns the limit, 0 for none.
type Limiter interface {
	MaxConcurrent() int
}

// Options configures the drivers driver/all's NewRegistry builds; each
// driver reads the fields it needs.
type Options struct {
	// ScriptRoot is the default root of scripted container paths.
	ScriptRoot string
	// Root lists the folders of the configuration root, which confines the
	// exec driver's implementations: the script an operation names must
	// lie inside one of them once its links are resolved, as a scripted
	// component's script must lie under its script root. Messages name the
	// first folder as written here. Empty means each resource's own folder
	// (Request.WorkDir). (pkg/config finds the default root of a
	// configuration; its Root.Dirs gives these folders.)
	Root []string
	// StateDir is passed to scripts as XOSPLAN_STATE_DIR: a folder they may
	// keep private state in. Empty: the variable is not set.
	StateDir string
	// Timeout is the default per-operation timeout (default 10 minutes).
	Timeout time.Duration
	// Env is added to the environment of every subprocess ("NAME=value"),
	// after the process's own environment.
	Env []string
	// MaxOutput bounds the captured output tail in bytes (default 16 KiB).
	MaxOutput int
	// KillGrace is how long a timed-out or cancelled process group gets
	// between SIGTERM and SIGKILL (default 2 s).
	KillGrace time.Duration
	// MaxConcurrent bounds concurrent actions per driver (0: no limit
	// beyond the walk's parallelism).
	MaxConcurrent int
	// PollInterval is how often the scripted driver asks whether a
	// destroyed instance is gone yet, and the placement driver whether the
	// providers that hold a trait it deletes have dropped it (default 2 s).
	PollInterval time.Duration
	// Placement is the Placement API the placement driver manages
	// objects in (the CLI's --placement-url; the token from
	// --placement-token or $OS_AUTH_TOKEN).
	Placement PlacementEndpoint
}

// PlacementEndpoint says where a Placement API is and how to reach it.
type PlacementEndpoint struct {
	// URL is the API's base URL; empty: none was given.
	URL string
	// Token is sent as X-Auth-Token. It is a secret: never shown.
	Token string
	// HTTPClient, when set, carries the requests (tests wrap its
	// transport); nil: a client with a 30 s timeout.
	HTTPClient *http.Client
}

// WithDefaults returns o with its zero fields set to their defaults.
func (o Options) WithDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = 16 << 10
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 2 * time.Second
	}
	if o.KillGrace <= 0 {
		o.KillGrace = process.DefaultGrace
	}
	return o
}

// Registry maps a driver name (graph.Driver.Name: graph.DriverExec,
// graph.DriverScripted, graph.DriverNoop, …) to its Driver. It is a plain
// value: driver/all builds xosplan's, tests build their own with fakes.
type Registry map[string]Driver

// Lookup returns the driver called name.
func (r Registry) Lookup(name string) (Driver, bool) {
	d, ok := r[name]
	return d, ok
}

// Functions returns the runner of custom function calls: the first
// driver, by name, that is a FunctionRunner (the exec driver in
// xosplan's registry), or false when none is.
func (r Registry) Functions() (FunctionRunner, bool) {
	for _, name := range slices.Sorted(maps.Keys(r)) {
		if fr, ok := r[name].(FunctionRunner); ok {
			return fr, true
		}
	}
	return nil, false
}

// ErrNeedsChange is matched (errors.Is) by a failure that no retry can
// mend, only a change of the configuration or of the files it names: a
// script or implementation that is missing or lies outside its root. A
// synchronizer waits for a change rather than retrying it.
var ErrNeedsChange = errors.New("cannot succeed until the configuration changes")

// needsChangeError is an error marked ErrNeedsChange.
type needsChangeError struct{ err error }

func (e *needsChangeError) Error() string   { return e.err.Error() }
func (e *needsChangeError) Unwrap() []error { return []error{e.err, ErrNeedsChange} }

// NeedsChange marks err as ErrNeedsChange without changing its text.
func NeedsChange(err error) error { return &needsChangeError{err: err} }
