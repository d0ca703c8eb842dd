package policy

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestCancelEndsThePolicysProcessGroup cancels Derive while a policy runs
// with a child in the background: Derive returns policy.canceled, and
// nothing of the group is left running.
func TestCancelEndsThePolicysProcessGroup(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	addPolicy(t, g, graph.Policy{Name: "slow", Implementation: writePolicy(t, dir, "slow", "sleep 300 &\necho $! > child.pid\nwait"), Targets: []string{"n1"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pidFile := filepath.Join(dir, "child.pid")
	go func() {
		for ctx.Err() == nil {
			if data, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(data), "\n") {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	_, diags := Derive(ctx, g, Options{Root: []string{dir}})
	assertCode(t, diags, CodeCanceled, "slow")
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// The group was ended before Derive returned; its reaping by init may
	// lag, so wait (boundedly) for the child to be gone or a zombie.
	for range 1000 {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return
		}
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) > 0 && fields[0] == "Z" {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("the policy's background child %d still runs after Derive returned", pid)
}
