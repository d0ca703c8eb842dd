// Package executor applies plans: it owns the apply walk, the drivers that
// actuate resources (exec for TOSCA operations, scripted for the Tonomi
// script protocol, noop), retries, and the recording of feedback.
//
// The walk (Apply, Walk) follows the XOS synchronizer design: actuators
// are idempotent and goal-oriented; each runs as soon as everything it
// depends on has succeeded, in parallel where the dependencies allow and
// in order where they require; a failure holds up only what depends on
// the failed resource, and is retried at increasing intervals. A resource
// that reports converging holds its dependents until a health check says
// it is active; waiting is not an error (ORC). Values known only at apply
// time (graph.Unknown) are resolved from the feedback of what ran first
// (Resolve).
//
// Every driver call is bracketed by journal records (pkg/state): an intent
// before, the outcome after, durable before the walk moves on. A crash at
// any moment therefore loses no completed operation; the next plan, made
// from the snapshot with the journal replayed, shows what is left, and
// re-applying converges. Each subprocess runs in a process group that ends
// with its operation; the intent is repeated with that group once it has
// started, so that the run after a crash ends what the crashed one left
// running (EndLeftovers) before it runs anything.
//
// Refresher runs health checks (and factories' discovery) for refresh and
// `plan --refresh-only`; applying a refresh-only plan records the drift it
// found. Invoke runs a resource's custom command.
//
// What drivers report is shown and kept only through a Redactor that
// knows the run's secrets (the plan's and the state's sensitive values,
// the configuration's Secrets, values resolved from them at apply time):
// output lines, the output tail, errors, the report and events never hold
// a secret or its common encodings.
//
// The package returns data (a Report, Events); it never prints.
package executor
