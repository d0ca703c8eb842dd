// Package planner owns the plan: it diffs the desired graph (pkg/graph)
// against recorded state (pkg/state) and returns a Plan, plain data with a
// typed Action per resource, the reason for it, and the order in which the
// executor applies the changes. It also owns plan files and the staleness
// check that apply runs before using one.
//
// The package decides; it does not run drivers, print, or render: views
// live in cmd/xosplan. Each decision is made in one place:
//
//   - whether a resource needs action (decide): its desired spec differs
//     from the enacted one (graph.Equal; Unknowns compare as expressions),
//     so do its operations (inputs, output mappings, implementation path,
//     dependencies and content digest: operations.go), its type changed,
//     or its last apply did not succeed (backend_code is not ok, also after
//     a health check found it failed); feedback never causes an action
//     (XOS: updated > enacted). A record without digests (written before
//     they were kept) compares no content, so upgrading plans nothing.
//     A resource that did not succeed is created again when its driver
//     could update it, since the walk then runs the whole actuator: the
//     plan says what will run. A change confined to a health check,
//     discovery or command script is an update in place that runs
//     nothing (ResourceChange.RecordsOnly), whatever the driver: it does
//     not change the object; so is a change confined to the attribute
//     values the spec assigns ("attributes", "relationships"), which
//     apply records. Unmanaged resources are only ever read:
//     when not recorded yet, when their spec changed or their last read
//     failed;
//   - whether a change can be applied in place (canUpdateInPlace): the
//     driver's answer; anything else replaces the resource, delete first
//     unless the resource or --create-before-destroy asks otherwise;
//   - what a dependency's change does to its dependents
//     (forceByDependencies): a resource hosted on a replaced (or
//     re-created) resource is replaced with it, one moved to another host
//     is replaced, one whose spec or operation inputs read a replaced
//     resource's feedback is updated (or replaced when its driver cannot
//     update); other dependents are left alone;
//   - the apply order (Plan.Steps): deletes before what they depended on,
//     creates and updates after what they depend on, the old half of
//     create-before-destroy replacements last; create-before-destroy is
//     inherited by what such a resource depended on, as in Terraform;
//   - the deletion guard (checkDeletionGuard): no resource is deleted while
//     one that depends on it remains, checked as an invariant of every plan.
//
// Plan files hold no secrets: values at sensitive spec paths and the
// operation inputs an operation lists as Sensitive are written as null,
// and input values only as argon2id digests under the plan's own salt
// (Digests). Nor are they trusted: a plan records what it was made from
// (Plan.Options, the configuration paths, the placement source), apply
// makes it again from the configuration, the state and the input values
// given to it, refuses it when stale (CheckStale) or when it is not the
// saved plan in every field (Verify), and applies the plan made again,
// which holds the sensitive values. A plan is bound to the state it was
// made against (Plan.State, a state.Identity): CheckState refuses it for
// any other.
//
// The planning function is Diff, not Plan, because Plan names the result.
package planner
