//go:build !unix

package ansible

// sweepStale does nothing where a process cannot be asked whether it
// runs.
func sweepStale(string) {}
