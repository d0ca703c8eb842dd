//go:build !unix

package testutil

import "time"

// CPUTime is not measured on this platform; benchmarks report 0.
func CPUTime() time.Duration { return 0 }

// PeakRSS is not measured on this platform; benchmarks report 0.
func PeakRSS() int64 { return 0 }
