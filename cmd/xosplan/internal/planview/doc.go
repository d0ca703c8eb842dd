// Package planview renders plans for people and machines: human text in
// Terraform's conventions, the versioned JSON plan, a markdown comment for
// pull requests, JSON event lines for the machine-readable UI, and the
// dependency graph as DOT or Mermaid. It only renders: every decision is
// in pkg/planner. Sensitive values never reach any output; the paths that
// changed (planner.ResourceChange.ChangedPaths) show that they changed.
package planview
