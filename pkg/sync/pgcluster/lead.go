package pgcluster

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/xosplan/xosplan/pkg/state"
)

// Run takes part in the cluster until ctx ends: whenever no member holds
// the workspace's lease (none was granted, its holder stopped renewing
// it, or its session ended), this member takes it and runs lead with a
// context that ends when the lease is lost (or ctx ends); lead must then
// return. Between terms it tries for the lease every third of its
// length. Run returns lead's error, or nil when ctx ends.
func (c *Cluster) Run(ctx context.Context, lead func(ctx context.Context) error) error {
	wait := c.opts.Lease / 3
	for ctx.Err() == nil {
		won, err := c.campaign(ctx)
		if err != nil && ctx.Err() == nil {
			c.log.Warn("cluster lease not taken", "error", err.Error())
		}
		if won {
			if err := c.term(ctx, lead); err != nil {
				return err
			}
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	return nil
}

// campaign takes the lease when it is free: never granted, not renewed
// for a lease, or held by a session that has ended.
func (c *Cluster) campaign(ctx context.Context) (bool, error) {
	var won bool
	err := c.onSession(ctx, func(conn *pgx.Conn) error {
		var holder string
		err := conn.QueryRow(ctx, `INSERT INTO xosplan_sync_lease AS l (workspace, member, session_pid)
			VALUES ($1, $2, pg_backend_pid())
			ON CONFLICT (workspace) DO UPDATE SET member = $2, session_pid = pg_backend_pid(), acquired = now(), renewed = now()
			WHERE l.member = $2 OR l.renewed < now() - $3::interval
				OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.session_pid)
			RETURNING member`, c.opts.Workspace, c.member, c.opts.Lease).Scan(&holder)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return c.fail("taking the cluster's lease", err)
		}
		won = holder == c.member
		return nil
	})
	return won, err
}

// term leads until the lease is lost or ctx ends: lead runs with a
// context that the renewal cancels when the lease cannot be renewed for
// a whole lease (another member may have it by then).
func (c *Cluster) term(ctx context.Context, lead func(ctx context.Context) error) error {
	termCtx, lost := context.WithCancel(ctx)
	defer lost()
	c.setLeading(true)
	defer c.setLeading(false)
	c.log.Info("leading the cluster", "member", c.member, "workspace", c.opts.Workspace)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.renewLease(termCtx, lost)
	}()
	err := lead(termCtx)
	lost()
	<-done
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_ = c.onSession(bg, func(conn *pgx.Conn) error {
		_, err := conn.Exec(bg, `DELETE FROM xosplan_sync_lease WHERE workspace = $1 AND member = $2`, c.opts.Workspace, c.member)
		return err
	})
	if ctx.Err() == nil {
		c.log.Warn("no longer leading the cluster", "member", c.member)
	}
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// renewLease renews the lease every third of its length, and calls lost
// when it was taken by another member or could not be renewed for a lease.
func (c *Cluster) renewLease(ctx context.Context, lost context.CancelFunc) {
	tick := time.NewTicker(c.opts.Lease / 3)
	defer tick.Stop()
	renewed := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var held bool
		opCtx, cancel := context.WithTimeout(ctx, c.opts.Lease)
		err := c.onSession(opCtx, func(conn *pgx.Conn) error {
			tag, err := conn.Exec(opCtx, `UPDATE xosplan_sync_lease SET renewed = now(), session_pid = pg_backend_pid()
				WHERE workspace = $1 AND member = $2`, c.opts.Workspace, c.member)
			held = err == nil && tag.RowsAffected() == 1
			return err
		})
		cancel()
		switch {
		case err == nil && !held:
			c.log.Warn("the cluster's lease was taken by another member")
			lost()
			return
		case err == nil:
			renewed = time.Now()
		case time.Since(renewed) > c.opts.Lease:
			c.log.Warn("the cluster's lease could not be renewed", "error", err.Error())
			lost()
			return
		}
	}
}

func (c *Cluster) setLeading(on bool) {
	c.mu.Lock()
	c.leading = on
	if on {
		c.leader = c.member
		c.walks = 0
	}
	c.mu.Unlock()
}

// StateLocker is the state backend whose lock the leader takes:
// pgbackend's *Backend.
type StateLocker interface {
	Lock(ctx context.Context, info state.LockInfo) (*state.HeldLock, error)
	ForceUnlock(ctx context.Context, id string, force bool) error
}

// LockState takes the state lock for a term of leadership. A lock held by
// a sync is that of a former leader that stopped renewing its lease but
// keeps its session (a process stopped, a machine cut off): it is forced
// away, which ends that session, so that the former leader cannot write
// any more. A lock held by anything else (an apply of a pipeline) is
// waited for, as long as ctx allows.
func LockState(ctx context.Context, st StateLocker, info state.LockInfo, log *slog.Logger) (*state.HeldLock, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	waiting := ""
	for {
		held, err := st.Lock(ctx, info)
		if err == nil {
			return held, nil
		}
		var locked *state.LockedError
		if !errors.As(err, &locked) {
			return nil, err
		}
		if locked.Info.Operation == info.Operation && locked.Info.ID != "" {
			if ferr := st.ForceUnlock(ctx, locked.Info.ID, true); ferr == nil {
				log.Warn("took the state lock from a former leader", "holder", locked.Info.Who, "id", locked.Info.ID)
				continue
			}
		}
		if waiting != locked.Info.ID {
			waiting = locked.Info.ID
			log.Info("waiting for the state lock", "holder", locked.Info.Who, "operation", locked.Info.Operation)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}
