//go:build unix

package planner

import (
	"errors"
	"os"
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

// TestDigestsReadAnArchiveOverTheFileLimit digests an input of 17 MiB, a
// CSAR archive (a configuration file is at most 16 MiB): it is hashed as
// read, as a file holding the same bytes in memory would be, and a file
// over MaxInputFileBytes is refused before it is read.
func TestDigestsReadAnArchiveOverTheFileLimit(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "pkg.csar")
	if err := os.WriteFile(archive, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(archive, 17<<20); err != nil {
		t.Fatal(err)
	}
	got, err := Digests([]string{archive}, nil, "")
	if err != nil {
		t.Fatalf("Digests: %v", err)
	}
	if want := Digest(make([]byte, 17<<20)); got[archive] != want {
		t.Errorf("digest = %s, want %s", got[archive], want)
	}
	if err := os.Truncate(archive, MaxInputFileBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Digests([]string{archive}, nil, ""); !errors.Is(err, userfile.ErrTooLarge) {
		t.Errorf("Digests of a file over the limit = %v, want ErrTooLarge", err)
	}
}
