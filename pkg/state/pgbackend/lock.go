package pgbackend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/xosplan/xosplan/pkg/state"
)

// Lock takes the workspace's lock: a session-level advisory lock keyed by
// (schema, workspace id) on a connection of its own, kept until Unlock,
// with a lock row naming the holder. Until Unlock this Backend writes on
// that connection. A held lock gives a *state.LockedError naming the
// holder after the wait that Options and ctx allow.
func (b *Backend) Lock(ctx context.Context, info state.LockInfo) (*state.HeldLock, error) {
	info = info.WithDefaults(b.Location(), time.Now())
	key, err := b.workspaceID(ctx, b.pool)
	if err != nil {
		return nil, err
	}
	var conn *pgx.Conn
	got, err := state.PollLock(ctx, b.opts.LockTimeout, func(ctx context.Context) (bool, error) {
		if conn == nil {
			// The lock lives as long as its session, so it gets a
			// connection of its own rather than one the pool could hand
			// to someone else.
			c, err := pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig.Copy())
			if err != nil {
				return false, b.fail("locking", err)
			}
			conn = c
			// The server notices a holder whose host vanished by TCP
			// keepalives, by default after two hours: ask for them every
			// minute, so that such a lock goes within about two (a
			// socket connection ignores these).
			if _, err := conn.Exec(ctx, `SELECT set_config('tcp_keepalives_idle', '60', false),
				set_config('tcp_keepalives_interval', '10', false), set_config('tcp_keepalives_count', '6', false)`); err != nil {
				return false, b.fail("locking", err)
			}
		}
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, b.schemaKey, key).Scan(&got); err != nil {
			return false, b.fail("locking", err)
		}
		return got, nil
	})
	if !got {
		if conn != nil {
			_ = conn.Close(context.WithoutCancel(ctx))
		}
		if err != nil {
			return nil, err
		}
		return nil, b.lockedError(context.WithoutCancel(ctx))
	}
	info.Created = time.Now().UTC()
	row, _ := json.Marshal(info) // plain strings, numbers and a time always marshal
	if _, err := conn.Exec(ctx, `INSERT INTO xosplan_lock (workspace, info, pid) VALUES ($1, $2, pg_backend_pid())
		ON CONFLICT (workspace) DO UPDATE SET info = $2, pid = pg_backend_pid()`, b.name, row); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return nil, b.fail("recording the lock holder of", err)
	}
	held := &session{conn: conn, info: info, key: key}
	b.mu.Lock()
	b.held = held
	b.mu.Unlock()
	return state.NewHeldLock(info, func() error { return b.unlock(held) }), nil
}

// unlock removes held's lock row and releases the advisory lock before
// closing the session: the server ends a closed session in its own time,
// and the lock must be free when Unlock returns. Closing the session still
// releases it when the statements cannot run.
func (b *Backend) unlock(held *session) error {
	b.mu.Lock()
	if b.held == held {
		b.held = nil
	}
	b.mu.Unlock()
	held.mu.Lock()
	defer held.mu.Unlock()
	if held.conn.IsClosed() {
		return nil // Close, or a force-unlock, already ended the session and the lock with it
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, derr := held.conn.Exec(ctx, `DELETE FROM xosplan_lock WHERE workspace = $1 AND info->>'ID' = $2`, b.name, held.info.ID)
	_, uerr := held.conn.Exec(ctx, `SELECT pg_advisory_unlock($1, $2)`, b.schemaKey, held.key)
	if err := errors.Join(derr, uerr, held.conn.Close(ctx)); err != nil {
		return b.fail("unlocking", err)
	}
	return nil
}

// lockRow returns the workspace's lock row, nil when there is none.
func (b *Backend) lockRow(ctx context.Context) (*state.LockInfo, error) {
	var raw []byte
	err := b.pool.QueryRow(ctx, `SELECT info FROM xosplan_lock WHERE workspace = $1`, b.name).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var info state.LockInfo
	_ = json.Unmarshal(raw, &info) // a damaged row still yields "locked by an unknown holder"
	return &info, nil
}

func (b *Backend) lockedError(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var info state.LockInfo
	if row, err := b.lockRow(ctx); err == nil && row != nil {
		info = *row
	}
	return &state.LockedError{Info: info}
}

// ForceUnlock releases the lock when id names it. An advisory lock
// belongs to its session, and no other session can release it: while the
// holder's session is connected, ForceUnlock refuses (a
// *state.HolderRunningError) unless force is set, and then terminates that
// session, so that the holder cannot write any more (its writes go on that
// session). The row of a holder whose session has ended is removed at once.
func (b *Backend) ForceUnlock(ctx context.Context, id string, force bool) error {
	key, err := b.workspaceID(ctx, b.pool)
	if err != nil {
		return err
	}
	var raw []byte
	var pid int32
	err = b.pool.QueryRow(ctx, `SELECT info, pid FROM xosplan_lock WHERE workspace = $1`, b.name).Scan(&raw, &pid)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("force-unlock %s: %w", b.Location(), state.ErrNotLocked)
	}
	if err != nil {
		return b.fail("force-unlock of", err)
	}
	var row state.LockInfo
	if err := json.Unmarshal(raw, &row); err != nil {
		return fmt.Errorf("force-unlock %s: the lock record is damaged: %w", b.Location(), err)
	}
	if row.ID != id {
		return fmt.Errorf("force-unlock %s: %w: given %q, held as %q by %s", b.Location(), state.ErrLockMismatch, id, row.ID, row.Who)
	}
	// Only the session that still holds this advisory lock counts: the
	// recorded pid may belong to a session that reused it. A lock of two
	// int4 keys shows in pg_locks as classid, objid and objsubid 2.
	const holding = `FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.pid = $1
		AND l.classid = $2::int4::oid AND l.objid = $3::int4::oid AND l.objsubid = 2`
	if !force {
		var running bool
		if err := b.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 `+holding+`)`, pid, b.schemaKey, key).Scan(&running); err != nil {
			return b.fail("force-unlock of", err)
		}
		if running {
			return fmt.Errorf("force-unlock %s: database session %d: %w", b.Location(), pid,
				&state.HolderRunningError{Info: row, Checked: true, Local: false})
		}
	} else if _, err := b.pool.Exec(ctx, `SELECT pg_terminate_backend(l.pid, 5000) `+holding, pid, b.schemaKey, key); err != nil {
		return b.fail("force-unlock of", err)
	}
	if _, err := b.pool.Exec(ctx, `DELETE FROM xosplan_lock WHERE workspace = $1 AND info->>'ID' = $2`, b.name, id); err != nil {
		return b.fail("force-unlock of", err)
	}
	return nil
}
