//go:build unix

package planner

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
)

// TestSpecialPlanAndInputFilesAreRefusedWithoutBlocking: a plan file or an
// input file (named by a plan file, which may be forged) that is a named
// pipe or a device is refused by its type at once, not waited on or read
// until memory runs out.
func TestSpecialPlanAndInputFilesAreRefusedWithoutBlocking(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "plan.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		done := make(chan [2]error, 1)
		go func() {
			_, perr := ReadPlanFile(path)
			_, derr := Digests([]string{path}, nil, "")
			done <- [2]error{perr, derr}
		}()
		select {
		case errs := <-done:
			for _, err := range errs {
				if !errors.Is(err, userfile.ErrNotRegular) {
					t.Errorf("%s: %v; want a refusal wrapping userfile.ErrNotRegular", path, err)
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: reading blocked", path)
		}
	}
}
