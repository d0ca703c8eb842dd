package pgbackend

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migrations are the schema's versions: migrations[i] brings a schema at
// version i to version i+1. They only ever grow.
var migrations = []string{
	// 1: the tables of the first PostgreSQL backend, kept as they were so
	// that a database it created is adopted.
	`CREATE TABLE IF NOT EXISTS xosplan_state (
		name     text PRIMARY KEY,
		lineage  text NOT NULL,
		serial   bigint NOT NULL CHECK (serial >= 0),
		data     bytea NOT NULL,
		previous bytea,
		updated  timestamptz NOT NULL DEFAULT now()
	);
	CREATE TABLE IF NOT EXISTS xosplan_lock (
		name text PRIMARY KEY,
		info jsonb NOT NULL,
		pid  integer NOT NULL
	);`,
	// 2: workspaces, each with its own lock key, and the apply journal.
	// The locks of version 1 were keyed otherwise: their rows go.
	`CREATE TABLE xosplan_workspace (
		name    text PRIMARY KEY,
		id      integer GENERATED ALWAYS AS IDENTITY UNIQUE,
		created timestamptz NOT NULL DEFAULT now()
	);
	INSERT INTO xosplan_workspace (name) SELECT name FROM xosplan_state UNION SELECT 'default' ORDER BY 1;
	ALTER TABLE xosplan_state RENAME COLUMN name TO workspace;
	ALTER TABLE xosplan_state ADD FOREIGN KEY (workspace) REFERENCES xosplan_workspace (name) ON DELETE CASCADE;
	DELETE FROM xosplan_lock;
	ALTER TABLE xosplan_lock RENAME COLUMN name TO workspace;
	ALTER TABLE xosplan_lock ADD FOREIGN KEY (workspace) REFERENCES xosplan_workspace (name) ON DELETE CASCADE;
	CREATE TABLE xosplan_journal (
		workspace text NOT NULL REFERENCES xosplan_workspace (name) ON DELETE CASCADE,
		seq       bigint NOT NULL CHECK (seq > 0),
		kind      text NOT NULL,
		address   text NOT NULL,
		record    bytea NOT NULL,
		created   timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (workspace, seq)
	);`,
	// 3: synchronizer clusters (pkg/sync/pgcluster): the members of each
	// workspace's cluster, its leader's lease, and the results members
	// report of the actions they ran (their job queue is River's own
	// river_* tables).
	`CREATE TABLE xosplan_sync_member (
		workspace   text NOT NULL REFERENCES xosplan_workspace (name) ON DELETE CASCADE,
		member      text NOT NULL,
		host        text NOT NULL,
		pid         integer NOT NULL,
		capacity    integer NOT NULL,
		checkout    text NOT NULL DEFAULT '',
		session_pid integer NOT NULL,
		started     timestamptz NOT NULL DEFAULT now(),
		heartbeat   timestamptz NOT NULL DEFAULT now(),
		PRIMARY KEY (workspace, member)
	);
	CREATE TABLE xosplan_sync_lease (
		workspace   text PRIMARY KEY REFERENCES xosplan_workspace (name) ON DELETE CASCADE,
		member      text NOT NULL,
		session_pid integer NOT NULL,
		acquired    timestamptz NOT NULL DEFAULT now(),
		renewed     timestamptz NOT NULL DEFAULT now()
	);
	CREATE TABLE xosplan_sync_result (
		job_id    bigint PRIMARY KEY,
		workspace text NOT NULL REFERENCES xosplan_workspace (name) ON DELETE CASCADE,
		member    text NOT NULL,
		result    bytea NOT NULL,
		created   timestamptz NOT NULL DEFAULT now()
	);`,
	// 4: a result names the action it is the outcome of (action_key: its
	// action, addresses and requests, hashed; empty for a result that is
	// no outcome, as an interrupted one), so that a leader that plans the
	// action again after its former leader died uses it rather than run
	// the action twice; taken_by names the leader that collected it, which
	// removes it once its walk recorded it.
	`ALTER TABLE xosplan_sync_result ADD COLUMN action_key text NOT NULL DEFAULT '',
		ADD COLUMN taken_by text NOT NULL DEFAULT '';
	CREATE INDEX xosplan_sync_result_action ON xosplan_sync_result (workspace, action_key);`,
}

// ErrSchemaTooNew: the database was migrated by a newer xosplan.
var ErrSchemaTooNew = errors.New("the state database's schema is newer than this xosplan")

// SchemaError says which schema version was found.
type SchemaError struct {
	Found, Known int
}

// Error says what to do: upgrade xosplan.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s: it is at version %d, this xosplan knows versions up to %d; upgrade xosplan (every pipeline using this database needs the newer one)",
		ErrSchemaTooNew, e.Found, e.Known)
}

// Unwrap makes errors.Is(err, ErrSchemaTooNew) hold.
func (e *SchemaError) Unwrap() error { return ErrSchemaTooNew }

// migrate brings the schema to the last version. Its transaction holds a
// transaction-level advisory lock of the schema (the workspace lock keys'
// id 0, which no workspace has), so that concurrent first users wait for
// one of them to migrate and then find nothing to do.
func (b *Backend) migrate(ctx context.Context) error {
	v, err := b.schemaVersion(ctx, b.pool)
	if err != nil {
		return err
	}
	if v == len(migrations) {
		return nil
	}
	return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, 0)`, b.schemaKey); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS xosplan_schema_version (
			version integer PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		v, err := b.schemaVersion(ctx, tx)
		if err != nil {
			return err
		}
		for ; v < len(migrations); v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("migrating the state schema to version %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO xosplan_schema_version (version) VALUES ($1)`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
}

// schemaVersion returns the schema's version (0 when it has no tables
// yet), or a *SchemaError when it is newer than this binary.
func (b *Backend) schemaVersion(ctx context.Context, q querier) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM xosplan_schema_version`).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if v > len(migrations) {
		return 0, &SchemaError{Found: v, Known: len(migrations)}
	}
	return v, nil
}
