//go:build !race

package placement

// raceEnabled: the race detector is on; allocation counts are not exact.
const raceEnabled = false
