// Package core holds what the compilers of both TOSCA grammar generations
// (1.x and 2.0) share: the Session of one compile (its context and
// cancellation, the diagnostics with their follow-on bookkeeping, the
// configuration root that confines the files it reads), the dependency
// cycle check on the compiled graph, and the small helpers their messages
// use. It knows no grammar: the diagnostic codes it reports are given by
// the caller, whose package documents them (pkg/tosca's doc.go).
package core
