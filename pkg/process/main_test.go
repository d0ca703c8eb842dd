package process

import (
	"os"
	"testing"
)

// TestMain makes the test binary the supervisor of the programs its tests
// run, as xosplan's main does, so that they run as they do in xosplan.
func TestMain(m *testing.M) {
	if code, ok := Supervise(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
