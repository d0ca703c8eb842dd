package executor

import (
	"os"
	"testing"

	"github.com/xosplan/xosplan/pkg/process"
)

// TestMain makes the test binary the supervisor of the scripts its tests
// run, as xosplan's main does, so that they run as they do in xosplan.
func TestMain(m *testing.M) {
	if code, ok := process.Supervise(); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
