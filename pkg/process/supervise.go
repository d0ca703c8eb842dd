package process

// Supervise lets this program's own binary supervise the processes the
// runner starts (see the package documentation, "Processes"). Call it
// first in main, before flags are parsed, and in the TestMain of a test
// binary whose tests run operations:
//
//	if code, ok := process.Supervise(); ok {
//		os.Exit(code)
//	}
//
// When this process was started as a supervisor it runs the operation's
// process and returns its exit status with true; the caller exits with
// it at once. Otherwise it returns false, and from then on every process
// the runner starts runs under a supervisor that is this binary, where
// the platform allows (Linux). Without a call, processes start directly.
func Supervise() (int, bool) {
	return supervise()
}
