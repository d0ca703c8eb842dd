package pgbackend

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/xosplan/xosplan/pkg/state"
)

// DefaultWorkspace is the workspace used when none is named; it always
// exists.
const DefaultWorkspace = state.DefaultWorkspace

// Options configure a backend.
type Options struct {
	// DSN is a PostgreSQL connection string (URL or key=value form); what
	// it leaves out comes from the PG* environment variables.
	DSN string
	// Name is the workspace; DefaultWorkspace when empty. Any other must
	// have been created (CreateWorkspace) before it is used.
	Name string
	// LockTimeout is how long Lock waits for a held lock, polling with
	// backoff; zero means until ctx's deadline when it has one, else try
	// once (as for the file backend).
	LockTimeout time.Duration
}

// Errors of workspaces; compare with errors.Is.
var (
	// ErrNoWorkspace: the workspace named does not exist.
	ErrNoWorkspace = errors.New("no such workspace")
	// ErrWorkspaceExists: CreateWorkspace of a workspace that exists.
	ErrWorkspaceExists = errors.New("the workspace already exists")
	// ErrWorkspaceNotEmpty: DeleteWorkspace of a workspace that records
	// resources, without force.
	ErrWorkspaceNotEmpty = errors.New("the workspace is not empty")
	// ErrDefaultWorkspace: DeleteWorkspace of the default workspace.
	ErrDefaultWorkspace = errors.New("the default workspace cannot be deleted")
	// ErrConnectionLost: the connection holding the lock ended without a
	// force-unlock (the database went away, or the network): nothing more
	// was written.
	ErrConnectionLost = errors.New("the connection to the state database holding the lock was lost")
)

// Backend is a state.Store over PostgreSQL, for one workspace. It is safe
// for concurrent use; Close releases its connections.
type Backend struct {
	pool *pgxpool.Pool
	name string
	opts Options
	// password is masked in every error.
	password string
	// loc is Location's value.
	loc string
	// database and schema name the state in Identity.
	database, schema string
	// schemaKey is the first half of every advisory lock key: a hash of
	// the schema the tables live in.
	schemaKey int32

	mu sync.Mutex
	// held is the lock taken through this Backend: its session, on which
	// this Backend's writes go while it holds the lock.
	held *session
	// read is what the last load saw; a write compares the database with it.
	read *mark
	// journal is the journal open through this Backend, if any.
	journal *state.Journal
	// wrote is the journal this Backend last closed, until Compact.
	wrote *mark
}

// mark is a point in a workspace's history: the snapshot and the last
// journal record.
type mark struct {
	lineage string
	serial  uint64
	lastSeq uint64
}

// session is the connection of a held lock. Everything done on it is
// under mu: a pgx.Conn serves one statement at a time.
type session struct {
	mu   sync.Mutex
	conn *pgx.Conn
	info state.LockInfo
	key  int32
}

var _ state.Store = (*Backend)(nil)

// querier is what a statement runs on: the pool, a connection or a
// transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Open connects to the database, migrates its schema on first use and
// returns the backend of the workspace opts names. A workspace other than
// the default one must exist (ErrNoWorkspace).
func Open(ctx context.Context, opts Options) (*Backend, error) {
	if opts.Name == "" {
		opts.Name = DefaultWorkspace
	}
	if err := CheckWorkspaceName(opts.Name); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, mask(fmt.Errorf("the state database's connection string: %w", err), "")
	}
	cc := cfg.ConnConfig
	if cc.ConnectTimeout == 0 {
		// libpq waits for ever by default; a pipeline should hear of an
		// unreachable database (connect_timeout still wins).
		cc.ConnectTimeout = 30 * time.Second
	}
	b := &Backend{name: opts.Name, opts: opts, password: cc.Password,
		loc: location(cc.User, cc.Host, cc.Port, cc.Database), database: location("", cc.Host, cc.Port, cc.Database)}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, b.fail("connecting to", err)
	}
	b.pool = pool
	if err := pool.QueryRow(ctx, `SELECT hashtext('xosplan:' || current_schema()), current_schema()`).Scan(&b.schemaKey, &b.schema); err != nil {
		pool.Close()
		return nil, b.fail("connecting to", err)
	}
	if err := b.migrate(ctx); err != nil {
		pool.Close()
		return nil, b.fail("migrating", err)
	}
	if _, err := b.workspaceID(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return b, nil
}

// fail wraps err of doing what ("reading", "writing") to the state, with
// the password masked.
func (b *Backend) fail(what string, err error) error {
	var se *SchemaError
	if errors.As(err, &se) || errors.Is(err, state.ErrSerialConflict) || errors.Is(err, state.ErrLineageMismatch) || errors.Is(err, state.ErrLockLost) {
		return mask(err, b.password)
	}
	return mask(fmt.Errorf("%s %s: %w", what, b.Location(), err), b.password)
}

// Location names the database and workspace, without a password:
// "postgres://user@host:5432/db (workspace prod)".
func (b *Backend) Location() string { return fmt.Sprintf("%s (workspace %s)", b.loc, b.name) }

// Identity names the server, database, schema and workspace; never the
// user or a password.
func (b *Backend) Identity() state.Identity {
	return state.Identity{Backend: state.BackendPostgres, Database: b.database, Schema: b.schema, Workspace: b.name}
}

// JournalLocation names the workspace's journal rows.
func (b *Backend) JournalLocation() string {
	return fmt.Sprintf("the xosplan_journal rows of workspace %s in %s", b.name, b.loc)
}

// Close closes the connections; a lock still held is released with them.
func (b *Backend) Close() error {
	b.mu.Lock()
	held := b.held
	b.held = nil
	b.mu.Unlock()
	if held != nil {
		held.mu.Lock()
		_ = held.conn.Close(context.Background())
		held.mu.Unlock()
	}
	b.pool.Close()
	return nil
}

// workspaceID returns the workspace's id, or ErrNoWorkspace.
func (b *Backend) workspaceID(ctx context.Context, q querier) (int32, error) {
	var id int32
	err := q.QueryRow(ctx, `SELECT id FROM xosplan_workspace WHERE name = $1`, b.name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("%w: %s has no workspace %q; create it with `xosplan workspace new %s`", ErrNoWorkspace, b.loc, b.name, b.name)
	}
	if err != nil {
		return 0, b.fail("reading", err)
	}
	return id, nil
}

// snapshot is a workspace's state as one transaction saw it.
type snapshot struct {
	exists  bool
	lineage string
	serial  uint64
	data    []byte
	state   *state.State
	records []state.Record
}

func (s *snapshot) mark() *mark {
	m := &mark{lineage: s.lineage, serial: s.serial}
	if n := len(s.records); n > 0 {
		m.lastSeq = s.records[n-1].Seq
	}
	return m
}

// load reads the snapshot and the journal rows in q (a transaction, so
// that both are of one moment).
func (b *Backend) load(ctx context.Context, q querier) (*snapshot, error) {
	var s snapshot
	var serial int64
	err := q.QueryRow(ctx, `SELECT lineage, serial, data FROM xosplan_state WHERE workspace = $1`, b.name).Scan(&s.lineage, &serial, &s.data)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		s.state = &state.State{Version: state.FormatVersion, Resources: []state.Resource{}}
	case err != nil:
		return nil, err
	default:
		s.exists, s.serial = true, uint64(serial)
		if s.state, err = state.Decode(s.data); err != nil {
			return nil, fmt.Errorf("the snapshot of workspace %s: %w", b.name, err)
		}
	}
	rows, err := q.Query(ctx, `SELECT seq, record FROM xosplan_journal WHERE workspace = $1 ORDER BY seq`, b.name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var payload []byte
		if err := rows.Scan(&seq, &payload); err != nil {
			return nil, err
		}
		rec, err := state.DecodeRecord(payload)
		if err == nil && rec.Seq != uint64(seq) {
			err = fmt.Errorf("its record says seq %d", rec.Seq)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: journal row %d of workspace %s: %v", state.ErrJournalCorrupt, seq, b.name, err)
		}
		s.records = append(s.records, rec)
	}
	return &s, rows.Err()
}

// db is where this Backend's statements go: the session of the lock it
// holds (so that a holder whose lock was forced away cannot write), else
// the pool. release must be called when done.
func (b *Backend) db() (q interface {
	querier
	Begin(ctx context.Context) (pgx.Tx, error)
}, held *session, release func()) {
	b.mu.Lock()
	held = b.held
	b.mu.Unlock()
	if held == nil {
		return b.pool, nil, func() {}
	}
	held.mu.Lock()
	return held.conn, held, held.mu.Unlock
}

// inTx runs fn in a transaction on db(); what: "reading", "writing".
func (b *Backend) inTx(ctx context.Context, what string, fn func(tx pgx.Tx) error) error {
	q, held, release := b.db()
	defer release()
	err := pgx.BeginFunc(ctx, q, fn)
	if err != nil && held != nil && held.conn.IsClosed() {
		return b.lost(ctx, err)
	}
	if err != nil {
		return b.fail(what, err)
	}
	return nil
}

// lost explains a write that failed because the lock's session ended:
// force-unlock took the lock (a *state.LockLostError naming the holder
// now), or the database went away.
func (b *Backend) lost(ctx context.Context, cause error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	now, err := b.lockRow(ctx)
	if err != nil {
		return b.fail("writing", fmt.Errorf("%w (%w), and it cannot be reached: %v", ErrConnectionLost, cause, err))
	}
	b.mu.Lock()
	held := b.held
	b.mu.Unlock()
	if now != nil && held != nil && now.ID == held.info.ID {
		return b.fail("writing", fmt.Errorf("%w: %w", ErrConnectionLost, cause))
	}
	return &state.LockLostError{Path: b.Location(), Now: now}
}

// Read returns the effective state: the snapshot with the journal's
// completed operations replayed over it (see LoadWithJournal).
func (b *Backend) Read(ctx context.Context) (*state.State, error) {
	l, err := b.LoadWithJournal(ctx)
	if err != nil {
		return nil, err
	}
	return l.State, nil
}

// LoadWithJournal reads the snapshot and the journal rows in one
// transaction and replays the journal over the snapshot; what it returns
// is what a later Write of this Backend compares with.
func (b *Backend) LoadWithJournal(ctx context.Context) (*state.Loaded, error) {
	var snap *snapshot
	err := b.inTx(ctx, "reading", func(tx pgx.Tx) error {
		var err error
		snap, err = b.load(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.read = snap.mark()
	b.mu.Unlock()
	return state.ReplayJournal(snap.state, snap.records), nil
}

// lockWorkspace locks the workspace's row in tx: FOR UPDATE for a change
// of the snapshot, which then excludes journal appends (FOR SHARE).
func (b *Backend) lockWorkspace(ctx context.Context, tx pgx.Tx) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM xosplan_workspace WHERE name = $1 FOR UPDATE`, b.name).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %q was deleted", ErrNoWorkspace, b.name)
	}
	return err
}

// lockedLoad locks the workspace row for a change (lockWorkspace), then
// loads its snapshot and journal.
func (b *Backend) lockedLoad(ctx context.Context, tx pgx.Tx) (*snapshot, error) {
	if err := b.lockWorkspace(ctx, tx); err != nil {
		return nil, err
	}
	return b.load(ctx, tx)
}

// unchangedSince returns a *state.ConflictError when cur is not the state
// m describes.
func (b *Backend) unchangedSince(m *mark, cur *snapshot) error {
	if m == nil {
		return nil
	}
	now := cur.mark()
	if *now == *m {
		return nil
	}
	return &state.ConflictError{Path: b.Location(), ExpectedLineage: m.lineage, FoundLineage: now.lineage,
		ExpectedSerial: m.serial, FoundSerial: now.serial, Journal: now.serial == m.serial && now.lineage == m.lineage}
}

// Write stores s as the next snapshot when its content differs from the
// effective state; see state.Backend. It is a compare-and-swap in one
// transaction: the workspace's snapshot must still have s's lineage and
// serial, and snapshot and journal must be those this Backend last
// loaded, else a *state.ConflictError and nothing is written. The
// previous snapshot is kept as the backup; the journal is absorbed.
func (b *Backend) Write(ctx context.Context, s *state.State) error {
	read, _, err := b.idle()
	if err != nil {
		return err
	}
	var stored *snapshot
	var changed bool
	err = b.inTx(ctx, "writing", func(tx pgx.Tx) error {
		cur, err := b.lockedLoad(ctx, tx)
		if err != nil {
			return err
		}
		if cur.exists && s.Lineage != cur.lineage {
			return fmt.Errorf("%w: stored %q, writing %q", state.ErrLineageMismatch, cur.lineage, s.Lineage)
		}
		if s.Serial != cur.serial {
			return &state.ConflictError{Path: b.Location(), ExpectedLineage: cur.lineage, FoundLineage: cur.lineage, ExpectedSerial: s.Serial, FoundSerial: cur.serial}
		}
		if err := b.unchangedSince(read, cur); err != nil {
			return err
		}
		effective, err := content(state.ReplayJournal(cur.state, cur.records).State)
		if err != nil {
			return err
		}
		next := withHeader(s, cur.serial, cur.lineage)
		proposed, err := content(next)
		if err != nil || bytes.Equal(effective, proposed) || (!cur.exists && len(s.Resources) == 0 && len(s.Outputs) == 0) {
			stored = &snapshot{exists: cur.exists, lineage: cur.lineage, serial: cur.serial}
			stored.records = cur.records
			return err
		}
		next.Serial++
		if next.Lineage == "" {
			if next.Lineage = s.Lineage; next.Lineage == "" {
				if next.Lineage, err = state.NewLineage(); err != nil {
					return err
				}
			}
		}
		changed = true
		stored = &snapshot{exists: true, lineage: next.Lineage, serial: next.Serial}
		return b.store(ctx, tx, cur, next)
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.read, b.wrote = stored.mark(), nil
	b.mu.Unlock()
	if changed {
		s.Serial, s.Lineage = stored.serial, stored.lineage
	}
	s.Version = state.FormatVersion
	return nil
}

// content is the canonical encoding of s under a fixed header: equal
// content encodes to equal bytes.
func content(s *state.State) ([]byte, error) {
	return state.Encode(withHeader(s, 0, ""))
}

// withHeader is a copy of s (every part of its content, whatever the
// format holds) with the given serial and lineage.
func withHeader(s *state.State, serial uint64, lineage string) *state.State {
	c := *s
	c.Version, c.Serial, c.Lineage = state.FormatVersion, serial, lineage
	return &c
}

// store writes next as the workspace's snapshot in tx, the current one
// becoming the backup, and removes the journal rows next absorbs.
func (b *Backend) store(ctx context.Context, tx pgx.Tx, cur *snapshot, next *state.State) error {
	data, err := state.Encode(next)
	if err != nil {
		return err
	}
	if _, err := state.Decode(data); err != nil {
		return fmt.Errorf("refusing to write an invalid state: %w", err)
	}
	var prev []byte
	if cur.exists {
		prev = cur.data
	}
	if _, err := tx.Exec(ctx, `INSERT INTO xosplan_state (workspace, lineage, serial, data, previous) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (workspace) DO UPDATE SET lineage = $2, serial = $3, data = $4, previous = $5, updated = now()`,
		b.name, next.Lineage, int64(next.Serial), data, prev); err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `DELETE FROM xosplan_journal WHERE workspace = $1`, b.name)
	return err
}

// Overwrite stores s as it is, serial and lineage included, after checking
// that it is a valid state; the journal is dropped (s replaces everything).
func (b *Backend) Overwrite(ctx context.Context, s *state.State) error {
	if _, _, err := b.idle(); err != nil {
		return err
	}
	s.Version = state.FormatVersion
	err := b.inTx(ctx, "writing", func(tx pgx.Tx) error {
		if err := b.lockWorkspace(ctx, tx); err != nil {
			return err
		}
		cur, err := b.load(ctx, tx)
		if err != nil && !errors.Is(err, state.ErrCorrupt) && !errors.Is(err, state.ErrJournalCorrupt) {
			return err
		}
		if err != nil {
			// A corrupt snapshot or journal is replaced (push --force of
			// what state pull could read); the snapshot is kept as the
			// backup.
			cur = &snapshot{}
			_ = tx.QueryRow(ctx, `SELECT data FROM xosplan_state WHERE workspace = $1`, b.name).Scan(&cur.data)
			cur.exists = cur.data != nil
		}
		return b.store(ctx, tx, cur, s)
	})
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.read, b.wrote = &mark{lineage: s.Lineage, serial: s.Serial}, nil
	b.mu.Unlock()
	return nil
}

// idle returns the marks of the last load (read) and of the journal last
// closed (wrote), refusing while a journal is open through this Backend.
func (b *Backend) idle() (read, wrote *mark, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.journal != nil {
		return nil, nil, fmt.Errorf("writing %s: %w", b.Location(), state.ErrJournalOpen)
	}
	return b.read, b.wrote, nil
}

// Compact folds the journal rows into the snapshot (serial+1, the old
// snapshot kept as the backup) when they change it, and removes them; it
// returns what was loaded. When this Backend wrote the journal, the
// snapshot must still be the journal's base and the journal the one it
// closed, else a *state.ConflictError and nothing changes.
func (b *Backend) Compact(ctx context.Context) (*state.Loaded, error) {
	_, wrote, err := b.idle()
	if err != nil {
		return nil, err
	}
	var l *state.Loaded
	var after *mark
	err = b.inTx(ctx, "compacting", func(tx pgx.Tx) error {
		cur, err := b.lockedLoad(ctx, tx)
		if err != nil {
			return err
		}
		if err := b.unchangedSince(wrote, cur); err != nil {
			return err
		}
		before, err := content(cur.state)
		if err != nil {
			return err
		}
		l = state.ReplayJournal(cur.state, cur.records)
		after = &mark{lineage: cur.lineage, serial: cur.serial}
		if len(cur.records) == 0 {
			return nil
		}
		folded, err := content(l.State)
		if err != nil {
			return err
		}
		if bytes.Equal(before, folded) {
			_, err := tx.Exec(ctx, `DELETE FROM xosplan_journal WHERE workspace = $1`, b.name)
			return err
		}
		next := withHeader(l.State, cur.serial+1, cur.lineage)
		if next.Lineage == "" {
			if next.Lineage, err = state.NewLineage(); err != nil {
				return err
			}
		}
		after = &mark{lineage: next.Lineage, serial: next.Serial}
		l.State.Serial, l.State.Lineage = next.Serial, next.Lineage
		return b.store(ctx, tx, cur, next)
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.read, b.wrote = after, nil
	b.mu.Unlock()
	return l, nil
}
