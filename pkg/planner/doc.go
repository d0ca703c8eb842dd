// Package planner owns the plan: it diffs the desired graph (pkg/graph)
// against recorded state (pkg/state) and returns a Plan, plain data with a
// typed Action per resource, the reason for it, and the order in which the
// executor applies the changes. It also owns plan files and the staleness
// check that apply runs before using one.
//
// The package decides; it does not run drivers, print, or render: views
// live in cmd/xosplan. Three decisions are made in exactly one place each:
//
//   - whether a resource needs action at all (needsAction): its desired spec
//     differs from the enacted one, or its last apply did not succeed;
//     feedback never causes an action (XOS: updated > enacted);
//   - whether a change can be applied in place (canUpdateInPlace): the
//     driver's answer;
//   - the apply order (Plan.Steps): deletes before what they depended on,
//     creates and updates after, and no resource is deleted while one that
//     depends on it remains (the ORC deletion guard, checked as an invariant).
//
// The planning function is Diff, not Plan, because Plan names the result.
package planner
