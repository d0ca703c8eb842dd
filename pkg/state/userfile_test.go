//go:build unix

package state

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/userfile"
)

// TestSpecialStateFilesAreRefusedWithoutBlocking: a state, journal or
// lock info path that is a named pipe or leads to a device is refused by
// its type, at once: opening a pipe used to block forever (past SIGTERM)
// and reading /dev/zero ran out of memory.
func TestSpecialStateFilesAreRefusedWithoutBlocking(t *testing.T) {
	cases := map[string]func(t *testing.T, path string){
		"state is a named pipe": func(t *testing.T, path string) { mkfifo(t, path) },
		"state links to a device": func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		},
		"journal is a named pipe": func(t *testing.T, path string) { mkfifo(t, path+JournalSuffix) },
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			setup(t, path)
			f, err := OpenFile(path, FileOptions{})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 2)
			go func() {
				_, err := f.Read(context.Background())
				done <- err
				_, err = f.OpenJournal(context.Background())
				done <- err
			}()
			for range 2 {
				select {
				case err := <-done:
					if !errors.Is(err, userfile.ErrNotRegular) {
						t.Fatalf("got %v; want a refusal wrapping userfile.ErrNotRegular", err)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("reading the state blocked")
				}
			}
		})
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
}
