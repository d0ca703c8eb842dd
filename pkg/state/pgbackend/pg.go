// Package pgbackend stores xosplan state in PostgreSQL, for teams that share
// one state: the snapshot in a table (with the previous one kept as a
// backup), serial and lineage checked in the database, and the write lock a
// session-level advisory lock, which PostgreSQL releases when the holder's
// connection ends however it ends. It implements state.Backend; pgx stays
// inside this package.
package pgbackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/xosplan/xosplan/pkg/state"
)

// Options configure a backend.
type Options struct {
	// DSN is a PostgreSQL connection string (URL or key=value form).
	DSN string
	// Name tells apart the states kept in one database; "default" when
	// empty.
	Name string
	// LockTimeout is how long Lock waits for a held lock, polling with
	// backoff; zero means until ctx's deadline when it has one, else try
	// once (as for the file backend).
	LockTimeout time.Duration
}

// Backend is a state.Backend over PostgreSQL. It is safe for concurrent
// use; Close releases its connections.
type Backend struct {
	pool    *pgxpool.Pool
	name    string
	lockKey int64
	opts    Options

	mu sync.Mutex
	// lockConns are the connections of the locks held, closed by Close.
	lockConns map[*pgx.Conn]bool
}

var _ state.Backend = (*Backend)(nil)

// schema is created on Open when missing. data holds the canonical state
// file bytes, so that what is stored is what `state pull` prints.
const schema = `
CREATE TABLE IF NOT EXISTS xosplan_state (
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
);`

// Open connects to the database and creates the tables when missing.
func Open(ctx context.Context, opts Options) (*Backend, error) {
	if opts.Name == "" {
		opts.Name = "default"
	}
	pool, err := pgxpool.New(ctx, opts.DSN)
	if err != nil {
		return nil, fmt.Errorf("connecting to the state database: %w", err)
	}
	if _, err := pool.Exec(ctx, schema); err != nil {
		pool.Close()
		return nil, fmt.Errorf("creating the state tables: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte("xosplan state " + opts.Name))
	return &Backend{pool: pool, name: opts.Name, lockKey: int64(h.Sum64()), opts: opts, lockConns: map[*pgx.Conn]bool{}}, nil
}

// Close closes the connections; a lock still held is released with them.
func (b *Backend) Close() {
	b.mu.Lock()
	conns := b.lockConns
	b.lockConns = map[*pgx.Conn]bool{}
	b.mu.Unlock()
	for c := range conns {
		_ = c.Close(context.Background())
	}
	b.pool.Close()
}

func (b *Backend) where() string { return "postgres state " + b.name }

// Read returns the stored state, or an empty one (serial 0, no lineage)
// when none was written.
func (b *Backend) Read(ctx context.Context) (*state.State, error) {
	var data []byte
	err := b.pool.QueryRow(ctx, `SELECT data FROM xosplan_state WHERE name = $1`, b.name).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return &state.State{Version: state.FormatVersion, Resources: []state.Resource{}}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", b.where(), err)
	}
	s, err := state.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", b.where(), err)
	}
	return s, nil
}

// Write stores s as the next snapshot when its content differs from the
// stored one; see state.Backend. The update is conditional on the serial
// and lineage read, so a concurrent writer makes it fail with
// state.ErrSerialConflict instead of being overwritten.
func (b *Backend) Write(ctx context.Context, s *state.State) error {
	var curLineage string
	var curSerial int64
	var curData []byte
	err := b.pool.QueryRow(ctx, `SELECT lineage, serial, data FROM xosplan_state WHERE name = $1`, b.name).Scan(&curLineage, &curSerial, &curData)
	exists := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("writing %s: %w", b.where(), err)
	}
	if exists && s.Lineage != curLineage {
		return fmt.Errorf("writing %s: %w: stored %q, writing %q", b.where(), state.ErrLineageMismatch, curLineage, s.Lineage)
	}
	if s.Serial != uint64(curSerial) {
		return fmt.Errorf("writing %s: %w: it was read at serial %d, it is now at serial %d", b.where(), state.ErrSerialConflict, s.Serial, curSerial)
	}
	lineage := s.Lineage
	if lineage == "" {
		if lineage, err = state.NewLineage(); err != nil {
			return err
		}
	}
	// Encoding with the stored header and comparing the bytes compares
	// the content.
	same, err := state.Encode(&state.State{Version: state.FormatVersion, Serial: uint64(curSerial), Lineage: curLineage, Resources: s.Resources, Outputs: s.Outputs})
	if err != nil {
		return fmt.Errorf("writing %s: %w", b.where(), err)
	}
	if (exists && bytes.Equal(same, curData)) || (!exists && len(s.Resources) == 0 && len(s.Outputs) == 0) {
		s.Version = state.FormatVersion
		return nil
	}
	next := &state.State{Version: state.FormatVersion, Serial: uint64(curSerial) + 1, Lineage: lineage, Resources: s.Resources, Outputs: s.Outputs}
	data, err := state.Encode(next)
	if err != nil {
		return fmt.Errorf("writing %s: %w", b.where(), err)
	}
	var tag interface{ RowsAffected() int64 }
	if exists {
		tag, err = b.pool.Exec(ctx, `UPDATE xosplan_state SET serial = $2, data = $3, previous = data, updated = now()
			WHERE name = $1 AND serial = $4 AND lineage = $5`, b.name, int64(next.Serial), data, curSerial, curLineage)
	} else {
		tag, err = b.pool.Exec(ctx, `INSERT INTO xosplan_state (name, lineage, serial, data) VALUES ($1, $2, $3, $4)
			ON CONFLICT (name) DO NOTHING`, b.name, lineage, int64(next.Serial), data)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", b.where(), err)
	}
	if tag.RowsAffected() != 1 {
		return fmt.Errorf("writing %s: %w: another writer stored a new state meanwhile", b.where(), state.ErrSerialConflict)
	}
	s.Version, s.Serial, s.Lineage = state.FormatVersion, next.Serial, lineage
	return nil
}

// Overwrite stores s as it is, after checking that it is a valid state.
func (b *Backend) Overwrite(ctx context.Context, s *state.State) error {
	s.Version = state.FormatVersion
	data, err := state.Encode(s)
	if err != nil {
		return fmt.Errorf("writing %s: %w", b.where(), err)
	}
	if _, err := state.Decode(data); err != nil {
		return fmt.Errorf("refusing to write an invalid state: %w", err)
	}
	_, err = b.pool.Exec(ctx, `INSERT INTO xosplan_state (name, lineage, serial, data) VALUES ($1, $2, $3, $4)
		ON CONFLICT (name) DO UPDATE SET lineage = $2, serial = $3, data = $4, previous = xosplan_state.data, updated = now()`,
		b.name, s.Lineage, int64(s.Serial), data)
	if err != nil {
		return fmt.Errorf("writing %s: %w", b.where(), err)
	}
	return nil
}

// Lock takes the state's advisory lock on a connection of its own, kept
// until Unlock, and records the holder in xosplan_lock. A held lock gives
// a *state.LockedError naming the holder after the wait that Options and
// ctx allow.
func (b *Backend) Lock(ctx context.Context, info state.LockInfo) (*state.HeldLock, error) {
	info = info.WithDefaults(b.where(), time.Now())
	_, hasDeadline := ctx.Deadline()
	once := b.opts.LockTimeout <= 0 && !hasDeadline
	if b.opts.LockTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.opts.LockTimeout)
		defer cancel()
	}
	// The lock lives as long as its session, so it gets a connection of
	// its own rather than one the pool could hand to someone else.
	conn, err := pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig.Copy())
	if err != nil {
		if ctx.Err() != nil {
			return nil, b.lockedError(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("locking %s: %w", b.where(), err)
	}
	drop := func() { _ = conn.Close(context.WithoutCancel(ctx)) }
	delay := 10 * time.Millisecond
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, b.lockKey).Scan(&got); err != nil {
			drop()
			if ctx.Err() != nil {
				return nil, b.lockedError(context.WithoutCancel(ctx))
			}
			return nil, fmt.Errorf("locking %s: %w", b.where(), err)
		}
		if got {
			break
		}
		if once {
			drop()
			return nil, b.lockedError(ctx)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			drop()
			return nil, b.lockedError(context.WithoutCancel(ctx))
		case <-t.C:
		}
		delay = min(delay*2, 250*time.Millisecond)
	}
	info.Created = time.Now().UTC()
	row, _ := json.Marshal(info) // plain strings and a time always marshal
	_, err = conn.Exec(ctx, `INSERT INTO xosplan_lock (name, info, pid) VALUES ($1, $2, pg_backend_pid())
		ON CONFLICT (name) DO UPDATE SET info = $2, pid = pg_backend_pid()`, b.name, row)
	b.mu.Lock()
	b.lockConns[conn] = true
	b.mu.Unlock()
	release := func() error {
		rctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		b.mu.Lock()
		open := b.lockConns[conn]
		delete(b.lockConns, conn)
		b.mu.Unlock()
		if !open {
			return nil // Close already ended the session, and the lock with it
		}
		_, derr := conn.Exec(rctx, `DELETE FROM xosplan_lock WHERE name = $1 AND info->>'ID' = $2`, b.name, info.ID)
		// The server ends a closed session in its own time: unlock first,
		// so that the lock is free when Unlock returns. Closing the
		// session still releases it when the statement could not run.
		_, uerr := conn.Exec(rctx, `SELECT pg_advisory_unlock($1)`, b.lockKey)
		return errors.Join(derr, uerr, conn.Close(rctx))
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("recording the lock holder: %w", err), release())
	}
	return state.NewHeldLock(info, release), nil
}

func (b *Backend) lockedError(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var raw []byte
	var row state.LockInfo
	if err := b.pool.QueryRow(ctx, `SELECT info FROM xosplan_lock WHERE name = $1`, b.name).Scan(&raw); err == nil {
		_ = json.Unmarshal(raw, &row) // a damaged row still yields "locked by an unknown holder"
	}
	return &state.LockedError{Info: row}
}

// ForceUnlock releases the lock when id names it. An advisory lock
// belongs to its session, and no other session can release it: while the
// holder's session is connected, ForceUnlock refuses (a
// *state.HolderRunningError) unless force is set, and then terminates that
// session, so that the holder's work stops at its next statement. The
// record of a holder whose session has ended is removed at once.
func (b *Backend) ForceUnlock(ctx context.Context, id string, force bool) error {
	var raw []byte
	var pid int32
	err := b.pool.QueryRow(ctx, `SELECT info, pid FROM xosplan_lock WHERE name = $1`, b.name).Scan(&raw, &pid)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("force-unlock %s: %w", b.where(), state.ErrNotLocked)
	}
	if err != nil {
		return fmt.Errorf("force-unlock %s: %w", b.where(), err)
	}
	var row state.LockInfo
	if err := json.Unmarshal(raw, &row); err != nil {
		return fmt.Errorf("force-unlock %s: the lock record is damaged: %w", b.where(), err)
	}
	if row.ID != id {
		return fmt.Errorf("force-unlock %s: %w: given %q, held as %q by %s", b.where(), state.ErrLockMismatch, id, row.ID, row.Who)
	}
	// Only the session that still holds this advisory lock counts: the
	// recorded pid may belong to a session that reused it.
	key := uint64(b.lockKey)
	const holding = `FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = $1
		AND l.classid = $2::bigint::oid AND l.objid = $3::bigint::oid AND l.objsubid = 1`
	if !force {
		var running bool
		if err := b.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 `+holding+`)`, pid, int64(key>>32), int64(key&0xffffffff)).Scan(&running); err != nil {
			return fmt.Errorf("force-unlock %s: %w", b.where(), err)
		}
		if running {
			return fmt.Errorf("force-unlock %s: database session %d: %w", b.where(), pid,
				&state.HolderRunningError{Info: state.LockInfo(row), Checked: true, Local: false})
		}
	} else if _, err := b.pool.Exec(ctx, `SELECT pg_terminate_backend(l.pid, 5000) `+holding, pid, int64(key>>32), int64(key&0xffffffff)); err != nil {
		return fmt.Errorf("force-unlock %s: %w", b.where(), err)
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM xosplan_lock WHERE name = $1 AND info->>'ID' = $2`, b.name, id); err != nil {
		return fmt.Errorf("force-unlock %s: %w", b.where(), err)
	}
	return nil
}
