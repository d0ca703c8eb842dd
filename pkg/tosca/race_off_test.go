//go:build !race

package tosca

// raceEnabled: the race detector is on; allocation counts are not exact.
const raceEnabled = false
