//go:build unix

package testutil

import (
	"runtime"
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

// PeakRSS returns the largest resident set size the process has had so
// far, in bytes, for benchmarks that report peak memory; 0 when unknown.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss
	}
	return ru.Maxrss * 1024
}
