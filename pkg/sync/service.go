package sync

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	stdsync "sync"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// ServiceOptions is what a Service is built from: the goal's spec and the
// way actions run, the state, the API, the watch and, with a PostgreSQL
// state, the cluster.
type ServiceOptions struct {
	// Spec is the configuration the service keeps the resources at
	// (workflow.MakeGoal compiles it for every reconcile); without a Root,
	// the default root of its paths (workflow.FindRoot). Diags are the
	// problems found reading its inputs (an inputs file, an import map),
	// reported with every goal's.
	Spec  workflow.Spec
	Diags diag.Diagnostics
	// Placement places compute at apply time.
	Placement workflow.Placement
	// Store is the state, which the caller opened and closes. Without a
	// cluster the service holds its lock for the whole run.
	Store state.Store
	// LockInfo describes this process to whoever its lock blocks.
	LockInfo state.LockInfo
	// Apply are the apply walks' options (parallelism, per-driver limits,
	// retries, grace, abort, script root); Timeout bounds every operation
	// without its own.
	Apply   executor.Options
	Timeout time.Duration
	// RetryBase, RetryMax, HealthInterval and Resync are the Engine's.
	RetryBase, RetryMax, HealthInterval, Resync time.Duration
	// CheckDrift, CheckDriftTimeout and CheckDriftRepair are the
	// Engine's drift check.
	CheckDrift, CheckDriftTimeout time.Duration
	CheckDriftRepair              bool
	// Debounce and Poll are the watch's (WatchOptions).
	Debounce, Poll time.Duration
	// Logger receives the log; Events every event of the engine.
	Logger *slog.Logger
	Events func(Event)
	// API says where and how the API is served.
	API ServiceAPI
	// Reconcile asks for a reconcile with each reason received (a
	// SIGHUP): of the engine, or of the leader when another member leads.
	Reconcile <-chan string
	// Join, with a PostgreSQL state (*pgbackend.Backend), makes this
	// service a member of the cluster of synchronizers sharing the
	// workspace (pkg/sync/pgcluster.Joiner): the leader takes the state
	// lock for its terms. nil: the service holds the lock alone.
	Join JoinFunc
}

// ServiceAPI says where and how a Service serves its API (Handler).
type ServiceAPI struct {
	// Listen is the address (host:port) the API listens on; "": no API.
	Listen string
	// ListenFile, when set, receives the address listened on (for a port
	// 0), written once the token is made.
	ListenFile string
	// Token is the token every request that needs one carries. When it
	// is empty the service makes one (MakeTokenFile) at the path TokenPath
	// returns for the port listened on, and removes it when it stops.
	Token     string
	TokenPath func(port string) (string, error)
	// Encode renders an event for GET /v1/events (APIOptions.Encode).
	Encode func(Event) ([]byte, bool)
}

// Membership is this synchronizer's place in a cluster of synchronizers
// sharing one state's workspace: it runs the actions the leader hands out
// and, through Run, leads (runs lead) whenever no member does.
// pkg/sync/pgcluster implements it over PostgreSQL.
type Membership interface {
	Cluster
	// Member names this member; Leading reports whether it leads now.
	Member() string
	Leading() bool
	// Run takes part until ctx ends, calling lead for each term of
	// leadership with a context that ends with the term.
	Run(ctx context.Context, lead func(term context.Context) error) error
	// LockState takes the state lock for a term of leadership.
	LockState(term context.Context, info state.LockInfo) (*state.HeldLock, error)
	// RequestReconcile and RequestCheck ask the leader.
	RequestReconcile(ctx context.Context, reason string) error
	RequestCheck(ctx context.Context, addr string) error
	// LocalChanged says this member's checkout may have changed.
	LocalChanged()
	// Close leaves the cluster; the actions running here get until ctx
	// ends.
	Close(ctx context.Context) error
}

// JoinFunc makes a Service a member of its workspace's cluster.
type JoinFunc func(ctx context.Context, opts JoinOptions) (Membership, error)

// JoinOptions is what a member is made with by the Service.
type JoinOptions struct {
	// Store is the PostgreSQL state whose workspace the members share.
	Store *pgbackend.Backend
	// Parallelism and PerDriver bound the actions run here.
	Parallelism int
	PerDriver   map[string]int
	// WorkDir is this member's working folder.
	WorkDir string
	Logger  *slog.Logger
	// Local compiles this member's own checkout: the drivers it runs
	// actions with and the digest of its configuration (CheckoutDigest).
	Local func(ctx context.Context) (executor.Registry, string, error)
	// OnReconcile and OnCheck are called, while this member leads, when
	// another member is asked for a reconcile or a health check.
	OnReconcile func(reason string)
	OnCheck     func(addr string)
}

// Service is the synchronizer as a program runs it: it takes the state
// (alone, or as a member of a cluster that elects a leader), recovers what
// an interrupted apply left, and runs the Engine on the goal of its Spec
// with its API, the watch of the configuration's files and the
// reconciles asked for, until its context ends.
type Service struct {
	opts ServiceOptions
	// goal compiles the configuration's goal; registry makes the drivers
	// for a script root.
	goal     GoalFunc
	registry func(scriptRoot string) executor.Registry
	stateDir string
	engine   *Engine
	member   Membership
	metrics  *Metrics
}

// NewService returns the service opts describe; Run runs it.
func NewService(opts ServiceOptions) (*Service, error) {
	switch {
	case opts.Store == nil:
		return nil, errors.New("sync service: no state")
	case opts.API.Listen != "" && opts.API.Token == "" && opts.API.TokenPath == nil:
		return nil, errors.New("sync service: an API without a token needs a TokenPath to make one at")
	}
	if opts.Spec.Root == nil {
		// Every compile, and the exec driver, is confined to one root.
		root, err := workflow.FindRoot(opts.Spec.Paths)
		if err != nil {
			return nil, err
		}
		opts.Spec.Root = root
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: opts}, nil
}

// Run runs the service until ctx ends, and returns nil then; an error is
// one that stopped it (the state, the cluster, the API's listener).
func (s *Service) Run(ctx context.Context) error {
	store := s.opts.Store
	pg, clustered := store.(*pgbackend.Backend)
	clustered = clustered && s.opts.Join != nil
	var prior *state.State
	var err error
	if clustered {
		prior, err = store.Read(ctx)
	} else {
		var held *state.HeldLock
		if held, err = store.Lock(ctx, s.opts.LockInfo); err != nil {
			return err
		}
		defer held.Unlock()
		prior, err = recoverState(ctx, store)
	}
	if err != nil {
		return err
	}
	if err := s.prepareGoal(ctx, prior); err != nil {
		return err
	}
	wd, _ := os.Getwd()
	s.metrics = NewMetrics()
	eopts := Options{Goal: s.goal, Store: store, Drivers: s.registry(s.opts.Spec.ScriptRoot), Apply: s.opts.Apply,
		Timeout: s.opts.Timeout, WorkDir: wd, RetryBase: s.opts.RetryBase, RetryMax: s.opts.RetryMax, HealthInterval: s.opts.HealthInterval,
		Resync: s.opts.Resync, CheckDrift: s.opts.CheckDrift, CheckDriftTimeout: s.opts.CheckDriftTimeout,
		CheckDriftRepair: s.opts.CheckDriftRepair, Logger: s.opts.Logger, Events: s.opts.Events, Metrics: s.metrics}
	if clustered {
		if err := s.join(ctx, pg, wd); err != nil {
			return err
		}
		defer s.leave(ctx)
		eopts.Cluster = s.member
	}
	s.engine = New(eopts)

	var wg stdsync.WaitGroup
	defer wg.Wait()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if err := s.serveAPI(runCtx, &wg); err != nil {
		return err
	}
	s.watch(runCtx, &wg)
	wg.Go(func() {
		for {
			select {
			case <-runCtx.Done():
				return
			case reason := <-s.opts.Reconcile:
				s.reconcile(runCtx, reason)
			}
		}
	})
	configuration := strings.Join(s.opts.Spec.Paths, ",")
	if s.member == nil {
		s.opts.Logger.Info("sync started", "configuration", configuration, "state", store.Location())
		err = s.engine.Run(ctx)
	} else {
		s.opts.Logger.Info("sync started", "configuration", configuration, "state", store.Location(), "member", s.member.Member())
		err = s.member.Run(ctx, s.lead)
	}
	stop()
	return err
}

// prepareGoal makes the goal function and the drivers' registry, from the
// state recorded before (the roots and placements it names).
func (s *Service) prepareGoal(ctx context.Context, prior *state.State) error {
	spec := s.opts.Spec
	// An error that belongs to some resources holds those (and what
	// depends on them); the others are reconciled.
	spec.Hold = true
	execRoot, err := workflow.ExecutorRoot(spec.Root, prior)
	if err != nil {
		return err
	}
	claimer, err := s.opts.Placement.Placer(ctx, prior)
	if err != nil {
		return err
	}
	// One salt for every compile: the input digests of one configuration
	// stay the same from one reconcile to the next.
	if spec.Options.InputSalt, err = planner.NewInputSalt(); err != nil {
		return err
	}
	s.stateDir = workflow.ScriptStateDir(s.opts.Store)
	s.registry = func(scriptRoot string) executor.Registry {
		return workflow.Drivers(executor.DriverOptions{ScriptRoot: scriptRoot, Root: execRoot, Timeout: s.opts.Timeout, StateDir: s.stateDir,
			Placement: s.opts.Placement.Endpoint()})
	}
	s.goal = func(ctx context.Context) (*Goal, diag.Diagnostics, error) {
		spec := spec
		// The model policies that read feedback read the state as it is now.
		st, err := s.opts.Store.Read(ctx)
		if err != nil {
			return nil, nil, err
		}
		spec.Prior = st
		goal, goalDiags, err := workflow.MakeGoal(ctx, spec)
		goalDiags = s.opts.Diags.Extend(goalDiags)
		if err != nil || goal == nil {
			return nil, goalDiags, err
		}
		return &Goal{Desired: goal.Desired, Plan: goal.Options, ScriptRoot: goal.ScriptRoot, Drivers: s.registry(goal.ScriptRoot),
			Placer: workflow.ExecutorPlacer(claimer), Held: goal.Held}, goalDiags, nil
	}
	return nil
}

// join makes this service a member of its workspace's cluster.
func (s *Service) join(ctx context.Context, pg *pgbackend.Backend, wd string) error {
	member, err := s.opts.Join(ctx, JoinOptions{Store: pg, Parallelism: s.opts.Apply.Parallelism, PerDriver: s.opts.Apply.PerDriver,
		WorkDir: wd, Logger: s.opts.Logger,
		Local: func(ctx context.Context) (executor.Registry, string, error) {
			g, gdiags, err := s.goal(ctx)
			if err != nil {
				return nil, "", err
			}
			if !g.usable(gdiags) {
				return nil, "", fmt.Errorf("the configuration has errors: %w", gdiags.Err())
			}
			return g.Drivers, CheckoutDigest(g), nil
		},
		// Called only while this member leads, when the engine runs.
		OnReconcile: func(reason string) { s.engine.ConfigurationChanged(reason) },
		OnCheck:     func(addr string) { _ = s.engine.Check(addr) }})
	if err != nil {
		return err
	}
	s.member = member
	return nil
}

// leave leaves the cluster: the actions running here get the grace apply
// gives them.
func (s *Service) leave(ctx context.Context) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cmp.Or(s.opts.Apply.Grace, executor.DefaultGrace))
	defer cancel()
	if err := s.member.Close(stopCtx); err != nil {
		s.opts.Logger.Warn("leaving the cluster", "error", err.Error())
	}
}

// lead is a term of this member's leadership: the state lock, the journal
// a former leader left, and the engine until the term ends.
func (s *Service) lead(term context.Context) error {
	held, err := s.member.LockState(term, s.opts.LockInfo)
	if err != nil {
		if term.Err() != nil {
			return nil
		}
		return err
	}
	defer held.Unlock()
	if _, err := recoverState(term, s.opts.Store); err != nil {
		return err
	}
	return s.engine.Run(term)
}

// reconcile asks for a reconcile: of the engine, or, on a member of a
// cluster that does not lead, of the leader.
func (s *Service) reconcile(ctx context.Context, reason string) {
	if s.member != nil && !s.member.Leading() {
		if err := s.member.RequestReconcile(ctx, reason+" (via "+s.member.Member()+")"); err != nil {
			s.opts.Logger.Warn("reconcile not requested", "error", err.Error())
		}
		return
	}
	s.engine.ConfigurationChanged(reason)
}

// check asks for a resource's health check, as reconcile does.
func (s *Service) check(ctx context.Context, addr string) error {
	if s.member != nil && !s.member.Leading() {
		return s.member.RequestCheck(ctx, addr)
	}
	return s.engine.Check(addr)
}

// ErrNotLeading refuses what only the leader of a cluster does.
var ErrNotLeading = errors.New("this member of the cluster does not lead: ask the leader (GET /v1/status names it)")

// resync saves a resource without change (Engine.Resync); only the
// leader, which holds the state, does.
func (s *Service) resync(addr string) error {
	if s.member != nil && !s.member.Leading() {
		return ErrNotLeading
	}
	return s.engine.Resync(addr)
}

// adopt adopts id as addr when this service holds the state; only the
// leader does.
func (s *Service) adopt(ctx context.Context, addr, id string) error {
	if s.member != nil && !s.member.Leading() {
		return ErrNotLeading
	}
	return s.engine.Adopt(ctx, addr, id)
}

// serveAPI starts the API when Listen names an address; it stops with
// ctx. Without a Token it makes one (TokenPath) before ListenFile names
// the address, and removes it when it stops.
func (s *Service) serveAPI(ctx context.Context, wg *stdsync.WaitGroup) error {
	api := s.opts.API
	if api.Listen == "" {
		return nil
	}
	ln, err := net.Listen("tcp", api.Listen)
	if err != nil {
		return fmt.Errorf("API: %w", err)
	}
	token, forget := api.Token, func() {}
	if token == "" {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		path, err := api.TokenPath(port)
		if err == nil {
			token, forget, err = MakeTokenFile(path)
		}
		if err != nil {
			ln.Close()
			return err
		}
		s.opts.Logger.Info("API token made", "file", path)
	}
	if api.ListenFile != "" {
		if err := os.WriteFile(api.ListenFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			forget()
			return fmt.Errorf("writing --listen-file: %w", err)
		}
	}
	h := Handler(s.engine, APIOptions{Token: token, WritesOnly: IsLoopback(api.Listen),
		Encode: api.Encode, Metrics: s.metrics,
		Reconcile: func(reason string) { s.reconcile(ctx, reason) },
		Check:     func(addr string) error { return s.check(ctx, addr) },
		Resync:    s.resync,
		Adopt:     s.adopt})
	// The server's requests end with ctx (event streams included).
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	s.opts.Logger.Info("API listening", "address", ln.Addr().String())
	wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.opts.Logger.Error("API stopped", "error", err.Error())
		}
	})
	wg.Go(func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
		forget()
	})
	return nil
}

// watch turns changes of the configuration's files (and of the script
// root) into reconciles, and tells the cluster member its checkout may
// have changed. The state, and the folder scripts keep state in, are
// not watched: the service writes them.
func (s *Service) watch(ctx context.Context, wg *stdsync.WaitGroup) {
	watchPaths := s.opts.Spec.Paths
	if s.opts.Spec.ScriptRoot != "" {
		watchPaths = append(slices.Clone(watchPaths), s.opts.Spec.ScriptRoot)
	}
	statePath, _ := filepath.Abs(s.opts.Store.Location())
	wg.Go(func() {
		_ = Watch(ctx, watchPaths, WatchOptions{Debounce: s.opts.Debounce, Poll: s.opts.Poll,
			Ignore: func(p string) bool {
				abs, err := filepath.Abs(p)
				return err == nil && (strings.HasPrefix(abs, statePath) || strings.HasPrefix(abs, s.stateDir))
			}}, func(reason string) {
			s.engine.ConfigurationChanged(reason)
			if s.member != nil {
				s.member.LocalChanged()
			}
		})
	})
}

// recoverState reads the state with the journal an interrupted apply
// left, the caller holding the lock; a journal still being written by a
// holder whose lock was forced away is an error saying what to do.
func recoverState(ctx context.Context, store state.Store) (*state.State, error) {
	loaded, err := workflow.LoadLocked(ctx, store)
	if err != nil {
		return nil, err
	}
	return loaded.State, nil
}

// IsLoopback reports whether a listen address is on a loopback interface
// only (an empty host listens on every interface): where the API lets
// GET requests through without a token.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// MakeTokenFile writes a new random API token (256 bits, hex) to path,
// readable by the user alone: a temporary file created exclusively with
// mode 0600, synced, then renamed over path, so that a reader never sees
// a partial token and a stale file (a service that was killed) is
// replaced. forget removes the file if it still holds this token.
func MakeTokenFile(path string) (token string, forget func(), err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("API token: %w", err)
	}
	secret := make([]byte, 32)
	_, _ = rand.Read(secret) // never fails (crypto/rand)
	token = hex.EncodeToString(secret)
	tmp, err := os.CreateTemp(dir, ".api-token-*")
	if err != nil {
		return "", nil, fmt.Errorf("API token: %w", err)
	}
	_, err = tmp.WriteString(token + "\n")
	err = errors.Join(err, tmp.Sync(), tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", nil, fmt.Errorf("API token: %w", err)
	}
	return token, func() {
		if data, err := os.ReadFile(path); err == nil && string(data) == token+"\n" {
			_ = os.Remove(path)
		}
	}, nil
}
