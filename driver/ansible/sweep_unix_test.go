//go:build unix

package ansible

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweepStale: the run folders of a process that no longer runs are
// removed; those of this process, of a live one, and other folders stay.
func TestSweepStale(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	dead := cmd.Process.Pid
	parent := t.TempDir()
	names := map[string]bool{
		runDirPrefix + strconv.Itoa(dead) + "-1":         false,
		runDirPrefix + strconv.Itoa(os.Getpid()) + "-2":  true,
		runDirPrefix + strconv.Itoa(os.Getppid()) + "-3": true,
		runDirPrefix + "123456789":                       true, // the old name, no pid
		"other":                                          true,
	}
	for name := range names {
		if err := os.MkdirAll(filepath.Join(parent, name, "priv"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sweepStale(parent)
	for name, stays := range names {
		_, err := os.Stat(filepath.Join(parent, name))
		if stays != (err == nil) {
			t.Errorf("%s: exists %v, want %v", name, err == nil, stays)
		}
	}
}
