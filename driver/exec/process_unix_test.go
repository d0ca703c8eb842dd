//go:build unix

package exec

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// A script that leaves a child running in the background does not keep
// the operation waiting for it, and the child ends with the operation:
// one that obeys SIGTERM at once, one that ignores it after the grace
// period. The grace period and the child's sleep are long, so that an
// operation that waited for either would show.
func TestBackgroundChildEndsWithItsOperation(t *testing.T) {
	for _, tc := range []struct {
		name, child string
		grace       time.Duration
	}{
		{"obeys SIGTERM", `sleep 60`, 20 * time.Second},
		{"ignores SIGTERM", `trap "" TERM; exec sleep 60`, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, stateDir := t.TempDir(), t.TempDir()
			testutil.WriteScript(t, dir, "scripts/create.sh", `(`+tc.child+`) & echo $! > "$XOSPLAN_STATE_DIR/child"; echo started`)
			opts := drivertest.Options("")
			opts.StateDir, opts.KillGrace = stateDir, tc.grace
			r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "scripts/create.sh"}})
			var groups []state.Process
			begin := time.Now()
			_, err := New(opts).Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "n", Resource: r, WorkDir: dir,
				Started: func(p state.Process) { groups = append(groups, p) }})
			took := time.Since(begin)
			if err != nil {
				t.Fatalf("create failed: %v", err)
			}
			drivertest.AssertGone(t, filepath.Join(stateDir, "child"))
			if took > 10*time.Second {
				t.Errorf("the operation took %s: it waited for its background child", took)
			}
			if len(groups) != 1 || groups[0].PGID <= 1 || groups[0].PID != groups[0].PGID {
				t.Errorf("Started reported %+v, want one process group led by the script", groups)
			}
		})
	}
}
