package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	stdsync "sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/uievent"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/views"
	"github.com/xosplan/xosplan/driver/all"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/state/pgbackend"
	xsync "github.com/xosplan/xosplan/pkg/sync"
	"github.com/xosplan/xosplan/pkg/sync/pgcluster"
)

// defaultListen is where sync's API listens unless --listen says
// otherwise: loopback only.
const defaultListen = "127.0.0.1:8420"

// syncFlags are the flags of `xosplan sync`.
type syncFlags struct {
	apply          applyFlags
	retryBase      time.Duration
	retryMax       time.Duration
	healthInterval time.Duration
	resync         time.Duration
	debounce       time.Duration
	poll           time.Duration
	listen         string
	listenFile     string
	tokenFile      string
	logFormat      string
	memberName     string
	lease          time.Duration
}

func newSyncCommand(c *cli) *cobra.Command {
	var f syncFlags
	cmd := &cobra.Command{
		Use:   "sync [flags] [PATH...]",
		Short: "Keep the real objects at the configuration's goal, continuously",
		Long: `Sync runs until it is interrupted and keeps the resources at the goal the configuration
(PATHs as plan reads them; the current folder when none is given) describes:

- A reconcile plans the configuration against the state and applies what differs, exactly as
  plan and apply do (the same reasons, the same journal). It runs at the start, when a file
  of the configuration or a script it names changes (file notifications, debounced, backed by
  a poll every --poll-interval), on SIGHUP, on POST /v1/sync, after a health check found
  drift, and when a retry is due.
- A resource that fails is retried after --retry-base, doubling up to --retry-max (with
  jitter), while independent resources go on; what depends on it waits and names it. A
  failure no retry can mend (a missing script) and a configuration with errors wait for the
  configuration to change.
- Every resource with a health check is checked every --health-interval (a scripted
  component's factory.healthCheckInterval, or a TOSCA node template's metadata
  xosplan.health_interval, overrides it), jittered; a failed or missing
  instance is repaired by the next reconcile. A factory with discovery settings runs its
  discovery script on its Quartz schedule and records what it finds. Every resource is
  checked and the configuration compiled again every --resync; the time of the last one is
  kept in the state, so a restart does not check everything at once.

Sync holds the state lock for its whole run: apply, destroy and a second sync refuse while it
runs; plan still works. With a PostgreSQL state (--state postgres://…), several syncs on
different machines, each with the same configuration checkout, share the workspace as a
cluster: one leads (it holds the lease and the state lock, plans and schedules) and every
member, the leader included, runs the actions the leader hands out through a job queue in
the database. A member whose checkout differs from the leader's runs none of them; when the
leader stops, another takes over within --lease. Its API listens on --listen (loopback by default): GET /v1/status,
GET /v1/resources/{address}, GET /v1/events (server-sent events), POST /v1/sync,
POST /v1/resources/{address}/check, GET /healthz, GET /readyz and GET /metrics. A token
(--api-token-file) is required for every request that is not a GET, and for every request
when the listener is not on a loopback address; without --api-token-file on a loopback
listener, sync makes one in a file only its user reads (STATE.api-token beside a file state)
and removes it when it stops. Requests from a web page of another origin and POST bodies that
are not JSON are refused; at most 64 event streams are served at once. xosplan status asks a
running sync, with the token sync made for the same --state.

Logs go to stderr, text or JSON (--log-format json). On SIGINT or SIGTERM nothing new starts,
running actions get --grace to finish, the state is saved, and sync exits 0.`,
		Example: `  xosplan sync examples/petclinic
  xosplan sync --health-interval 30s --log-format json --listen 127.0.0.1:9000 stack/
  curl -X POST -H "Authorization: Bearer $(cat token)" http://127.0.0.1:8420/v1/sync`,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSync(cmd, c, f, args)
		},
	}
	fs := cmd.Flags()
	f.apply.state.add(fs)
	f.apply.root.add(fs)
	f.apply.addRun(fs)
	f.apply.inputs.add(fs)
	f.apply.imports.add(fs)
	f.apply.placement.add(fs)
	fs.DurationVar(&f.retryBase, "retry-base", xsync.DefaultRetryBase, "wait `DURATION` before retrying a failed resource, doubled after each failure")
	fs.DurationVar(&f.retryMax, "retry-max", xsync.DefaultRetryMax, "never wait longer than `DURATION` between two retries")
	fs.DurationVar(&f.healthInterval, "health-interval", xsync.DefaultHealthInterval, "run each resource's health check every `DURATION`")
	fs.DurationVar(&f.resync, "resync", xsync.DefaultResync, "check every resource and compile the configuration again at least every `DURATION`")
	fs.DurationVar(&f.debounce, "debounce", 500*time.Millisecond, "wait for files to stay unchanged `DURATION` before reconciling")
	fs.DurationVar(&f.poll, "poll-interval", xsync.DefaultPoll, "also compare the files every `DURATION`, where notifications do not arrive (0: never)")
	fs.StringVar(&f.listen, "listen", defaultListen, "serve the API on `ADDRESS` (host:port; empty: no API)")
	fs.StringVar(&f.listenFile, "listen-file", "", "write the address the API listens on to `FILE` (for --listen with port 0)")
	fs.StringVar(&f.tokenFile, "api-token-file", "", "require the token in `FILE` (Authorization: Bearer TOKEN) for requests that are not GETs, and for all on a non-loopback listener (default on loopback: a token sync makes, beside the state)")
	fs.StringVar(&f.logFormat, "log-format", "text", "write the log as `FORMAT`: text or json")
	fs.StringVar(&f.memberName, "member-name", "", "with a PostgreSQL state, this process's `NAME` in the cluster of syncs sharing the workspace (default: the host name; the member is NAME:PID)")
	fs.DurationVar(&f.lease, "lease", pgcluster.DefaultLease, "with a PostgreSQL state, how long the leader's lease and each membership last unrenewed (`DURATION`; renewed every third of it)")
	return cmd
}

func (f *syncFlags) check(cmd *cobra.Command) error {
	switch {
	case f.apply.parallelism < 1:
		return usagef(cmd, "--parallelism must be at least 1")
	case f.logFormat != "text" && f.logFormat != "json":
		return usagef(cmd, "--log-format must be text or json, not %q", f.logFormat)
	case f.retryBase <= 0 || f.retryMax < f.retryBase:
		return usagef(cmd, "--retry-base must be positive and --retry-max at least --retry-base")
	case f.healthInterval < time.Second || f.resync < time.Second:
		return usagef(cmd, "--health-interval and --resync must be at least 1s")
	case f.poll < 0 || f.debounce < 0:
		return usagef(cmd, "--poll-interval and --debounce cannot be negative")
	case f.lease < time.Second:
		return usagef(cmd, "--lease must be at least 1s")
	}
	return nil
}

// syncRun is one `xosplan sync`: what its flags made ready, then the
// engine, the cluster membership (with a PostgreSQL state) and the
// listeners that feed the engine.
type syncRun struct {
	c      *cli
	f      syncFlags
	paths  []string
	opts   executor.Options
	logger *slog.Logger
	token  string
	// goal builds the configuration's goal; registry the drivers for a
	// script root.
	goal     xsync.GoalFunc
	registry func(scriptRoot string) executor.Registry
	stateDir string
	backend  state.Store
	engine   *xsync.Engine
	member   *pgcluster.Cluster
	metrics  *xsync.Metrics
}

func runSync(cmd *cobra.Command, c *cli, f syncFlags, paths []string) error {
	ctx := cmd.Context()
	if err := f.check(cmd); err != nil {
		return err
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	r := &syncRun{c: c, f: f, paths: paths}
	var err error
	if r.opts, err = f.apply.options(c); err != nil {
		return usagef(cmd, "%v", err)
	}
	root, err := f.apply.root.root(c, paths)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if err := refuseArchives(paths); err != nil {
		return err
	}
	if r.token, err = readToken(ctx, f.tokenFile); err != nil {
		return usagef(cmd, "%v", err)
	}
	if f.listen != "" && !isLoopback(f.listen) && r.token == "" {
		return usagef(cmd, "--listen %s is not a loopback address: give --api-token-file, whose token every request must then carry", f.listen)
	}
	spec, diags, err := r.planSpec(ctx, root)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	if diags.HasErrors() {
		return planFailed(views.NewPlan(false, c.stderr, c.streams()), diags)
	}
	r.logger = newSyncLogger(c.stderr, f.logFormat)

	r.backend, err = f.apply.state.open(ctx, c)
	if err != nil {
		return err
	}
	defer r.backend.Close()
	// With a PostgreSQL state, several syncs share the workspace as a
	// cluster: the leader takes the state lock for its term (lead).
	// Otherwise this sync holds the lock for its whole run.
	pg, clustered := r.backend.(*pgbackend.Backend)
	var prior *state.State
	if clustered {
		prior, err = r.backend.Read(ctx)
	} else {
		var held *state.HeldLock
		if held, err = r.backend.Lock(ctx, stateLockInfo("sync")); err != nil {
			return err
		}
		defer held.Unlock()
		prior, err = recoverState(ctx, r.backend)
	}
	if err != nil {
		return err
	}
	if err := r.prepareGoal(ctx, cmd, spec, diags, prior); err != nil {
		return err
	}
	wd, _ := os.Getwd()
	r.metrics = xsync.NewMetrics()
	eopts := xsync.Options{Goal: r.goal, Store: r.backend, Drivers: r.registry(f.apply.scriptRoot), Apply: r.opts,
		Timeout: f.apply.timeout, WorkDir: wd, RetryBase: f.retryBase, RetryMax: f.retryMax, HealthInterval: f.healthInterval,
		Resync: f.resync, Logger: r.logger, Events: logApplyEvent(r.logger), Metrics: r.metrics}
	if clustered {
		if err := r.joinCluster(ctx, wd); err != nil {
			return err
		}
		defer r.leaveCluster(ctx)
		eopts.Cluster = r.member
	}
	r.engine = xsync.New(eopts)

	var wg stdsync.WaitGroup
	defer wg.Wait()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if err := r.serveAPI(runCtx, &wg); err != nil {
		return err
	}
	r.watch(runCtx, &wg)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	wg.Go(func() {
		for {
			select {
			case <-runCtx.Done():
				return
			case <-hup:
				r.reconcile(runCtx, "SIGHUP")
			}
		}
	})
	if r.member == nil {
		r.logger.Info("sync started", "configuration", strings.Join(paths, ","), "state", r.backend.Location())
		err = r.engine.Run(ctx)
	} else {
		r.logger.Info("sync started", "configuration", strings.Join(paths, ","), "state", r.backend.Location(), "member", r.member.Member())
		err = r.member.Run(ctx, func(term context.Context) error { return r.lead(term, pg) })
	}
	stop()
	return err
}

// planSpec reads the inputs, the import map and the placement options
// into the spec every compile of the goal uses.
func (r *syncRun) planSpec(ctx context.Context, root *config.Root) (planSpec, diag.Diagnostics, error) {
	a := &r.f.apply
	inputs, diags, err := a.inputs.values(ctx, r.c)
	if err != nil {
		return planSpec{}, nil, err
	}
	importMap, mapDiags, err := a.imports.values(ctx, r.c)
	if err != nil {
		return planSpec{}, nil, err
	}
	diags = diags.Extend(mapDiags)
	placeOpts, diags := a.placement.planOptions(ctx, r.c, diags)
	return planSpec{paths: r.paths, root: root, inputs: inputs, inputsFile: a.inputs.file, importMap: importMap,
		profilePath: a.imports.profilePath(r.c), scriptRoot: a.scriptRoot, opts: planner.Options{Placement: placeOpts}}, diags, nil
}

// prepareGoal makes the goal function and the drivers' registry, from the
// state recorded before (the roots and placements it names).
func (r *syncRun) prepareGoal(ctx context.Context, cmd *cobra.Command, spec planSpec, diags diag.Diagnostics, prior *state.State) error {
	a := &r.f.apply
	execRoot, err := a.root.executorRoot(r.c, spec.root, prior)
	if err != nil {
		return usagef(cmd, "%v", err)
	}
	claimer, err := a.placement.placer(ctx, r.c, prior)
	if err != nil {
		return err
	}
	if spec.opts.InputSalt, err = planner.NewInputSalt(); err != nil {
		return err
	}
	r.stateDir = scriptStateDir(r.backend)
	r.registry = func(scriptRoot string) executor.Registry {
		return all.NewRegistry(executor.DriverOptions{ScriptRoot: scriptRoot, Root: execRoot, Timeout: a.timeout, StateDir: r.stateDir})
	}
	r.goal = func(ctx context.Context) (*xsync.Goal, diag.Diagnostics, error) {
		desired, planOpts, res, goalDiags, err := makeGoal(ctx, spec)
		goalDiags = diags.Extend(goalDiags)
		if err != nil || desired == nil {
			return nil, goalDiags, err
		}
		scriptRoot := spec.effectiveScriptRoot(res)
		return &xsync.Goal{Desired: desired, Plan: planOpts, ScriptRoot: scriptRoot, Drivers: r.registry(scriptRoot),
			Placer: executorPlacer(claimer)}, goalDiags, nil
	}
	return nil
}

// joinCluster makes this sync a member of its workspace's cluster.
func (r *syncRun) joinCluster(ctx context.Context, wd string) error {
	path, workspace := r.f.apply.state.where(r.c)
	member, err := pgcluster.Open(ctx, pgcluster.Options{DSN: path, Workspace: cmp.Or(workspace, pgbackend.DefaultWorkspace),
		Name: r.f.memberName, Parallelism: r.f.apply.parallelism, PerDriver: r.opts.PerDriver, Lease: r.f.lease, WorkDir: wd,
		Logger: r.logger,
		Local: func(ctx context.Context) (pgcluster.Local, error) {
			g, gdiags, err := r.goal(ctx)
			if err != nil {
				return pgcluster.Local{}, err
			}
			if gdiags.HasErrors() || g == nil {
				return pgcluster.Local{}, fmt.Errorf("the configuration has errors: %w", gdiags.Err())
			}
			return pgcluster.Local{Drivers: g.Drivers, Digest: xsync.CheckoutDigest(g)}, nil
		},
		// Called only while this member leads, when the engine runs.
		OnReconcile: func(reason string) { r.engine.ConfigurationChanged(reason) },
		OnCheck:     func(addr string) { _ = r.engine.Check(addr) }})
	r.member = member
	return err
}

// leaveCluster leaves it: the actions running here get the grace apply
// gives them.
func (r *syncRun) leaveCluster(ctx context.Context) {
	stopCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cmp.Or(r.opts.Grace, executor.DefaultGrace))
	defer cancel()
	if err := r.member.Close(stopCtx); err != nil {
		r.logger.Warn("leaving the cluster", "error", err.Error())
	}
}

// lead is a term of this member's leadership: the state lock, the journal
// a former leader left, and the engine until the term ends.
func (r *syncRun) lead(term context.Context, pg *pgbackend.Backend) error {
	held, err := pgcluster.LockState(term, pg, stateLockInfo("sync"), r.logger)
	if err != nil {
		if term.Err() != nil {
			return nil
		}
		return err
	}
	defer held.Unlock()
	if _, err := recoverState(term, r.backend); err != nil {
		return err
	}
	return r.engine.Run(term)
}

// reconcile asks for a reconcile: of the engine, or, on a member of a
// cluster that does not lead, of the leader.
func (r *syncRun) reconcile(ctx context.Context, reason string) {
	if r.member != nil && !r.member.Leading() {
		if err := r.member.RequestReconcile(ctx, reason+" (via "+r.member.Member()+")"); err != nil {
			r.logger.Warn("reconcile not requested", "error", err.Error())
		}
		return
	}
	r.engine.ConfigurationChanged(reason)
}

// check asks for a resource's health check, as reconcile does.
func (r *syncRun) check(ctx context.Context, addr string) error {
	if r.member != nil && !r.member.Leading() {
		return r.member.RequestCheck(ctx, addr)
	}
	return r.engine.Check(addr)
}

// serveAPI starts the API when --listen names an address; it stops with
// ctx. Without --api-token-file it makes a token (apiTokenPath) before
// --listen-file names the address, and removes it when it stops.
func (r *syncRun) serveAPI(ctx context.Context, wg *stdsync.WaitGroup) error {
	if r.f.listen == "" {
		return nil
	}
	ln, err := net.Listen("tcp", r.f.listen)
	if err != nil {
		return fmt.Errorf("API: %w", err)
	}
	token, forget := r.token, func() {}
	if token == "" {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		path, err := apiTokenPath(r.c, &r.f.apply.state, port)
		if err == nil {
			token, forget, err = makeAPIToken(path)
		}
		if err != nil {
			ln.Close()
			return err
		}
		r.logger.Info("API token made", "file", path)
	}
	if r.f.listenFile != "" {
		if err := os.WriteFile(r.f.listenFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
			ln.Close()
			forget()
			return fmt.Errorf("writing --listen-file: %w", err)
		}
	}
	h := xsync.Handler(r.engine, xsync.APIOptions{Token: token, WritesOnly: isLoopback(r.f.listen),
		Encode: encodeSyncEvent, Metrics: r.metrics,
		Reconcile: func(reason string) { r.reconcile(ctx, reason) },
		Check:     func(addr string) error { return r.check(ctx, addr) }})
	// The server's requests end with ctx (event streams included).
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	r.logger.Info("API listening", "address", ln.Addr().String())
	wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.logger.Error("API stopped", "error", err.Error())
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
// have changed.
func (r *syncRun) watch(ctx context.Context, wg *stdsync.WaitGroup) {
	watchPaths := r.paths
	if r.f.apply.scriptRoot != "" {
		watchPaths = append(slices.Clone(watchPaths), r.f.apply.scriptRoot)
	}
	statePath, _ := filepath.Abs(r.backend.Location())
	wg.Go(func() {
		_ = xsync.Watch(ctx, watchPaths, xsync.WatchOptions{Debounce: r.f.debounce, Poll: pollOption(r.f.poll),
			Ignore: func(p string) bool {
				abs, err := filepath.Abs(p)
				return err == nil && (strings.HasPrefix(abs, statePath) || strings.HasPrefix(abs, r.stateDir))
			}}, func(reason string) {
			r.engine.ConfigurationChanged(reason)
			if r.member != nil {
				r.member.LocalChanged()
			}
		})
	})
}

// recoverState reads the state with the journal an interrupted apply
// left, the caller holding the lock; a journal still being written by a
// holder whose lock was forced away is an error saying what to do.
func recoverState(ctx context.Context, backend state.Store) (*state.State, error) {
	loaded, err := backend.LoadWithJournal(ctx)
	if err == nil && loaded.Busy != nil {
		err = stateRecovery(loaded.Busy, backend, false)
	}
	if err != nil {
		return nil, err
	}
	return loaded.State, nil
}

// pollOption maps --poll-interval (0: never) to WatchOptions.Poll.
func pollOption(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// isLoopback reports whether a listen address is on a loopback interface
// only (an empty host listens on every interface).
func isLoopback(addr string) bool {
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

// maxTokenBytes bounds an API token file.
const maxTokenBytes = 4096

// readToken reads the API token from path ("" for none): the file's
// content without surrounding space.
func readToken(ctx context.Context, path string) (string, error) {
	if path == "" {
		return "", nil
	}
	data, err := userfile.Read(ctx, path, userfile.Options{MaxBytes: maxTokenBytes})
	if err != nil {
		return "", fmt.Errorf("--api-token-file: %w", plainError(err))
	}
	token := strings.TrimSpace(string(data))
	if token == "" || strings.ContainsAny(token, "\r\n") {
		return "", fmt.Errorf("--api-token-file %s must hold one non-empty line", path)
	}
	return token, nil
}

// newSyncLogger returns sync's logger on w.
func newSyncLogger(w io.Writer, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// logApplyEvent logs what the apply walks do, one line per step start
// and end (the scripts' output lines stay in the activity log and the
// event stream). Everything an event holds was redacted by the walk.
func logApplyEvent(logger *slog.Logger) func(xsync.Event) {
	return func(ev xsync.Event) {
		x := ev.Apply
		if x == nil {
			return
		}
		attrs := []any{"address", x.Address, "action", x.Action}
		switch x.Type {
		case executor.EventStart:
			logger.Info("action started", attrs...)
		case executor.EventComplete:
			logger.Info("action complete", append(attrs, "elapsed", x.Elapsed.Round(time.Millisecond))...)
		case executor.EventConverging:
			logger.Info("converging", attrs...)
		case executor.EventErrored:
			logger.Warn("action failed", append(attrs, "error", x.Error)...)
		case executor.EventSkipped:
			logger.Info("waiting", append(attrs, "on", x.Cause)...)
		}
	}
}

// encodeSyncEvent renders an event for GET /v1/events: an apply's events
// exactly as `apply --json` prints them, the engine's own in the same
// envelope (uievent).
func encodeSyncEvent(ev xsync.Event) ([]byte, bool) {
	if ev.Apply != nil {
		var buf bytes.Buffer
		applyview.NewJSON(&buf, func() time.Time { return ev.Time }).Event(*ev.Apply)
		return buf.Bytes(), buf.Len() > 0
	}
	level, msg := "info", ""
	fields := map[string]any{}
	if ev.Address != "" {
		fields["hook"] = map[string]any{"resource": map[string]any{"addr": ev.Address}}
	}
	switch ev.Type {
	case xsync.EventReconcileStart:
		msg = "reconcile started (" + ev.Message + ")"
		fields["reason"] = ev.Message
	case xsync.EventReconcileEnd:
		msg = "reconcile ended: " + ev.Outcome
		fields["outcome"] = ev.Outcome
		fields["elapsed_seconds"] = ev.Elapsed.Seconds()
		if ev.Message != "" {
			fields["error"] = ev.Message
			level = "warn"
		}
		if rep := ev.Report; rep != nil {
			fields["changes"] = map[string]any{"add": rep.Added, "change": rep.Changed, "remove": rep.Destroyed,
				"failed": rep.Failed, "skipped": rep.Skipped, "not_started": rep.NotStarted}
		}
	case xsync.EventDrift:
		level, msg = "warn", ev.Address+": "+ev.Message
	case xsync.EventDiscovery:
		msg = fmt.Sprintf("%s: discovery found %d unmanaged instances", ev.Address, ev.Count)
		fields["unmanaged_instances"] = ev.Count
	default:
		return nil, false
	}
	line, err := uievent.Line(ev.Time, level, msg, ev.Type, fields)
	return line, err == nil
}
