//go:build unix

package executor

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// assertGone checks that the process whose pid is in pidFile has died (a
// zombie waiting for its reaper counts as dead).
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the script did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return
			}
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d of the killed script is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

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
			opts := testOpts("")
			opts.StateDir, opts.KillGrace = stateDir, tc.grace
			r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: "scripts/create.sh"}})
			var groups []state.Process
			begin := time.Now()
			_, err := NewExec(opts).Apply(context.Background(), Request{Action: ActionCreate, Address: "n", Resource: r, WorkDir: dir,
				Started: func(p state.Process) { groups = append(groups, p) }})
			took := time.Since(begin)
			if err != nil {
				t.Fatalf("create failed: %v", err)
			}
			assertGone(t, filepath.Join(stateDir, "child"))
			if took > 10*time.Second {
				t.Errorf("the operation took %s: it waited for its background child", took)
			}
			if len(groups) != 1 || groups[0].PGID <= 1 || groups[0].PID != groups[0].PGID {
				t.Errorf("Started reported %+v, want one process group led by the script", groups)
			}
		})
	}
}
