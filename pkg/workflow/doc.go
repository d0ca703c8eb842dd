// Package workflow is the operations layer between a front end (the
// xosplan command, the synchronizer, an embedding program) and the stages
// (pkg/config, pkg/policy, pkg/planner, pkg/executor, pkg/state), as
// OpenTofu's internal/backend/local is: it returns values and
// diagnostics and never prints, asks or exits.
//
// # Files
//
//	goal.go       the goal: configuration → model policies → digests → planner options (MakeGoal), and a plan of it (MakePlan)
//	apply.go      carrying out a plan: the drivers, the placement claims, the walk, what to say when the state was lost (Apply)
//	saved.go      applying a saved plan: it was made here, against this state, from configuration inside the root, and is the plan made again now (RemakeSaved)
//	placement.go  where compute is placed: an inventory file, the demo cloud or a Placement API, at plan time and at apply time (Placement)
//	refresh.go    the health checks that observe drift, for refresh and plan -refresh-only (Refresher, RefreshPlan)
//	folders.go    the configuration root, the script root, the folders implementations are confined to, the folder beside the state scripts keep state in, the state's identity
//	recovery.go   what to say when a state lock was lost or a journal is busy, and reading the state with the journal an interrupted apply left
//
// A goal is made in one place for every command, so that plan, apply (of
// a saved plan too), refresh and a synchronizer compile, derive and
// digest alike: a plan file made by one is applied by another.
package workflow
