// Package core holds what the compilers of both TOSCA grammar generations
// (1.x and 2.0) share: the Session of one compile (its context and
// cancellation, the diagnostics with their follow-on bookkeeping), file
// reading and confinement (the configuration root, the files of an
// archive, the check of the files a template names for the executor), and
// the dependency cycle check on the compiled graph. It knows no grammar:
// the diagnostic codes it reports are given by the caller, whose package
// documents them (pkg/tosca's doc.go).
package core
