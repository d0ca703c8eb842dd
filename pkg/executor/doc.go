// Package executor applies plans: it owns the apply walk, retries,
// readiness and the recording of feedback. It drives resources through the
// contract of package driver (Driver, Request, Outcome, named here too)
// and never names a driver: they live in driver/exec, driver/scripted and
// driver/noop, and the caller passes them in a Registry (driver/all's
// NewRegistry builds xosplan's).
//
// # The apply pipeline
//
// What happens to a plan, and to each of its steps, in order, and the file
// that does it:
//
//	leftovers      apply.go                 the process groups a killed run left are ended first (EndLeftovers)
//	plan → steps   pkg/planner/schedule.go  Plan.Steps: three phases (deletes; creates, updates, reads; the old
//	                                        halves of create-then-delete), each in dependency order
//	DAG            walk.go                  steps become nodes with hard edges (dependencies) and soft ones
//	                                        (phase barriers); a missing driver fails the walk before anything runs
//	dispatch       walk_schedule.go         the dispatcher starts each step whose dependencies are done, with the
//	                                        other ready steps one BatchDriver call can serve
//	request        walk_request.go          action, prior record, Unknowns resolved from what ran first
//	               resolve.go               (Resolve), new secrets told to the Redactor
//	slot           walk_task.go             the driver's slot, then a global one (Parallelism); none is taken once
//	                                        the walk stops
//	claim          allocations.go           the planned placement, claimed holding the slot, in the walk's order
//	intent         walk_record.go           journal record written holding the slot, right before the call: an
//	                                        intent without an outcome always means a call that started
//	driver call    walk_task.go             Driver.Apply or BatchDriver.LaunchBatch (a panic is a failure), counted
//	               driver/*, pkg/process    in flight and reported every ProgressInterval; each process group is
//	                                        recorded as it starts (Request.Started) and ends with its operation;
//	                                        an update that runs nothing (planner.ResourceChange.RecordsOnly: only a
//	                                        health check, discovery or command script changed) skips request, slot,
//	                                        intent and call, as a forget does: its outcome is the record with the new
//	                                        operations (recordOnly)
//	redaction      walk_task.go             what any driver reports (feedback, errors, output lines) passes
//	               redact.go                through the Redactor, whatever the driver did itself
//	outcome        walk_record.go           the resource as recorded now (spec enacted, feedback) or its removal,
//	                                        durable before the walk moves on; later steps resolve from it
//	retry          walk_schedule.go         a failure runs again after Options.Backoff, Retries times
//	converging     walk_schedule.go         dependents wait; a health check every HealthInterval until active
//	               walk_task.go             (checked); failed for good past ConvergeTimeout
//	skip           walk_schedule.go         the dependents of a step that failed for good are skipped, naming it
//	fail-fast      walk_task.go             nothing new starts after the first failure for good: the worker stops
//	                                        the walk before its slot goes to a waiting step (settle)
//	interrupt      walk_schedule.go         ctx ends: nothing new starts; running calls get Grace (none once
//	                                        Options.Abort ends), then their context is cancelled with an
//	                                        ErrInterrupted cause; their outcomes are recorded
//	report         walk_schedule.go         every step's result, those never started included; a refresh-only
//	               report.go                plan records its drift (apply_refresh.go)
//	compaction     apply.go                 the journal is folded into the snapshot, whatever happened
//
// # Design
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
// # Processes
//
// Every subprocess (drivers' scripts, health checks, discovery, model
// policies) goes through one runner, pkg/process: its own process group,
// a timeout, SIGTERM then SIGKILL to the group when the operation ends,
// bounded output, and on Linux a supervisor that ends the group when
// xosplan dies. Apply ends the groups a killed run left first
// (EndLeftovers).
//
// Refresher runs health checks (and factories' discovery) for refresh and
// `plan --refresh-only`; applying a refresh-only plan records the drift it
// found. Invoke runs a resource's custom command. Import adopts an
// existing object as a configured resource (a factory's discovered
// instance, confirmed by its health check). RecordOutputs records the
// configuration's outputs after a successful apply.
//
// What drivers report is shown and kept only through a Redactor that
// knows the run's secrets (the plan's and the state's sensitive values,
// the configuration's Secrets, values resolved from them at apply time):
// output lines, the output tail, errors, the report and events never hold
// a secret or its common encodings.
//
// The package returns data (a Report, Events); it never prints.
package executor
