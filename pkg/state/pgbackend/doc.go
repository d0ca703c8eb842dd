// Package pgbackend stores xosplan state in PostgreSQL, for teams whose
// pipelines share one state: `--state postgres://…` (any libpq URL or
// key=value connection string; sslmode and the PG* environment variables
// are honoured, as libpq does) with `--workspace NAME` choosing one of many
// environments in one database. It implements state.Store with the file
// backend's contract (proven by statetest's conformance suite, which both
// pass); pgx stays inside this package.
//
// Tables (in the connection's current schema, so that several schemas of
// one database each hold their own states):
//
//	xosplan_schema_version  the migrations applied: version, when
//	xosplan_workspace       name, id (the lock key), created
//	xosplan_state           one row per workspace: lineage, serial, data (the state file's bytes), previous (the backup)
//	xosplan_journal         the apply journal: one row per record (workspace, seq, kind, address, record)
//	xosplan_lock            who holds a workspace's lock: its LockInfo and database session
//
// Writes are compare-and-swap transactions: a writer locks its workspace
// row, checks that the snapshot and the journal are the ones it read, and
// writes; otherwise a *state.ConflictError and nothing is written. A new
// snapshot and the removal of the journal it absorbs are one transaction,
// so journal rows always extend the current snapshot. Each group commit of
// the journal is one INSERT of its records, conditional on the snapshot
// still being the journal's base: acknowledged records are committed rows.
//
// Locks are per workspace, never global: a session-level advisory lock
// keyed by (a hash of the schema, the workspace's id), with a lock row
// naming the holder. The id comes from the workspace table, so two
// workspaces never share a key, and the schema half keeps states in
// different schemas of one database apart (OpenTofu's pg backend took one
// advisory lock keyed by a sequence for all of them; its issue #2218). A
// session lock rather than a row lock held in an open transaction, because
// that transaction would stay open for a whole apply (holding back vacuum)
// and the holder's writes could not commit on its connection until the
// end. The session lock dies with its holder's connection, however the
// holder ends. The holder writes (snapshot and journal) on the lock's own
// session, so a holder whose lock was forced away (force-unlock terminates
// its session) cannot write any more: its next write fails with
// state.ErrLockLost.
//
// Schema migrations are versioned and run on first use, in one
// transaction under a transaction-level advisory lock of the schema (so
// that concurrent first users apply them once); a binary that finds a
// newer schema than it knows refuses it (ErrSchemaTooNew).
//
// Credentials: a connection string's password never appears in any error
// or Location; errors of pgx are wrapped with the password masked.
//
// Every table is prefixed xosplan_ and the schema versions are this
// package's own, so that a job queue keeping its tables in the same
// database (River's river_* tables and their migrations, for the
// synchronizer's work distribution) can live beside them and share the
// connection pool.
package pgbackend
