// Package redact keeps a run's secrets out of what xosplan shows and
// keeps: a Redactor knows the secrets (the plan's and the state's
// sensitive values, the configuration's Secrets, values resolved from
// them at apply time) and replaces them, and their common encodings, in
// output lines, output tails, errors and feedback. The walk, the drivers
// and the process runner share it.
package redact
