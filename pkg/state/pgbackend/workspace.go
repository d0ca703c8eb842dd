package pgbackend

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/xosplan/xosplan/pkg/state"
)

// WorkspaceInfo describes a workspace of a database.
type WorkspaceInfo struct {
	Name string
	// Serial is its state's serial (0: never written).
	Serial uint64
}

// Workspaces lists the database's workspaces, by name.
func (b *Backend) Workspaces(ctx context.Context) ([]WorkspaceInfo, error) {
	rows, err := b.pool.Query(ctx, `SELECT w.name, coalesce(s.serial, 0) FROM xosplan_workspace w
		LEFT JOIN xosplan_state s ON s.workspace = w.name ORDER BY w.name COLLATE "C"`)
	if err != nil {
		return nil, b.fail("listing the workspaces of", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (WorkspaceInfo, error) {
		var w WorkspaceInfo
		var serial int64
		err := r.Scan(&w.Name, &serial)
		w.Serial = uint64(serial)
		return w, err
	})
	if err != nil {
		return nil, b.fail("listing the workspaces of", err)
	}
	return out, nil
}

// CreateWorkspace creates the workspace name, empty; ErrWorkspaceExists
// when there is one.
func (b *Backend) CreateWorkspace(ctx context.Context, name string) error {
	if err := CheckWorkspaceName(name); err != nil {
		return err
	}
	_, err := b.pool.Exec(ctx, `INSERT INTO xosplan_workspace (name) VALUES ($1)`, name)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" { // unique_violation
		return fmt.Errorf("%w: %s has a workspace %q", ErrWorkspaceExists, b.loc, name)
	}
	if err != nil {
		return b.fail("creating a workspace in", err)
	}
	return nil
}

// Delete deletes this Backend's workspace with its state, backup and
// journal, under its lock (a held lock gives a *state.LockedError). It
// refuses the default workspace (ErrDefaultWorkspace), and one that
// records resources or outputs, or has journal rows, unless force
// (ErrWorkspaceNotEmpty).
func (b *Backend) Delete(ctx context.Context, info state.LockInfo, force bool) error {
	if b.name == DefaultWorkspace {
		return ErrDefaultWorkspace
	}
	held, err := b.Lock(ctx, info)
	if err != nil {
		return err
	}
	err = b.inTx(ctx, "deleting", func(tx pgx.Tx) error {
		cur, err := b.lockedLoad(ctx, tx)
		if err != nil && !force {
			return err
		}
		if err == nil && !force && (len(cur.state.Resources) > 0 || len(cur.state.Outputs) > 0 || len(cur.records) > 0) {
			return fmt.Errorf("%w: workspace %q records %d resources (serial %d); destroy them first, or delete it with --force to forget them",
				ErrWorkspaceNotEmpty, b.name, len(state.ReplayJournal(cur.state, cur.records).State.Resources), cur.serial)
		}
		_, err = tx.Exec(ctx, `DELETE FROM xosplan_workspace WHERE name = $1`, b.name)
		return err
	})
	return errors.Join(err, held.Unlock())
}
