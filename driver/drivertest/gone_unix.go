//go:build unix

package drivertest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// AssertGone checks that the process whose pid is in pidFile has died (a
// zombie waiting for its reaper counts as dead).
func AssertGone(t *testing.T, pidFile string) {
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
