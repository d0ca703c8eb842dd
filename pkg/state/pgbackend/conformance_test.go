//go:build linux

package pgbackend

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/statetest"
)

// TestPostgresConformance runs the backend conformance suite on the
// PostgreSQL backend, each case in a database of its own.
func TestPostgresConformance(t *testing.T) {
	statetest.Run(t, func(t *testing.T) statetest.Subject {
		db := newDatabase(t)
		return statetest.Subject{
			Open: func(t *testing.T) state.Store {
				b, err := Open(context.Background(), Options{DSN: db, Name: "ci"})
				if errors.Is(err, ErrNoWorkspace) {
					b = open(t, db, "ci", Options{})
					err = nil
				}
				if err != nil {
					t.Fatal(err)
				}
				return b
			},
			Backup: func(t *testing.T) *state.State {
				ctx := context.Background()
				conn, err := pgx.Connect(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(ctx)
				var prev []byte
				err = conn.QueryRow(ctx, `SELECT previous FROM xosplan_state WHERE workspace = 'ci'`).Scan(&prev)
				if errors.Is(err, pgx.ErrNoRows) || (err == nil && prev == nil) {
					return nil
				}
				if err != nil {
					t.Fatal(err)
				}
				s, err := state.Decode(prev)
				if err != nil {
					t.Fatal(err)
				}
				return s
			},
		}
	})
}
