package pgcluster

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// DefaultLease is how long a leader's lease and a member's membership
// last without being renewed (Options.Lease). Each is renewed every third
// of it; a member whose database session ends loses both at once.
const DefaultLease = 15 * time.Second

// Local is what a member runs actions with: the drivers built from its
// own checkout, and the digest of that checkout's configuration
// (sync.CheckoutDigest of the goal it compiled).
type Local struct {
	Drivers executor.Registry
	Digest  string
}

// Options configure a member.
type Options struct {
	// DSN is the state database's connection string and Workspace the
	// workspace the members share (the state backend has migrated the
	// database: open it first).
	DSN       string
	Workspace string
	// Name names this member in status and logs (default: the host's
	// name); the member is Name:PID.
	Name string
	// Parallelism is how many actions this member runs at once (default
	// 10); PerDriver bounds some drivers further, as for apply.
	Parallelism int
	PerDriver   map[string]int
	// Lease is how long the leader's lease and the memberships last
	// without renewal (default DefaultLease).
	Lease time.Duration
	// Local compiles this member's own configuration (called again when
	// LocalChanged says it changed, or when a job names another digest
	// and the last compile is a few seconds old).
	Local func(ctx context.Context) (Local, error)
	// WorkDir is this member's working folder: the folders requests name
	// relative to the leader's working folder are taken from it.
	WorkDir string
	// OnReconcile and OnCheck are called, while this member leads, when
	// another member is asked for a reconcile or a health check (its API,
	// its SIGHUP): they forward it here.
	OnReconcile func(reason string)
	OnCheck     func(addr string)
	// Logger receives the member's log; nil: none.
	Logger *slog.Logger
}

// Cluster is one member of a workspace's cluster of synchronizers: it
// runs the actions the leader hands out (a River worker), renews its
// membership, and, through Run, takes the lead when no member holds it.
// It implements sync.Cluster for the Engine it leads.
type Cluster struct {
	opts     Options
	member   string
	host     string
	password string
	// wsid names the workspace in queue and channel names.
	wsid    string
	channel string
	pool    *pgxpool.Pool
	river   *river.Client[pgx.Tx]
	log     *slog.Logger

	// session is the member's own connection: its membership and, while
	// it leads, its lease live and die with it.
	sessionMu sync.Mutex
	session   *pgx.Conn

	mu sync.Mutex // guards what follows
	// leading is set while Run's lead runs.
	leading bool
	leader  string
	// leaderCheckout is the leader's checkout digest as last read.
	leaderCheckout string
	members        []xsync.MemberStatus
	// calls are the leader's actions out at members, by job id; early
	// holds the started messages that came before their call was
	// registered (a member can start a job before its insert returns).
	calls map[int64]*call
	early map[int64]earlyStart
	// working are the actions this member runs, by job id: their
	// addresses.
	working map[int64][]string
	// delivered are the jobs whose results this member's calls took, and
	// when: River may still hold such a job as running for a moment (it
	// records completions in batches), and a call that finds it by its
	// unique key must not wait for a result already taken.
	delivered map[int64]time.Time
	// walks counts the apply walks of this member's term (Dispatch).
	walks int

	// checkout is the digest of the last local compile, which the
	// membership publishes; queue is the queue this member works, that of
	// its checkout.
	checkout atomic.Pointer[string]
	queueMu  sync.Mutex
	queue    string
	// mismatch is the last pair of digests (this member's, the leader's)
	// logged as differing, so that it is said once.
	mismatch string

	localMu    sync.Mutex
	local      *Local
	localAt    time.Time
	localDirty bool
	perDriver  map[string]chan struct{}
	// slots bound the actions this member runs at once (Parallelism);
	// River hands it a few more jobs than that (fetchAhead), which wait
	// here, so that a slot that frees takes the next one at once rather
	// than after the queue's next fetch.
	slots chan struct{}

	// hooks let tests stop a member at a step of an action's life.
	hooks atomic.Pointer[testHooks]

	wake    chan struct{}  // the sweeper's: a result may have arrived
	inserts chan insertion // the inserter's
	// life ends when the member leaves (Close) or dies: the background
	// work this member starts ends with it, so that Close never waits for
	// more than its own bounds.
	life context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

var _ xsync.Cluster = (*Cluster)(nil)

// testHooks are called, when set, at steps of an action's life (the
// fault tests kill a member there).
type testHooks struct {
	// beforeReport: a member ran a job and is about to store its result.
	beforeReport func(job int64, addresses []string)
}

// nameRE is what a member's name may hold (a host name fits).
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// Errors of a member; compare with errors.Is.
var (
	// ErrBadName: Options.Name is not 1–63 letters, digits, '.', '_', '-'.
	ErrBadName = errors.New("a member name is 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit")
	// ErrNotMigrated: the state database has no cluster tables (open the
	// state backend first, which migrates it).
	ErrNotMigrated = errors.New("the state database has no synchronizer tables")
	// ErrMemberExists: another live member has this member's name.
	ErrMemberExists = errors.New("a live member of the cluster has this name")
)

// Open joins the workspace's cluster: it migrates River's tables, starts
// this member's workers and its membership. Close leaves.
func Open(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.Lease <= 0 {
		opts.Lease = DefaultLease
	}
	if opts.Parallelism <= 0 {
		opts.Parallelism = executor.DefaultParallelism
	}
	if opts.Workspace == "" {
		opts.Workspace = pgbackend.DefaultWorkspace
	}
	host, _ := os.Hostname()
	host = cmp.Or(host, "localhost")
	name := cmp.Or(opts.Name, host)
	if !nameRE.MatchString(name) {
		return nil, fmt.Errorf("%w: %q", ErrBadName, name)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	sum := sha256.Sum256([]byte(opts.Workspace))
	id := hex.EncodeToString(sum[:8])
	c := &Cluster{opts: opts, member: name + ":" + strconv.Itoa(os.Getpid()), host: host,
		wsid: id, channel: "xosplan_sync_" + id, log: opts.Logger,
		calls: map[int64]*call{}, early: map[int64]earlyStart{}, working: map[int64][]string{}, delivered: map[int64]time.Time{}, localDirty: true,
		perDriver: map[string]chan struct{}{}, wake: make(chan struct{}, 1), inserts: make(chan insertion), slots: make(chan struct{}, opts.Parallelism)}
	for d, n := range opts.PerDriver {
		if n > 0 {
			c.perDriver[d] = make(chan struct{}, n)
		}
	}
	cfg, err := pgxpool.ParseConfig(opts.DSN)
	if err != nil {
		return nil, c.fail("the state database's connection string", err)
	}
	c.password = cfg.ConnConfig.Password
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 30 * time.Second
	}
	// River's producer, completer, elector and notifier take connections
	// besides the leader's inserts and the results.
	cfg.MaxConns = int32(max(10, min(opts.Parallelism, 50)+8))
	if c.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, c.fail("connecting to the state database", err)
	}
	if err := c.open(ctx); err != nil {
		c.pool.Close()
		if c.session != nil {
			_ = c.session.Close(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	c.life, c.stop = bg, stop
	c.wg.Go(func() { c.heartbeat(bg) })
	c.wg.Go(func() { c.listen(bg) })
	c.wg.Go(func() { c.sweep(bg) })
	c.wg.Go(func() { c.inserter(bg) })
	return c, nil
}

func (c *Cluster) open(ctx context.Context) error {
	var one int
	err := c.pool.QueryRow(ctx, `SELECT 1 FROM xosplan_sync_member LIMIT 1`).Scan(&one)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
		return fmt.Errorf("%w: open the state backend first (it migrates the database)", ErrNotMigrated)
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return c.fail("reading the cluster's members", err)
	}
	if err := c.migrateRiver(ctx); err != nil {
		return err
	}
	if err := c.connectSession(ctx); err != nil {
		return err
	}
	if err := c.join(ctx); err != nil {
		return err
	}
	// The checkout is compiled now, so that this member works the queue of
	// its checkout and the leader knows it before the first job (a
	// configuration that does not compile yet works no queue but the
	// workspace's own, which holds nothing).
	c.queue = c.queueFor("")
	if l, err := c.localFor(ctx, ""); err == nil {
		c.queue = c.queueFor(l.Digest)
	} else {
		c.log.Warn("this member's configuration does not compile; it takes no action until it does", "error", err.Error())
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &actionWorker{c: c})
	riverLog := slog.New(levelAtLeast{h: c.log.Handler(), min: slog.LevelWarn})
	rc, err := river.NewClient(riverpgxv5.New(c.pool), &river.Config{
		ID:      c.member,
		Queues:  map[string]river.QueueConfig{c.queue: {MaxWorkers: c.fetchAhead()}},
		Workers: workers,
		// New jobs arrive by notification, limited (by River) to one a
		// cool-down per queue; the cool-down also bounds how often a member
		// fetches, each fetch a costly statement. The jobs a member holds
		// ahead (fetchAhead) cover the gap; the poll catches the jobs whose
		// notification the limit swallowed.
		FetchCooldown:     10 * time.Millisecond,
		FetchPollInterval: 50 * time.Millisecond,
		// The drivers time their operations; a job's own time is not
		// bounded. A member that dies has its jobs handed out again by
		// the leader (sweep), well before River's rescuer would.
		JobTimeout:                  -1,
		RescueStuckJobsAfter:        6 * time.Hour,
		MaxAttempts:                 10,
		CompletedJobRetentionPeriod: time.Minute,
		CancelledJobRetentionPeriod: time.Minute,
		DiscardedJobRetentionPeriod: time.Hour,
		Logger:                      riverLog,
	})
	if err != nil {
		return fmt.Errorf("starting the job queue: %w", err)
	}
	if err := rc.Start(context.WithoutCancel(ctx)); err != nil {
		return c.fail("starting the job queue", err)
	}
	c.river = rc
	return nil
}

// migrateRiver brings River's tables to its current version, one member
// at a time (River's migrator takes no lock of its own).
func (c *Cluster) migrateRiver(ctx context.Context) error {
	conn, err := c.pool.Acquire(ctx)
	if err != nil {
		return c.fail("migrating the job queue", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(hashtext('xosplan:river:' || current_schema()))`); err != nil {
		return c.fail("migrating the job queue", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtext('xosplan:river:' || current_schema()))`) //nolint:errcheck // the lock ends with the connection anyway
	m, err := rivermigrate.New(riverpgxv5.New(c.pool), nil)
	if err != nil {
		return fmt.Errorf("migrating the job queue: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return c.fail("migrating the job queue", err)
	}
	return nil
}

// connectSession opens the member's own connection.
func (c *Cluster) connectSession(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, c.pool.Config().ConnConfig.Copy())
	if err != nil {
		return c.fail("connecting to the state database", err)
	}
	// As for the state lock: a member whose host vanished is noticed by
	// TCP keepalives within about two minutes (its heartbeat stops sooner).
	if _, err := conn.Exec(ctx, `SELECT set_config('tcp_keepalives_idle', '60', false),
		set_config('tcp_keepalives_interval', '10', false), set_config('tcp_keepalives_count', '6', false)`); err != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
		return c.fail("connecting to the state database", err)
	}
	c.sessionMu.Lock()
	c.session = conn
	c.sessionMu.Unlock()
	return nil
}

// onSession runs fn on the member's connection, connecting again when it
// was lost (the membership row then names the new session).
func (c *Cluster) onSession(ctx context.Context, fn func(conn *pgx.Conn) error) error {
	c.sessionMu.Lock()
	defer c.sessionMu.Unlock()
	if c.session == nil || c.session.IsClosed() {
		conn, err := pgx.ConnectConfig(ctx, c.pool.Config().ConnConfig.Copy())
		if err != nil {
			return c.fail("connecting to the state database", err)
		}
		c.session = conn
	}
	return fn(c.session)
}

// join records this member, refusing a name a live member has.
func (c *Cluster) join(ctx context.Context) error {
	return c.onSession(ctx, func(conn *pgx.Conn) error {
		var taken bool
		err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM xosplan_sync_member m WHERE m.workspace = $1 AND m.member = $2
			AND m.heartbeat > now() - $3::interval AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = m.session_pid))`,
			c.opts.Workspace, c.member, c.opts.Lease).Scan(&taken)
		if err != nil {
			return c.fail("joining the cluster", err)
		}
		if taken {
			return fmt.Errorf("%w: %s (give another --member-name)", ErrMemberExists, c.member)
		}
		return c.renewMembership(ctx, conn)
	})
}

func (c *Cluster) renewMembership(ctx context.Context, conn *pgx.Conn) error {
	checkout := ""
	if p := c.checkout.Load(); p != nil {
		checkout = *p
	}
	_, err := conn.Exec(ctx, `INSERT INTO xosplan_sync_member (workspace, member, host, pid, capacity, checkout, session_pid)
		VALUES ($1, $2, $3, $4, $5, $6, pg_backend_pid())
		ON CONFLICT (workspace, member) DO UPDATE SET host = $3, pid = $4, capacity = $5, checkout = $6, session_pid = pg_backend_pid(), heartbeat = now()`,
		c.opts.Workspace, c.member, c.host, os.Getpid(), c.opts.Parallelism, checkout)
	if err != nil {
		return c.fail("renewing the membership", err)
	}
	return nil
}

// Member names this member (Name:PID).
func (c *Cluster) Member() string { return c.member }

// Close leaves the cluster: no new action starts here, running ones get
// until ctx ends to finish (then their context is cancelled and their
// results still reported), and the membership goes.
func (c *Cluster) Close(ctx context.Context) error {
	var errs []error
	if c.river != nil {
		if err := c.river.Stop(ctx); err != nil {
			stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			errs = append(errs, c.river.StopAndCancel(stopCtx))
			cancel()
		}
	}
	c.stop()
	c.wg.Wait()
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = c.onSession(bg, func(conn *pgx.Conn) error {
		_, err := conn.Exec(bg, `DELETE FROM xosplan_sync_member WHERE workspace = $1 AND member = $2`, c.opts.Workspace, c.member)
		_, lerr := conn.Exec(bg, `DELETE FROM xosplan_sync_lease WHERE workspace = $1 AND member = $2`, c.opts.Workspace, c.member)
		return errors.Join(err, lerr)
	})
	c.sessionMu.Lock()
	if c.session != nil {
		_ = c.session.Close(bg)
	}
	c.sessionMu.Unlock()
	c.pool.Close()
	return errors.Join(errs...)
}

// heartbeat renews the membership every third of the lease and keeps
// the view of the members that Status and the leader's sweep use.
func (c *Cluster) heartbeat(ctx context.Context) {
	tick := time.NewTicker(c.opts.Lease / 3)
	defer tick.Stop()
	failing := false
	for {
		// Bounded: a session whose server went silent must not hold the
		// session (and the lease's renewal behind it) beyond a lease.
		opCtx, cancel := context.WithTimeout(ctx, c.opts.Lease)
		err := c.onSession(opCtx, func(conn *pgx.Conn) error {
			if err := c.renewMembership(opCtx, conn); err != nil {
				return err
			}
			return c.readMembers(opCtx, conn)
		})
		cancel()
		if err == nil {
			// Outside the session: a compile it starts takes the local
			// configuration's lock, whose holders publish the checkout on
			// the session (the other order deadlocked the heartbeat, and
			// the lease's renewal behind it).
			c.compareLeaders()
		}
		switch {
		case err != nil && ctx.Err() == nil && !failing:
			c.log.Warn("cluster membership not renewed", "error", err.Error())
			failing = true
		case err == nil && failing:
			c.log.Info("cluster membership renewed again")
			failing = false
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// readMembers refreshes the members' view. A member is alive while it
// renews its membership and its session is connected; the rows of
// members dead for ten leases go.
func (c *Cluster) readMembers(ctx context.Context, conn *pgx.Conn) error {
	rows, err := conn.Query(ctx, `SELECT m.member, m.host, m.pid, m.capacity, m.checkout, m.heartbeat,
		(m.heartbeat > now() - $2::interval AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = m.session_pid)),
		coalesce(l.member = m.member AND (l.renewed > now() - $2::interval AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = l.session_pid)), false)
		FROM xosplan_sync_member m LEFT JOIN xosplan_sync_lease l ON l.workspace = m.workspace
		WHERE m.workspace = $1 ORDER BY m.member`, c.opts.Workspace, c.opts.Lease)
	if err != nil {
		return c.fail("reading the cluster's members", err)
	}
	members, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (xsync.MemberStatus, error) {
		var m xsync.MemberStatus
		var beat time.Time
		err := r.Scan(&m.Member, &m.Host, &m.PID, &m.Capacity, &m.Checkout, &beat, &m.Alive, &m.Leader)
		b := beat.UTC()
		m.Heartbeat = &b
		return m, err
	})
	if err != nil {
		return c.fail("reading the cluster's members", err)
	}
	leader, leaderCheckout := "", ""
	for _, m := range members {
		if m.Leader {
			leader, leaderCheckout = m.Member, m.Checkout
		}
	}
	c.mu.Lock()
	c.members, c.leader, c.leaderCheckout = members, leader, leaderCheckout
	c.mu.Unlock()
	_, err = conn.Exec(ctx, `DELETE FROM xosplan_sync_member WHERE workspace = $1 AND heartbeat < now() - 10 * $2::interval`,
		c.opts.Workspace, c.opts.Lease)
	return err
}

// compareLeaders compares this member's checkout with the leader's, as
// the members were read last.
func (c *Cluster) compareLeaders() {
	c.mu.Lock()
	leading, leader, theirs := c.leading, c.leader, c.leaderCheckout
	c.mu.Unlock()
	c.compareCheckout(leading, leader, theirs)
}

// compareCheckout says, once for each pair, when this member's checkout
// is not the leader's: it takes none of the leader's actions until they
// match (a member whose checkout was updated without a file event learns
// it here: it compiles again first).
func (c *Cluster) compareCheckout(leading bool, leader, theirs string) {
	mine := ""
	if p := c.checkout.Load(); p != nil {
		mine = *p
	}
	if leading || theirs == "" || mine == theirs {
		c.mismatch = ""
		return
	}
	if c.mismatch == mine+theirs {
		return
	}
	c.mismatch = mine + theirs
	c.LocalChanged()
	c.log.Error("this member's checkout is not the leader's: it runs none of the leader's actions until it is the same",
		"here", cmp.Or(mine, "none (the configuration does not compile)"), "leader", leader, "leader_checkout", theirs)
}

// fetchAhead is how many jobs River hands this member at once: its
// parallelism and half as many again, which wait for a slot (enough to
// cover the gap between two fetches; more would let the first member to
// fetch take the others' share when a reconcile starts).
func (c *Cluster) fetchAhead() int {
	return min(c.opts.Parallelism+max(2, c.opts.Parallelism/2), river.QueueNumWorkersMax)
}

// capacity is how many actions the live members run at once together.
func (c *Cluster) capacity() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, m := range c.members {
		if m.Alive {
			total += m.Capacity
		}
	}
	return max(total, c.opts.Parallelism)
}

// Status describes the members and who runs what: the leader knows every
// action it handed out, a follower its own.
func (c *Cluster) Status() xsync.ClusterStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := xsync.ClusterStatus{Member: c.member, Role: xsync.RoleFollower, Leader: c.leader, Workspace: c.opts.Workspace,
		Members: make([]xsync.MemberStatus, 0, len(c.members))}
	if c.leading {
		s.Role, s.Leader = xsync.RoleLeader, c.member
	}
	running := map[string][]string{}
	for _, cl := range c.calls {
		if cl.member != "" {
			running[cl.member] = append(running[cl.member], cl.addrs...)
		}
	}
	for _, addrs := range c.working {
		running[c.member] = append(running[c.member], addrs...)
	}
	for _, m := range c.members {
		m.Leader = m.Member == s.Leader
		m.Running = slices.Compact(slices.Sorted(slices.Values(running[m.Member])))
		if m.Running == nil {
			m.Running = []string{}
		}
		s.Members = append(s.Members, m)
	}
	return s
}

// RequestReconcile asks the leader for a reconcile (this member's API or
// SIGHUP, when it does not lead).
func (c *Cluster) RequestReconcile(ctx context.Context, reason string) error {
	return c.notify(ctx, message{Type: msgReconcile, Member: c.member, Reason: reason})
}

// RequestCheck asks the leader for the health check of addr.
func (c *Cluster) RequestCheck(ctx context.Context, addr string) error {
	return c.notify(ctx, message{Type: msgCheck, Member: c.member, Address: addr})
}

// LocalChanged says that this member's configuration may have changed
// (a file event): it is compiled again, and the member works the queue of
// its new checkout.
func (c *Cluster) LocalChanged() {
	c.localMu.Lock()
	c.localDirty = true
	c.localMu.Unlock()
	if c.Leading() {
		return // the leader's engine compiles it, and Dispatch adopts it
	}
	c.wg.Go(func() {
		ctx, cancel := context.WithTimeout(c.life, 10*time.Minute)
		defer cancel()
		if _, err := c.localFor(ctx, ""); err != nil {
			c.log.Warn("this member's configuration does not compile; it takes no action until it does", "error", err.Error())
		}
	})
}

// queueFor names the queue of the actions planned from the checkout
// digest: a member works the queue of its own checkout only, so that no
// member runs scripts other than those an action was planned from.
func (c *Cluster) queueFor(digest string) string {
	_, hexDigest, _ := strings.Cut(digest, ":")
	if len(hexDigest) < 16 {
		return "xosplan-" + c.wsid
	}
	return "xosplan-" + c.wsid + "-" + strings.ToLower(hexDigest[:16])
}

// checkoutChanged publishes a new checkout digest and moves this member's
// workers to its queue: they take the new queue's jobs at once, and
// finish those of the old one they hold (River's Remove waits for them),
// in the background.
func (c *Cluster) checkoutChanged(ctx context.Context, digest string) {
	if prev := c.checkout.Swap(&digest); prev != nil && *prev == digest {
		return
	}
	_ = c.onSession(ctx, func(conn *pgx.Conn) error { return c.renewMembership(ctx, conn) })
	if c.river == nil {
		return // Open: the client starts with the queue of this checkout
	}
	q := c.queueFor(digest)
	c.wg.Go(func() {
		c.queueMu.Lock()
		defer c.queueMu.Unlock()
		if q == c.queue {
			return
		}
		if err := c.river.Queues().Add(q, river.QueueConfig{MaxWorkers: c.fetchAhead()}); err != nil {
			c.log.Warn("the queue of this member's new checkout was not added", "queue", q, "error", err.Error())
			return
		}
		old := c.queue
		c.queue = q
		c.log.Info("working the queue of a new checkout", "checkout", digest)
		if err := c.river.Queues().Remove(c.life, old); err != nil {
			c.log.Warn("the queue of this member's former checkout was not removed", "queue", old, "error", err.Error())
		}
	})
}

// Leading reports whether this member leads now.
func (c *Cluster) Leading() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.leading
}

// fail wraps err of doing what, with the password masked.
func (c *Cluster) fail(what string, err error) error {
	return pgbackend.MaskError(fmt.Errorf("%s: %w", what, err), c.password)
}

// Messages members send each other on the workspace's channel.
const (
	msgStarted   = "started"   // a member started an action's process
	msgDone      = "done"      // a member reported an action's result
	msgRefused   = "refused"   // a member refused a job: its checkout differs
	msgReconcile = "reconcile" // a member was asked for a reconcile
	msgCheck     = "check"     // a member was asked for a health check
)

// message is one notification; Job, Address and Process depend on Type.
type message struct {
	Type    string `json:"t"`
	Job     int64  `json:"j,omitempty"`
	Member  string `json:"m,omitempty"`
	Address string `json:"a,omitempty"`
	Index   int    `json:"i,omitempty"`
	PID     int    `json:"p,omitempty"`
	PGID    int    `json:"g,omitempty"`
	Start   string `json:"s,omitempty"`
	Reason  string `json:"r,omitempty"`
}

// notify sends msg to every member (PostgreSQL's NOTIFY: at most 8000
// bytes, and every message here is far smaller).
func (c *Cluster) notify(ctx context.Context, msg message) error {
	payload, _ := json.Marshal(msg) // strings and numbers always marshal
	if _, err := c.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, c.channel, string(payload)); err != nil {
		return c.fail("notifying the cluster", err)
	}
	return nil
}

// listen receives the members' messages on a connection of its own,
// connecting again after a failure (and then looking for results it may
// have missed).
func (c *Cluster) listen(ctx context.Context) {
	for ctx.Err() == nil {
		conn, err := pgx.ConnectConfig(ctx, c.pool.Config().ConnConfig.Copy())
		if err == nil {
			if _, err = conn.Exec(ctx, `LISTEN `+pgx.Identifier{c.channel}.Sanitize()); err == nil {
				c.poke()
				for {
					n, werr := conn.WaitForNotification(ctx)
					if werr != nil {
						err = werr
						break
					}
					var msg message
					if json.Unmarshal([]byte(n.Payload), &msg) == nil {
						c.receive(ctx, msg)
					}
				}
			}
			_ = conn.Close(context.WithoutCancel(ctx))
		}
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("cluster notifications interrupted; listening again", "error", c.fail("listening", err).Error())
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// receive handles one message.
func (c *Cluster) receive(ctx context.Context, msg message) {
	switch msg.Type {
	case msgDone:
		c.poke()
	case msgStarted:
		c.started(msg)
	case msgRefused:
		c.refused(msg)
	case msgReconcile:
		if c.Leading() && c.opts.OnReconcile != nil {
			c.opts.OnReconcile(msg.Reason)
		}
	case msgCheck:
		if c.Leading() && c.opts.OnCheck != nil {
			c.opts.OnCheck(msg.Address)
		}
	}
}

// poke wakes the sweeper.
func (c *Cluster) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// levelAtLeast passes on the records of h at min or above (River's own
// log is chatty at Info).
type levelAtLeast struct {
	h   slog.Handler
	min slog.Level
}

func (l levelAtLeast) Enabled(ctx context.Context, lv slog.Level) bool {
	return lv >= l.min && l.h.Enabled(ctx, lv)
}
func (l levelAtLeast) Handle(ctx context.Context, r slog.Record) error { return l.h.Handle(ctx, r) }
func (l levelAtLeast) WithAttrs(a []slog.Attr) slog.Handler {
	return levelAtLeast{h: l.h.WithAttrs(a), min: l.min}
}
func (l levelAtLeast) WithGroup(n string) slog.Handler {
	return levelAtLeast{h: l.h.WithGroup(n), min: l.min}
}
