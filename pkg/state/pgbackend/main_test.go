//go:build linux

package pgbackend

import (
	"context"
	"testing"

	"github.com/xosplan/xosplan/internal/pgtest"
)

// newDatabase creates a database of its own for the calling test on the
// shared test server (see pgtest.NewDatabase) and returns its URL.
func newDatabase(t *testing.T) string {
	t.Helper()
	return pgtest.NewDatabase(t)
}

// open returns a backend for the workspace name in the database at dsn
// (from newDatabase).
func open(t *testing.T, dsn, name string, opts Options) *Backend {
	t.Helper()
	opts.DSN, opts.Name = dsn, name
	b, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}
