//go:build linux

package pgbackend

import (
	"context"
	"errors"
	"testing"

	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

// newDatabase creates a database of its own for the calling test on the
// shared test server (see pgtest.NewDatabase) and returns its URL.
func newDatabase(t testing.TB) string {
	t.Helper()
	return pgtest.NewDatabase(t)
}

// open returns a backend for the workspace name, created when missing,
// in the database at dsn (from newDatabase).
func open(t testing.TB, dsn, name string, opts Options) *Backend {
	t.Helper()
	ctx := context.Background()
	def, err := Open(ctx, Options{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if err := def.CreateWorkspace(ctx, name); err != nil && !errors.Is(err, ErrWorkspaceExists) {
		t.Fatal(err)
	}
	opts.DSN, opts.Name = dsn, name
	b, err := Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}
