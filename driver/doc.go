// Package driver is the contract between the apply walk (pkg/executor) and
// the drivers that actuate resources, and what the drivers share. The walk
// knows only this package; each driver is a folder of its own below it:
//
//	driver/exec       TOSCA interface operations as processes
//	driver/scripted   Tonomi scripted components (the YAML protocol)
//	driver/noop       resources with nothing to run
//	driver/ansible    TOSCA operations whose implementations are Ansible playbooks
//	driver/placement  Placement objects reconciled against a Placement API
//	driver/all        the registration point: NewRegistry, one line per driver
//	driver/drivertest what the drivers' tests share
//
// Drivers never import each other, nor pkg/executor; only driver/all
// imports them (internal/layering enforces it). Adding a driver is a new
// folder (driver/ansible) and one line in driver/all's NewRegistry, under
// the graph.Driver.Name the compilers give the resources it runs.
//
// # What a driver must do
//
// Inputs. Apply gets a Request: the Action (ActionCreate, ActionUpdate,
// ActionDelete, ActionRead, ActionHealth, ActionDiscover), the desired
// Resource (nil on the delete of a resource no longer configured: use
// Prior.Driver, ResourceDriver does), the recorded Prior (nil on create),
// the spec and the operation Inputs with every value known only at apply
// time already resolved by the walk (Resolved, Inputs; a driver that runs
// several operations per request runs each with the request
// Request.ForOperation returns, given the attributes the ones before it
// reported, so that it reads what they set in this run), where the
// resource's files are (WorkDir; ScriptRoot for container paths, resolved
// with ResolveScript), a Timeout, and the callbacks Output, Started and
// the Redactor. Options (from NewRegistry) holds what a driver is
// configured with: roots that confine the files it runs (Root,
// ScriptRoot), a private StateDir, the default Timeout, KillGrace,
// MaxOutput, extra Env, MaxConcurrent. A driver honours an operation's own
// timeout first, then the request's, then its default (FirstPositive).
//
// Outputs. Apply returns an Outcome whose Feedback is what was observed:
// Status (active, converging, failed, message), Attributes (TOSCA
// attributes: the exec driver maps each operation output, a
// playbook-running driver each set_stats value, to the attribute of that
// name unless the operation maps it elsewhere), Signals, InstanceID, the
// backend code and status, and the output tail (bounded by MaxOutput).
// Attributes of the prior apply are kept unless overwritten, and dropped
// on delete. Resolved, times and attempts are the walk's to fill. A
// failure returns a non-nil error and still the Outcome observed, marked
// failed (Failed does both); a failure no retry can mend (a missing
// implementation, a file outside its root) wraps ErrNeedsChange
// (NeedsChange), so that a synchronizer waits for a change instead of
// retrying. Converging says the work started and a health check must
// follow; Gone says a delete finished. Every action is idempotent: a
// second create of what exists, or a delete of what is gone, succeeds.
// Apply is safe for concurrent use on different resources. A driver
// returns data and never prints.
//
// Health checks. ActionHealth runs the resource's check (graph.OpHealthCheck)
// and reports its state: active, converging (dependents keep waiting),
// failed, or gone (the object was deleted outside xosplan: reported failed,
// so that the planner creates it again). A resource without a check
// reports its recorded feedback, active. Refresh, sync and the walk's
// converging wait all go through it; ActionRead returns the recorded
// feedback without running anything. ActionDiscover (a driver that
// discovers) lists existing objects in Outcome.Discovered.
//
// Cancellation. Apply honours ctx: when it ends, every process the driver
// started is ended (its whole process group: SIGTERM, then SIGKILL after
// KillGrace) and Apply returns promptly with an error wrapping
// context.Cause(ctx) (the walk's executor.ErrInterrupted says
// "interrupted"). Running every subprocess through pkg/process
// (process.Process.Run) gives this, the operation's timeout
// (process.ErrTimeout), bounded output, and the supervisor that ends the
// group when xosplan dies; Process.Started = Request.Started reports each
// group as it starts, so that the run after a crash can end what this one
// left running.
//
// Secrets. What a driver shows or keeps (Output lines, the output tail,
// error messages, feedback text) passes through Request.Redactor first
// (process.Process.Redact does it for a process's output); the walk
// redacts again, so a driver that forgets leaks nothing, but a driver must
// not widen the leak: inputs, sensitive ones (graph.Operation.Sensitive)
// included, reach a process through its environment, its stdin or a
// private file (mode 0600, removed after the run), never its command line,
// which other users of the machine can read.
//
// The TOSCA lifecycle. A driver of TOSCA interface operations (exec, one
// that runs playbooks) runs, for an action, the operations
// LifecycleOperations lists, in its order: the phases of the action
// (LifecyclePhases: create is Standard.create, pre_configure_source,
// pre_configure_target, Standard.configure, post_configure_source,
// post_configure_target, Standard.start, add_target, add_source), and in
// each phase the operations PhaseOperations gives. A node's relationships
// each have their own operations: a Configure operation that several
// relationships of the node define is one key per relationship,
// "Configure.<operation>@<requirement>[<index>]"
// (graph.RelationshipOperationKey), run by requirement name, then index;
// one that a single relationship defines keeps "Configure.<operation>".
// Each is an operation of its own: its own inputs (Request.Inputs by its
// key), its own outputs, which its graph.Operation.Outputs maps onto its
// own relationship's attributes (graph.OutputAttribute), its own digest.
// The target-side ones (TargetSide: pre_configure_target,
// post_configure_target, add_source, remove_source, target_changed) come
// in the source's request too, at their place in the source's lifecycle:
// the target was applied before, and add_source must follow the source's
// start. A driver that reaches machines runs them against the target's
// host; exec runs every operation on this machine.
//
// Optional parts, each an interface the walk looks for: Limiter (fewer
// concurrent actions than the walk's parallelism), BatchDriver (several
// requests in one call), Invoker (custom commands), FunctionRunner (TOSCA
// 2.0 custom functions), SourceRecorder (the folder later actions find the
// resource's files in), InstanceConfirmer (adoption by a health check). A
// driver that wraps another (to time or count its calls) keeps these by
// embedding the concrete driver, not the Driver interface.
package driver
