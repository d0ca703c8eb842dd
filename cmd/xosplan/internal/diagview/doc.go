// Package diagview renders diagnostics for people and tools: human text
// with source snippets, Terraform's `validate -json` shape (plus a stable
// code and the YAML path), SARIF 2.1.0 for code-scanning annotations, and
// GitHub Actions workflow commands.
//
// Rendering is deterministic: the same diagnostics, options and sources give
// byte-identical output. The package never decides what is valid beyond
// counting severities; commands decide what to render and which exit status
// follows.
package diagview
