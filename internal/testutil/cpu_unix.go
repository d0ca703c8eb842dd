//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// CPUTime returns the user and system CPU time of the process so far, for
// benchmarks that report what the machine spent whatever else runs on it.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
