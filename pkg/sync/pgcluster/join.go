package pgcluster

import (
	"context"
	"log/slog"

	"github.com/xosplan/xosplan/pkg/state"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// Joiner returns the sync.ServiceOptions.Join that makes a sync.Service a
// member of the cluster opts name (DSN, Workspace, Name, Lease); the
// service gives the rest.
func Joiner(opts Options) xsync.JoinFunc {
	return func(ctx context.Context, j xsync.JoinOptions) (xsync.Membership, error) {
		o := opts
		o.Parallelism, o.PerDriver, o.WorkDir, o.Logger = j.Parallelism, j.PerDriver, j.WorkDir, j.Logger
		o.OnReconcile, o.OnCheck = j.OnReconcile, j.OnCheck
		o.Local = func(ctx context.Context) (Local, error) {
			drivers, digest, err := j.Local(ctx)
			return Local{Drivers: drivers, Digest: digest}, err
		}
		c, err := Open(ctx, o)
		if err != nil {
			return nil, err
		}
		return &membership{Cluster: c, store: j.Store, log: j.Logger}, nil
	}
}

// membership is a Cluster with the state whose lock its terms take.
type membership struct {
	*Cluster
	store StateLocker
	log   *slog.Logger
}

// LockState takes the state lock for a term of leadership (LockState).
func (m *membership) LockState(term context.Context, info state.LockInfo) (*state.HeldLock, error) {
	return LockState(term, m.store, info, m.log)
}

// A membership is what a sync.Service runs a cluster with.
var _ xsync.Membership = (*membership)(nil)
