// Package policy runs model policies (XOS): executables declared in the
// configuration (graph.Policy; TOSCA xosplan.policies.ModelPolicy, a
// manifest's policies: entry) that derive declarative state from
// declarative state, "for every Network there must be at least one
// Interface". Derive runs them before planning and returns the graph the
// plan covers: the declared resources and what the policies derive, each
// derived resource marked with the policy that made it
// (graph.Resource.DerivedBy). A resource a policy no longer derives is
// not in that graph, so the plan deletes it.
//
// # The contract
//
// A policy reads one JSON document on stdin (input.go) and prints one on
// stdout (output.go); docs/policies.md is the user's
// description of both. The input holds declarative state only: the
// resources the policy reads (its targets, and every resource, declared
// or derived, whose type is or derives from one of its types property),
// with their address, type, type chain, management, spec (without
// attribute values: in TOSCA an attribute is runtime state; null at its
// sensitive paths: a secret never reaches a policy, which could copy it
// into a derived resource that plans would show) and the policy that
// derived them, and the edges between them. Derive never sees
// the recorded state, so no feedback (attributes, instance ids, status)
// can reach a policy: the XOS separation that keeps a policy from looping
// on what an actuator reported. The document is canonical JSON
// (internal/canonjson): the same graph gives the same bytes.
//
// A derived resource's address is the policy's name, a ".", and the name
// the policy gives it: two policies cannot collide, and the same input
// gives the same addresses. The output is parsed strictly: unknown keys,
// a duplicate name, a value that is not known at plan time, an edge whose
// source the policy did not derive or whose target it cannot read, more
// than MaxResources resources or MaxOutput bytes are each an error naming
// the policy.
//
// # Order and the fixed point
//
// Policies run one at a time, in dependency order: a policy that reads
// resources another derives runs after it (the order is that of the
// previous round's outputs; the first round orders by name where nothing
// is known yet). Rounds repeat, running again only a policy whose input
// changed, until no output changes: the fixed point. A policy whose input
// is unchanged is not run again: a policy is a function of its input.
// When the outputs still change after MaxRounds rounds, the policies
// whose output changed in the last round are an error
// (policy.no_fixed_point): XOS's "cycle that does not terminate".
//
// # Running
//
// A policy runs through pkg/process's RunProgram, the runner of the
// drivers' scripts: its own process group, ended with the run, a timeout
// (the policy's, else Options.Timeout), cancellation by ctx. Its
// executable must resolve (links followed) to a regular file inside the
// configuration root (Options.Root), checked again before every run; it
// runs in its own folder with an environment of PATH and XOSPLAN_POLICY
// only, so that no secret of the caller's environment reaches it.
//
// # Diagnostic codes
//
//	policy.canceled          the context ended before every policy ran
//	policy.outside_root      the executable is missing, not a regular file, or outside the configuration root
//	policy.failed            the policy could not start, or exited with a non-zero status
//	policy.timeout           the policy ran past its timeout; its process group was killed
//	policy.output_too_large  the policy printed more than Options.MaxOutput bytes
//	policy.bad_output        the policy printed something that is not a valid output document
//	policy.address_conflict  a derived address that a declared resource or another policy holds
//	policy.dependency_cycle  edges the policies derived that close a dependency cycle
//	policy.no_fixed_point    policies whose outputs still changed after Options.MaxRounds rounds
//	policy.internal_error    a resource, edge or policy the graph refused that no configuration can cause (a bug of xosplan, reported rather than lost)
package policy

// Diagnostic codes; see the package documentation.
const (
	CodeCanceled        = "policy.canceled"
	CodeOutsideRoot     = "policy.outside_root"
	CodeFailed          = "policy.failed"
	CodeTimeout         = "policy.timeout"
	CodeOutputTooLarge  = "policy.output_too_large"
	CodeBadOutput       = "policy.bad_output"
	CodeAddressConflict = "policy.address_conflict"
	CodeDependencyCycle = "policy.dependency_cycle"
	CodeNoFixedPoint    = "policy.no_fixed_point"
	CodeInternal        = "policy.internal_error"
)
