package state_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/statetest"
)

// TestFileConformance runs the backend conformance suite on the file
// backend; pgbackend runs the same suite.
func TestFileConformance(t *testing.T) {
	statetest.Run(t, func(t *testing.T) statetest.Subject {
		path := filepath.Join(t.TempDir(), state.DefaultPath)
		return statetest.Subject{
			Open: func(t *testing.T) state.Store {
				f, err := state.OpenFile(path, state.FileOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return f
			},
			Backup: func(t *testing.T) *state.State {
				data, err := os.ReadFile(path + state.BackupSuffix)
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				if err != nil {
					t.Fatal(err)
				}
				s, err := state.Decode(data)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
		}
	})
}
