// Package testutil holds the helpers that xosplan's tests share: finding
// the module root and the shared test corpus beside it, writing a tree of
// files to a temporary folder, comparing output with golden files
// (rewritten only on request: XOSPLAN_UPDATE=1, see Update), and reading
// the inline `# ERROR: <substring>` / `# WARNING: <substring>` markers of
// fixtures.
//
// It is for _test.go files only (the layering test enforces that), so it
// may call t.Fatal and t.Skip, and it imports nothing of ours: any package,
// pkg/diag included, can use it without an import cycle.
package testutil
